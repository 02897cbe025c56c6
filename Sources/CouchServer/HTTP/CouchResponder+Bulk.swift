import Hummingbird
import JSONText

extension CouchResponder {
    /// `POST /{db}/_bulk_docs`: per-document results; with `new_edits: false` (replication)
    /// revisions are stored as given and only failures are listed.
    func bulkDocuments(_ request: CouchRequest, _ database: Database) async throws(CouchError) -> CouchResponse {
        try request.requireJSONContentType()
        let body = try request.jsonObjectBody()
        guard let docsValue = body["docs"] else {
            throw CouchError(.badRequest, reason: "POST body must include `docs` parameter.")
        }
        guard let documents = docsValue.arrayValue else {
            throw CouchError(.badRequest, reason: "`docs` parameter must be an array.")
        }
        let newEdits = body["new_edits"]?.boolValue ?? true
        enum Slot { case edit(Int), local(id: String, result: JSONValue), failed(id: String?, CouchError) }
        var slots: [Slot] = []
        var edits: [DocumentEdit] = []
        for document in documents {
            guard let object = document.objectValue else {
                slots.append(.failed(id: nil, CouchError(.badRequest, reason: "Document must be a JSON object")))
                continue
            }
            let declaredID = object["_id"]?.stringValue
            do throws(CouchError) {
                if let localID = declaredID, localID.hasPrefix("_local/") {
                    var object = object
                    let localRevision = object["_rev"]?.stringValue
                    object["_rev"] = nil
                    let parsed = try DocumentRequestBody.parse(object)
                    let revision = try await database.updateLocal(localID, revision: localRevision, isDeleted: parsed.isDeleted, body: parsed.body)
                    slots.append(.local(id: localID, result: .object(["ok": .bool(true), "id": .string(localID), "rev": .string(revision)])))
                    continue
                }
                let parsed = try DocumentRequestBody.parse(object)
                let id = parsed.id ?? (newEdits ? Database.randomHex() : "")
                if id.hasPrefix("_local/") {
                    let revision = try await database.updateLocal(id, revision: nil,
                                                                  isDeleted: parsed.isDeleted, body: parsed.body)
                    slots.append(.local(id: id, result: .object(["ok": .bool(true), "id": .string(id), "rev": .string(revision)])))
                    continue
                }
                let edit = try DocumentRequestBody.edit(parsed, id: id, newEdits: newEdits, maximumSize: configuration.maximumDocumentSize)
                slots.append(.edit(edits.count))
                edits.append(edit)
            } catch {
                slots.append(.failed(id: declaredID, error))
            }
        }
        let outcomes = try await database.update(edits, newEdits: newEdits)
        var results: [JSONValue] = []
        for slot in slots {
            switch slot {
            case .edit(let index):
                switch outcomes[index] {
                case .saved(let id, let revision):
                    if newEdits { results.append(.object(["ok": .bool(true), "id": .string(id), "rev": .string(revision.description)])) }
                case .alreadyPresent:
                    continue
                case .failed(let id, let error):
                    results.append(Self.failure(id: id, error))
                }
            case .local(_, let result):
                if newEdits { results.append(result) }
            case .failed(let id, let error):
                results.append(Self.failure(id: id, error))
            }
        }
        return CouchResponse(status: .created, .array(results))
    }

    private static func failure(id: String?, _ error: CouchError) -> JSONValue {
        .object(["id": id.map(JSONValue.string) ?? .null, "error": .string(error.code.name), "reason": .string(error.reason)])
    }

    /// `POST /{db}/_revs_diff`: which of the given revisions the database lacks.
    func revisionsDifference(_ request: CouchRequest, _ database: Database) async throws(CouchError) -> CouchResponse {
        try request.requireJSONContentType()
        let body = try request.jsonObjectBody()
        var result = JSONObject()
        for member in body.members {
            guard let list = member.value.arrayValue else {
                throw CouchError(.badRequest, reason: "Revisions for \(member.key) must be a list")
            }
            let entry = try await database.entry(member.key)
            var missing: [String] = []
            var highestMissing = 0
            for item in list {
                guard let text = item.stringValue else { throw CouchError.invalidRevisionFormat }
                let revision = Revision(text)
                if let revision, entry?.tree.contains(revision) == true { continue }
                if !missing.contains(text) { missing.append(text) }
                highestMissing = max(highestMissing, revision?.generation ?? 0)
            }
            guard !missing.isEmpty else { continue }
            var row: JSONObject = ["missing": .array(missing.map(JSONValue.string))]
            let ancestors = (entry?.tree.leaves ?? []).filter { $0.generation < highestMissing }.sorted()
            if !ancestors.isEmpty { row["possible_ancestors"] = .array(ancestors.map { .string($0.description) }) }
            result.append(member.key, .object(row))
        }
        return CouchResponse(.object(result))
    }

