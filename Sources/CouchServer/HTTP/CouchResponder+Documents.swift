import Crypto
import Hummingbird
import JSONText

extension CouchResponder {
    /// `GET`, `HEAD`, `PUT` and `DELETE /{db}/{docid}` (including `_design/…`).
    func document(_ request: CouchRequest, _ database: Database, id: String) async throws(CouchError) -> CouchResponse {
        switch request.method {
        case .get, .head:
            return try await readDocument(request, database, id: id)
        case .put:
            return try await writeDocument(request, database, id: id)
        case .delete:
            guard let revision = try revisionFromQueryOrHeader(request) else { throw CouchError.conflictingUpdate }
            let edit = DocumentEdit(id: id, baseRevision: revision, isDeleted: true)
            let saved = try await save(edit, in: database)
            var response = CouchResponse(.object(["ok": .bool(true), "id": .string(id), "rev": .string(saved.description)]))
            response.setETag(saved.description)
            return response
        case let method where method.rawValue == "COPY":
            return try await copyDocument(request, database, id: id)
        default:
            try allow(request, [.get, .head, .put, .delete, HTTPRequest.Method("COPY")!])
            return .ok()
        }
    }

    /// `rev` from the query or `If-Match` (they must agree).
    private func revisionFromQueryOrHeader(_ request: CouchRequest) throws(CouchError) -> Revision? {
        var texts: [String] = []
        if let query = request.query["rev"] { texts.append(query) }
        if let header = request.headers[.ifMatch] { texts.append(header.trimmingQuotes()) }
        guard let first = texts.first else { return nil }
        guard let revision = Revision(first) else { throw CouchError.invalidRevisionFormat }
        if texts.count > 1, texts[1] != first {
            throw CouchError(.badRequest, reason: "Document rev and etag have different values.")
        }
        return revision
    }

    func save(_ edit: DocumentEdit, in database: Database, newEdits: Bool = true) async throws(CouchError) -> Revision {
        let outcomes = try await database.update([edit], newEdits: newEdits)
        switch outcomes.first {
        case .saved(_, let revision): return revision
        case .failed(_, let error): throw error
        case .alreadyPresent, nil: return edit.history?.first ?? edit.baseRevision ?? Revision(generation: 1, hash: "")
        }
    }

    private func writeDocument(_ request: CouchRequest, _ database: Database, id: String) async throws(CouchError) -> CouchResponse {
        let object: JSONObject
        var received: [String: StagedAttachment] = [:]
        if let type = request.headers[.contentType], let boundary = MultipartRelatedReader.boundary(ofContentType: type) {
            (object, received) = try await readMultipartDocument(request, into: database.attachments, boundary: boundary)
        } else {
            guard let parsed = try request.jsonBody().objectValue else {
                throw CouchError(.badRequest, reason: "Document must be a JSON object")
            }
            object = parsed
        }
        var parsed = try DocumentRequestBody.parse(object)
        let outside = try revisionFromQueryOrHeader(request)
        if let outside {
            if let inside = parsed.revision, inside != outside {
                throw CouchError(.badRequest, reason: "Document rev from request body and query string have different values")
            }
            parsed.revision = outside
        }
        let newEdits = try request.flag("new_edits", default: true)
        var edit = try DocumentRequestBody.edit(parsed, id: id, newEdits: newEdits, maximumSize: configuration.maximumDocumentSize)
        edit.stagedAttachments = received
        defer { database.attachments.discardUncommitted(received.values) }
        let saved = try await save(edit, in: database, newEdits: newEdits)
        if let accepted = try batchAnswer(request, id: id) { return accepted }
        var response = CouchResponse(status: .created, .object(["ok": .bool(true), "id": .string(id), "rev": .string(saved.description)]))
        response.setETag(saved.description)
        response.setHeader("Location", location(request, database.name, id))
        return response
    }

    /// `POST /{db}`: a new document, its id from `_id` or generated.
    func postDocument(_ request: CouchRequest, _ database: Database) async throws(CouchError) -> CouchResponse {
        try request.requireJSONContentType()
        guard let object = try request.jsonBody().objectValue else {
            throw CouchError(.badRequest, reason: "Document must be a JSON object")
        }
        let parsed = try DocumentRequestBody.parse(object)
        let id = parsed.id ?? Database.randomHex()
        if id.hasPrefix("_local/") {
            let revision = try await database.updateLocal(id, revision: parsed.revision?.description, isDeleted: parsed.isDeleted, body: parsed.body)
            return CouchResponse(status: .created, .object(["ok": .bool(true), "id": .string(id), "rev": .string(revision)]))
        }
        let edit = try DocumentRequestBody.edit(parsed, id: id, newEdits: true, maximumSize: configuration.maximumDocumentSize)
        let saved = try await save(edit, in: database)
        if let accepted = try batchAnswer(request, id: id) { return accepted }
        var response = CouchResponse(status: .created, .object(["ok": .bool(true), "id": .string(id), "rev": .string(saved.description)]))
        response.setHeader("Location", location(request, database.name, id))
        return response
    }