    /// `POST /{db}/_bulk_get`: documents at given revisions (`revs`, `latest`, `attachments`),
    /// as JSON or, for a client that accepts only `multipart/mixed`, as CouchDB's multipart.
    func bulkGet(_ request: CouchRequest, _ database: Database) async throws(CouchError) -> CouchResponse {
        try request.requireJSONContentType()
        let body = try request.jsonObjectBody()
        guard let requests = body["docs"]?.arrayValue else {
            throw CouchError(.badRequest, reason: "Missing JSON list of 'docs'.")
        }
        var options = try renderOptions(request)
        options.revisions = try request.flag("revs")
        options.keepsStoredAttachments = true
        let latest = try request.flag("latest")
        let asked = try attachmentRequest(request)
        var results: [(id: String?, docs: [BulkGetResult])] = []
        for item in requests {
            guard let id = item["id"]?.stringValue else {
                let error = Self.bulkGetError(id: nil, revision: item["rev"]?.stringValue, .init(.badRequest, reason: "document id missed"))
                results.append((nil, [.error(error)]))
                continue
            }
            let revisionText = item["rev"]?.stringValue
            var docs: [BulkGetResult] = []
            if let entry = try await database.entry(id), let winner = entry.winner {
                if let revisionText {
                    if let revision = Revision(revisionText) {
                        let targets = latest ? entry.tree.leaves(descendingFrom: revision) : [revision]
                        for target in targets {
                            if let object = try await database.render(entry, revision: target, options: options) {
                                docs.append(.ok(object))
                            }
                        }
                    }
                    if docs.isEmpty { docs.append(.error(Self.bulkGetError(id: id, revision: revisionText, .missingDocument))) }
                } else if entry.isDeleted {
                    docs.append(.error(Self.bulkGetError(id: id, revision: "undefined", .deletedDocument)))
                } else if let object = try await database.render(entry, revision: winner, options: options) {
                    docs.append(.ok(object))
                } else {
                    docs.append(.error(Self.bulkGetError(id: id, revision: "undefined", .missingDocument)))
                }
            } else {
                docs.append(.error(Self.bulkGetError(id: id, revision: revisionText ?? "undefined", .missingDocument)))
            }
            results.append((id, docs))
        }
        let accept = request.headers[.accept] ?? ""
        if accept.contains("multipart/mixed"), !accept.contains("application/json") {
            return try bulkGetMultipart(results, database, asked)
        }
        var rows: [JSONValue] = []
        for (id, docs) in results {
            var values: [JSONValue] = []
            for doc in docs {
                switch doc {
                case .ok(var object):
                    try inlineAttachments(&object, database, asked)
                    values.append(.object(["ok": .object(object)]))
                case .error(let error):
                    values.append(error)
                }
            }
            rows.append(.object(["id": id.map(JSONValue.string) ?? .null, "docs": .array(values)]))
        }
        return CouchResponse(.object(["results": .array(rows)]))
    }

    enum BulkGetResult {
        case ok(JSONObject)
        case error(JSONValue)
    }

    /// `_bulk_get` as CouchDB writes it for `Accept: multipart/mixed`: a boundary starting with
    /// `--`, per revision a part with `X-Doc-Id` and `X-Rev-Id` holding `multipart/related`
    /// (attachments following) or JSON; errors as JSON parts marked `error="true"`.
    private func bulkGetMultipart(_ results: [(id: String?, docs: [BulkGetResult])], _ database: Database,
                                  _ asked: AttachmentRequest) throws(CouchError) -> CouchResponse {
        let boundary = "--" + Database.randomHex()
        var pieces = ResponsePieces(contentType: "multipart/mixed; boundary=\"\(boundary)\"")
        pieces.append("\r\n")
        for (id, docs) in results {
            for doc in docs {
                pieces.append("--\(boundary)\r\n")
                switch doc {
                case .ok(var object):
                    pieces.append("X-Doc-Id: \(id ?? "")\r\nX-Rev-Id: \(object["_rev"]?.stringValue ?? "")\r\n")
                    if asked.includesData || asked.sinceGeneration != nil,
                       let related = relatedParts(object, database, asked, boundary: "--" + Database.randomHex(), always: false) {
                        let inner = related.contentType.replacingOccurrences(of: "\"", with: "")
                        pieces.append("Content-Type: \(inner)\r\n\r\n")
                        pieces.append(contentsOf: related)
                    } else {
                        try inlineAttachments(&object, database, asked)
                        pieces.append("Content-Type: application/json\r\n\r\n")
                        pieces.append(object.serialized())
                    }
                case .error(let error):
                    pieces.append("X-Doc-Id: \(id ?? "")\r\nContent-Type: application/json; error=\"true\"\r\n\r\n")
                    pieces.append(error.serialized())
                }
                pieces.append("\r\n")
            }
        }
        pieces.append("--\(boundary)--\r\n")
        return CouchResponse(status: .ok, body: .pieces(pieces))
    }

    private static func bulkGetError(id: String?, revision: String?, _ error: CouchError) -> JSONValue {
        .object(["error": .object([
            "id": id.map(JSONValue.string) ?? .null, "rev": revision.map(JSONValue.string) ?? .null,
            "error": .string(error.code.name), "reason": .string(error.reason),
        ])])
    }
}