    /// `?batch=ok`: CouchDB's 202 `{ok, id}` without a revision. The write itself is not
    /// deferred here: it is on disk before this answer, so nothing is lost if the server stops.
    private func batchAnswer(_ request: CouchRequest, id: String) throws(CouchError) -> CouchResponse? {
        guard let batch = request.query["batch"] else { return nil }
        guard batch == "ok" else { throw CouchError(.badRequest, reason: "Bad batch value: \(batch)") }
        return CouchResponse(status: .accepted, .object(["ok": .bool(true), "id": .string(id)]))
    }

    /// The `Database.RenderOptions` a document request asks for.
    func renderOptions(_ request: CouchRequest) throws(CouchError) -> Database.RenderOptions {
        let meta = try request.flag("meta")
        let revisionsInfo = try request.flag("revs_info")
        let conflicts = try request.flag("conflicts")
        let deletedConflicts = try request.flag("deleted_conflicts")
        return Database.RenderOptions(
            revisions: try request.flag("revs"),
            revisionsInfo: meta || revisionsInfo,
            conflicts: meta || conflicts,
            deletedConflicts: meta || deletedConflicts,
            attachmentEncodingInfo: try request.flag("att_encoding_info")
        )
    }

    private func readDocument(_ request: CouchRequest, _ database: Database, id: String) async throws(CouchError) -> CouchResponse {
        guard let entry = try await database.entry(id), entry.winner != nil else { throw CouchError.missingDocument }
        var options = try renderOptions(request)
        options.keepsStoredAttachments = true
        if let openRevisions = request.query["open_revs"] {
            return try await self.openRevisions(request, database, entry: entry, parameter: openRevisions, options: options)
        }
        let revision = try requestedRevision(request, of: entry)
        guard var object = try await database.render(entry, revision: revision, options: options) else {
            throw CouchError.missingDocument
        }
        if try request.flag("local_seq") { object["_local_seq"] = .integer(entry.sequence) }
        let asked = try attachmentRequest(request)
        var response: CouchResponse
        if asked.includesData || asked.sinceGeneration != nil, request.headers[.accept]?.contains("multipart/related") == true,
           let pieces = relatedParts(object, database, asked, boundary: Database.randomHex(), always: false) {
            response = CouchResponse(status: .ok, body: .pieces(pieces))
        } else {
            try inlineAttachments(&object, database, asked)
            response = CouchResponse(.object(object))
            if request.headers[.accept]?.contains("multipart/") == true { response.setHeader("Content-Type", "application/json") }
        }
        let hasMeta = options.revisionsInfo || object["_conflicts"] != nil || object["_deleted_conflicts"] != nil
        if !hasMeta {
            let tag = "\"\(revision)\""
            if request.headers[.ifNoneMatch] == tag {
                return CouchResponse(status: .notModified, body: .empty)
            }
            response.setETag(revision.description)
        }
        return response
    }

    /// `?open_revs=all` or `?open_revs=[…]`: the asked revisions, as `{"ok": doc}` or `{"missing": rev}`.
    private func openRevisions(_ request: CouchRequest, _ database: Database, entry: DocumentEntry, parameter: String,
                               options: Database.RenderOptions) async throws(CouchError) -> CouchResponse {
        /// A found revision (its document) or the text of a missing one.
        var results: [(object: JSONObject?, missing: String?)] = []
        let latest = try request.flag("latest")
        if parameter == "all" {
            for leaf in entry.tree.leaves.sorted() {
                if let object = try await database.render(entry, revision: leaf, options: options) {
                    results.append((object, nil))
                }
            }
        } else {
            guard let list = try request.json("open_revs")?.arrayValue else {
                throw CouchError(.badRequest, reason: "Invalid open_revs parameter")
            }
            for item in list {
                guard let text = item.stringValue, let revision = Revision(text) else { throw CouchError.invalidRevisionFormat }
                let targets = latest ? entry.tree.leaves(descendingFrom: revision) : [revision]
                var found = false
                for target in targets {
                    if let object = try await database.render(entry, revision: target, options: options) {
                        results.append((object, nil))
                        found = true
                    }
                }
                if !found { results.append((nil, text)) }
            }
        }
        let asked = try attachmentRequest(request)
        let accept = request.headers[.accept] ?? ""
        if accept.contains("multipart/mixed"), !accept.contains("application/json") {
            return try multipart(results, database, asked)
        }
        var values: [JSONValue] = []
        for result in results {
            if var object = result.object {
                try inlineAttachments(&object, database, asked)
                values.append(.object(["ok": .object(object)]))
            } else if let missing = result.missing {
                values.append(.object(["missing": .string(missing)]))
            }
        }
        var response = CouchResponse(.array(values))
        if accept.contains("multipart/") { response.setHeader("Content-Type", "application/json") }
        return response
    }

    /// `open_revs` as CouchDB's replicator asks for it (`multipart/mixed`): per revision a
    /// `multipart/related` part with its attachments following (those newer than `atts_since`),
    /// or a JSON part when none follow; a missing revision is a JSON part marked `error="true"`.
    private func multipart(_ results: [(object: JSONObject?, missing: String?)], _ database: Database,
                           _ asked: AttachmentRequest) throws(CouchError) -> CouchResponse {
        let boundary = Database.randomHex()
        var pieces = ResponsePieces(contentType: "multipart/mixed; boundary=\"\(boundary)\"")
        for result in results {
            pieces.append("--\(boundary)\r\n")
            if var object = result.object {
                if let related = relatedParts(object, database, asked, boundary: Database.randomHex(), always: true) {
                    pieces.append("Content-Type: \(related.contentType)\r\n\r\n")
                    pieces.append(contentsOf: related)
                } else {
                    try inlineAttachments(&object, database, asked)
                    pieces.append("Content-Type: application/json\r\n\r\n")
                    pieces.append(object.serialized())
                }
            } else if let missing = result.missing {
                pieces.append("Content-Type: application/json; error=\"true\"\r\n\r\n")
                let body: JSONObject = ["missing": .string(missing)]
                pieces.append(body.serialized())
            }
            pieces.append("\r\n")
        }
        pieces.append("--\(boundary)--")
        return CouchResponse(status: .ok, body: .pieces(pieces))
    }

    // MARK: Local documents

    /// `GET`, `PUT` and `DELETE /{db}/_local/{id}`.
    func localDocument(_ request: CouchRequest, _ database: Database, id: String) async throws(CouchError) -> CouchResponse {
        switch request.method {
        case .get, .head:
            guard let object = try await database.localDocument(id) else { throw CouchError.missingDocument }
            var response = CouchResponse(.object(object))
            response.setETag(Self.opaqueTag(object.serialized()))
            return response
        case .put:
            guard var object = try request.jsonBody().objectValue else {
                throw CouchError(.badRequest, reason: "Document must be a JSON object")
            }
            // `_local` revisions are `0-N`, which is not a document revision: take it out first.
            var revision = object["_rev"]?.stringValue ?? request.query["rev"]
            object["_rev"] = nil
            if revision == nil, let header = request.headers[.ifMatch] { revision = header.trimmingQuotes() }
            let parsed = try DocumentRequestBody.parse(object)
            let newRevision = try await database.updateLocal(id, revision: revision, isDeleted: parsed.isDeleted, body: parsed.body)
            var response = CouchResponse(status: .created, .object(["ok": .bool(true), "id": .string(id), "rev": .string(newRevision)]))
            response.setETag(Self.opaqueTag(Array("\(id)\(newRevision)".utf8)))
            response.setHeader("Location", location(request, database.name, id))
            return response
        case .delete:
            let revision = request.query["rev"] ?? request.headers[.ifMatch]?.trimmingQuotes()
            let newRevision = try await database.updateLocal(id, revision: revision, isDeleted: true, body: [:])
            var response = CouchResponse(.object(["ok": .bool(true), "id": .string(id), "rev": .string(newRevision)]))
            response.setETag(Self.opaqueTag(Array("\(id)\(newRevision)".utf8)))
            return response
        default:
            try allow(request, [.get, .head, .put, .delete])
            return .ok()
        }
    }

    /// An ETag value derived from `bytes`, in CouchDB's 25-character style.
    static func opaqueTag(_ bytes: [UInt8]) -> String {
        let digest = Insecure.MD5.hash(data: bytes)
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        var value = digest.reduce(into: [UInt8]()) { $0.append($1) }
        var output: [UInt8] = []
        for _ in 0..<25 {
            var remainder = 0
            for index in value.indices {
                let current = remainder * 256 + Int(value[index])
                value[index] = UInt8(current / 36)
                remainder = current % 36
            }
            output.append(alphabet[remainder])
        }
        return String(decoding: output.reversed(), as: UTF8.self)
    }
}

extension String {
    /// Without surrounding double quotes (ETag form).
    func trimmingQuotes() -> String {
        var text = Substring(self)
        if text.hasPrefix("\"") { text = text.dropFirst() }
        if text.hasSuffix("\"") { text = text.dropLast() }
        return String(text)
    }
}

extension CouchResponder {
    /// The revision a request for one document names: `?rev=` (with `latest=true`, its newest
    /// leaf) or else the winner. A deleted document asked for without `?rev=` is CouchDB's 404
    /// `deleted`; one that never existed, 404 `missing`.
    func requestedRevision(_ request: CouchRequest, of entry: DocumentEntry) throws(CouchError) -> Revision {
        guard let winner = entry.winner else { throw CouchError.missingDocument }
        guard let text = request.query["rev"] else {
            if entry.isDeleted { throw CouchError.deletedDocument }
            return winner
        }
        guard let requested = Revision(text) else { throw CouchError.invalidRevisionFormat }
        if try request.flag("latest"), let latest = entry.tree.leaves(descendingFrom: requested).max() {
            return latest
        }
        return requested
    }
}
