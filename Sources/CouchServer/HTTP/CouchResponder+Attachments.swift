import ExtrasBase64
import Hummingbird
import JSONText

extension CouchResponder {
    /// Whether a request is a standalone attachment `PUT` (`/{db}/{doc}/{name}` or
    /// `/{db}/_design/{doc}/{name}`), whose body is streamed to a file rather than collected.
    static func isAttachmentUpload(_ method: HTTPRequest.Method, _ segments: [String]) -> Bool {
        guard method == .put, segments.count >= 3, !segments[0].hasPrefix("_") else { return false }
        if segments[1] == "_design" { return segments.count >= 4 }
        return !segments[1].hasPrefix("_")
    }

    /// `GET`, `HEAD`, `PUT` and `DELETE /{db}/{docid}/{attachment}`.
    ///
    /// Answers, errors included, are JSON whatever the client accepts, as CouchDB's are here.
    func attachment(_ request: CouchRequest, _ database: Database, id: String, name: String) async -> CouchResponse {
        var response: CouchResponse
        do throws(CouchError) {
            switch request.method {
            case .get, .head:
                response = try await readAttachment(request, database, id: id, name: name)
            case .put:
                response = try await writeAttachment(request, database, id: id, name: name)
            case .delete:
                response = try await deleteAttachment(request, database, id: id, name: name)
            default:
                try allow(request, [.get, .head, .put, .delete])
                response = .ok()
            }
        } catch {
            response = .error(error)
        }
        if case .json = response.body { response.setHeader("Content-Type", "application/json") }
        return response
    }

    static let missingAttachment = CouchError(.notFound, reason: "Document is missing attachment")

    private func readAttachment(_ request: CouchRequest, _ database: Database, id: String, name: String) async throws(CouchError) -> CouchResponse {
        guard let entry = try await database.entry(id), entry.winner != nil else { throw CouchError.missingDocument }
        let revision = try requestedRevision(request, of: entry)
        guard let object = try await database.render(entry, revision: revision, options: .init(keepsStoredAttachments: true))
        else { throw CouchError.missingDocument }
        guard let info = AttachmentInfo.all(in: object).first(where: { $0.name == name })?.info else {
            throw Self.missingAttachment
        }
        let tag = "\"\(info.digest.dropFirst("md5-".count))\""
        if request.headers[.ifNoneMatch] == tag {
            return CouchResponse(status: .notModified, body: .empty)
        }
        let path = database.attachments.path(forDigest: info.digest)
        var pieces = ResponsePieces(contentType: info.contentType)
        var response = CouchResponse(status: .ok, body: .empty)
        if info.isGzip, Self.acceptsGzip(request) {
            pieces.append(.file(path: path, length: info.encodedLength ?? 0))
            response.setHeader("Content-Encoding", "gzip")
        } else if info.isGzip {
            pieces.append(.inflatedFile(path: path, length: info.length))
        } else if let range = request.headers[.range], let (first, last) = Self.byteRange(range, length: info.length) {
            guard first <= last else {
                var refused = CouchResponse(status: .rangeNotSatisfiable, body: .empty)
                refused.setHeader("Content-Range", "bytes */\(info.length)")
                return refused
            }
            pieces.append(.fileSlice(path: path, offset: first, length: last - first + 1))
            response.status = .partialContent
            response.setHeader("Content-Range", "bytes \(first)-\(last)/\(info.length)")
        } else {
            pieces.append(.file(path: path, length: info.length))
        }
        response.body = .pieces(pieces)
        response.setHeader("ETag", tag)
        // CouchDB serves byte ranges of attachments it stores as sent, not of gzip-stored ones.
        response.setHeader("Accept-Ranges", info.isGzip ? "none" : "bytes")
        response.setHeader("Content-Security-Policy", "sandbox")
        return response
    }

    /// The one range of `Range: bytes=…` (`a-b`, `a-`, `-n`) as first and last offsets, clamped
    /// to `length`; first above last when it cannot be satisfied. `nil` for what is not one byte
    /// range (several ranges, other units): then the whole attachment is sent.
    static func byteRange(_ header: String, length: Int) -> (Int, Int)? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: " ")
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[0].isEmpty {
            guard let suffix = Int(parts[1]), suffix >= 0 else { return nil }
            return suffix == 0 ? (1, 0) : (max(0, length - suffix), length - 1)
        }
        guard let first = Int(parts[0]), first >= 0 else { return nil }
        let last = parts[1].isEmpty ? length - 1 : Int(parts[1])
        guard let last, last >= first else { return last == nil ? nil : (1, 0) }
        return first >= length ? (1, 0) : (first, min(last, length - 1))
    }

    private static func acceptsGzip(_ request: CouchRequest) -> Bool {
        guard let accepted = request.headers[.acceptEncoding] else { return false }
        return accepted.split(separator: ",").contains { coding in
            let parts = coding.split(separator: ";")
            guard parts.first.map({ $0.trimmingCharacters(in: " ") }) == "gzip" else { return false }
            return !parts.dropFirst().contains { $0.trimmingCharacters(in: " ").replacingOccurrences(of: " ", with: "") == "q=0" }
        }
    }

    /// The body of the revision an attachment edit starts from (its attachments as stubs), and
    /// the revision; an empty body for a document that does not exist or is deleted.
    private func editBase(_ request: CouchRequest, _ database: Database, id: String,
                          mustExist: Bool) async throws(CouchError) -> (body: JSONObject, revision: Revision?) {
        let revision = request.query["rev"] ?? request.headers[.ifMatch]?.trimmingQuotes()
        let entry = try await database.entry(id)
        guard let revision else {
            if let entry, !entry.isDeleted { throw CouchError.conflictingUpdate }
            if mustExist { throw CouchError.conflictingUpdate }
            return ([:], nil)
        }
        guard let parsed = Revision(revision) else { throw CouchError.invalidRevisionFormat }
        guard let entry else { throw mustExist ? CouchError.missingDocument : CouchError.conflictingUpdate }
        guard entry.tree.leaves.contains(parsed),
              var object = try await database.render(entry, revision: parsed) else { throw CouchError.conflictingUpdate }
        object["_id"] = nil
        object["_rev"] = nil
        object["_deleted"] = nil
        return (object, parsed)
    }

    private func writeAttachment(_ request: CouchRequest, _ database: Database, id: String, name: String) async throws(CouchError) -> CouchResponse {
        try DocumentRequestBody.validate(id: id)
        let (base, revision) = try await editBase(request, database, id: id, mustExist: false)
        let contentType = request.headers[.contentType] ?? "application/octet-stream"
        let staged = try await receive(request, into: database.attachments, contentType: contentType)
        var attachments: JSONObject = [name: .object(["content_type": .string(contentType), "follows": .bool(true)])]
        for member in base["_attachments"]?.objectValue?.members ?? [] where member.key != name {
            attachments.members.append(member)
        }
        var body = base
        body["_attachments"] = .object(attachments)
        let edit = DocumentEdit(id: id, baseRevision: revision, body: body, stagedAttachments: [name: staged])
        defer { database.attachments.discardUncommitted([staged]) }
        let saved = try await saveAttachmentEdit(edit, in: database)
        var response = CouchResponse(status: .created, .object(["ok": .bool(true), "id": .string(id), "rev": .string(saved.description)]))
        response.setHeader("Location", location(request, database.name, id, name))
        return response
    }

    private func deleteAttachment(_ request: CouchRequest, _ database: Database, id: String, name: String) async throws(CouchError) -> CouchResponse {
        let (base, revision) = try await editBase(request, database, id: id, mustExist: true)
        var attachments = base["_attachments"]?.objectValue ?? [:]
        guard attachments[name] != nil else { throw Self.missingAttachment }
        attachments[name] = nil
        var body = base
        body["_attachments"] = attachments.members.isEmpty ? nil : .object(attachments)
        let saved = try await saveAttachmentEdit(DocumentEdit(id: id, baseRevision: revision, body: body), in: database)
        return CouchResponse(.object(["ok": .bool(true), "id": .string(id), "rev": .string(saved.description)]))
    }

    private func saveAttachmentEdit(_ edit: DocumentEdit, in database: Database) async throws(CouchError) -> Revision {
        switch try await database.update([edit]).first {
        case .saved(_, let revision): return revision
        case .failed(_, let error): throw error
        case .alreadyPresent, nil: throw CouchError.conflictingUpdate
        }
    }

    /// Streams the request body to a temporary attachment file (gzip for compressible types),
    /// computing its digest on the way.
    private func receive(_ request: CouchRequest, into store: AttachmentStore, contentType: String) async throws(CouchError) -> StagedAttachment {
        let writer = try AttachmentWriter(store: store, compress: AttachmentInfo.isCompressible(contentType))
        if let stream = request.bodyStream {
            do {
                for try await buffer in stream {
                    try writer.append(Array(buffer.readableBytesView))
                }
            } catch let error as CouchError {
                throw error
            } catch {
                throw CouchError(.badRequest, reason: "the request body could not be read: \(error)")
            }
        } else {
            try writer.append(request.body)
        }
        return try writer.finish()
    }

    // MARK: Attachments in documents

    /// What a document request asks of attachments: inline data (`attachments=true`), only
    /// those newer than `atts_since`, encoding details.
    struct AttachmentRequest: Sendable {
        var includesData = false
        /// The highest generation among `atts_since` revisions: only attachments with a higher
        /// `revpos` carry bytes.
        var sinceGeneration: Int?
        var encodingInfo = false

        /// Whether the bytes of `info` go with the document.
        func sendsBytes(_ info: AttachmentInfo, always: Bool = false) -> Bool {
            if let sinceGeneration { return info.revisionPosition > sinceGeneration }
            return includesData || always
        }
    }

    func attachmentRequest(_ request: CouchRequest) throws(CouchError) -> AttachmentRequest {
        var result = AttachmentRequest()
        result.includesData = try request.flag("attachments")
        result.encodingInfo = try request.flag("att_encoding_info")
        if let since = try request.json("atts_since") {
            guard let list = since.arrayValue else { throw CouchError(.badRequest, reason: "atts_since value must be array of revs.") }
            var highest = 0
            for item in list {
                guard let text = item.stringValue, let revision = Revision(text) else { throw CouchError.invalidRevisionFormat }
                highest = max(highest, revision.generation)
            }
            result.sinceGeneration = highest
        }
        return result
    }

    /// Renders the stored `_attachments` of `object` as JSON: stubs, or base64 `data` where
    /// `asked` wants the bytes.
    func inlineAttachments(_ object: inout JSONObject, _ database: Database, _ asked: AttachmentRequest) throws(CouchError) {
        try Self.inlineAttachments(&object, database, asked)
    }

    /// ``inlineAttachments(_:_:_:)`` for callers without a responder (`_replicate`'s local side).
    static func inlineAttachments(_ object: inout JSONObject, _ database: Database, _ asked: AttachmentRequest) throws(CouchError) {
        let attachments = AttachmentInfo.all(in: object)
        guard !attachments.isEmpty else { return }
        var rendered = JSONObject()
        for (name, info) in attachments {
            if asked.sendsBytes(info) {
                let bytes = try Self.identityBytes(of: info, in: database.attachments)
                rendered[name] = info.rendered(.data(Base64.encodeToString(bytes: bytes)), encodingInfo: asked.encodingInfo)
            } else {
                rendered[name] = info.rendered(.stub, encodingInfo: asked.encodingInfo)
            }
        }
        object["_attachments"] = .object(rendered)
    }

    /// The attachment's bytes as sent (decompressed when stored gzipped).
    static func identityBytes(of info: AttachmentInfo, in store: AttachmentStore) throws(CouchError) -> [UInt8] {
        let stored = try store.read(digest: info.digest)
        guard info.isGzip else { return stored }
        return try GzipStream.decompress(stored)
    }

    /// A document as a `multipart/related` body: its JSON with `follows: true` for the
    /// attachments whose bytes come next, then one part per such attachment (sent as stored,
    /// with `Content-Encoding: gzip` for gzip-stored ones), as CouchDB writes it. `nil` when no
    /// attachment follows.
    func relatedParts(_ object: JSONObject, _ database: Database, _ asked: AttachmentRequest, boundary: String,
                      always: Bool) -> ResponsePieces? {
        let attachments = AttachmentInfo.all(in: object)
        let following = attachments.filter { asked.sendsBytes($0.info, always: always) }
        guard !following.isEmpty else { return nil }
        var document = object
        var rendered = JSONObject()
        for (name, info) in attachments {
            let follows = following.contains { $0.name == name }
            // In the JSON part of a multipart answer CouchDB shows the encoding of stubs too.
            rendered[name] = info.rendered(follows ? .follows : .stub, encodingInfo: true)
        }
        document["_attachments"] = .object(rendered)
        var pieces = ResponsePieces(contentType: "multipart/related; boundary=\"\(boundary)\"")
        pieces.append("--\(boundary)\r\nContent-Type: application/json\r\n\r\n")
        pieces.append(document.serialized())
        for (name, info) in following {
            var headers = "\r\n--\(boundary)\r\nContent-Disposition: attachment; filename=\"\(Self.quotedFilename(name))\"\r\n"
            headers += "Content-Type: \(info.contentType)\r\nContent-Length: \(info.encodedLength ?? info.length)\r\n"
            if info.isGzip { headers += "Content-Encoding: gzip\r\n" }
            pieces.append(headers + "\r\n")
            pieces.append(.file(path: database.attachments.path(forDigest: info.digest), length: info.encodedLength ?? info.length))
        }
        pieces.append("\r\n--\(boundary)--")
        return pieces
    }

    private static func quotedFilename(_ name: String) -> String {
        name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}

extension CouchResponder {
    /// Whether a document `PUT` sends its attachments as `multipart/related` (read as it arrives).
    static func isMultipartDocumentUpload(_ method: HTTPRequest.Method, _ segments: [String], contentType: String?) -> Bool {
        guard method == .put, segments.count >= 2, let contentType else { return false }
        return MultipartRelatedReader.boundary(ofContentType: contentType) != nil
    }

    /// Reads a `multipart/related` document `PUT` as it arrives: the JSON part, then one part
    /// per attachment marked `follows: true` (matched by `Content-Disposition` filename, else in
    /// order), each streamed to a temporary attachment file. Parts the replicator sends with
    /// `encoding: gzip` are stored as sent, so their digests stay the source's.
    func readMultipartDocument(_ request: CouchRequest, into store: AttachmentStore,
                               boundary: String) async throws(CouchError) -> (JSONObject, [String: StagedAttachment]) {
        guard let stream = request.bodyStream else { throw CouchError(.badRequest, reason: "multipart body missing") }
        var reader = MultipartRelatedReader(boundary: boundary)
        var partIndex = -1
        var json: [UInt8] = []
        var document: JSONObject?
        var following: [(name: String, info: JSONValue)] = []
        var writer: AttachmentWriter?
        var current: (name: String, declaredLength: Int?)?
        var staged: [String: StagedAttachment] = [:]
        let maximumSize = configuration.maximumRequestSize

        func handle(_ event: MultipartRelatedReader.Event) throws(CouchError) {
            switch event {
            case .partStarted(let headers):
                partIndex += 1
                guard partIndex > 0 else { return }
                guard document != nil else { throw CouchError(.badRequest, reason: "multipart: the JSON part must come first") }
                var name: String?
                if let disposition = headers["content-disposition"], let range = disposition.range(of: "filename=\"") {
                    name = String(disposition[range.upperBound...].prefix { $0 != "\"" })
                }
                if name == nil, partIndex - 1 < following.count { name = following[partIndex - 1].name }
                guard let name, let info = following.first(where: { $0.name == name })?.info else {
                    throw CouchError(.badRequest, reason: "multipart: a part matches no attachment marked follows")
                }
                let isEncoded = info["encoding"]?.stringValue == "gzip"
                let contentType = info["content_type"]?.stringValue ?? headers["content-type"] ?? "application/octet-stream"
                writer = try AttachmentWriter(store: store, compress: !isEncoded && AttachmentInfo.isCompressible(contentType))
                current = (name, isEncoded ? info["length"]?.intValue : nil)
            case .bytes(let bytes):
                if partIndex == 0 {
                    json.append(contentsOf: bytes)
                    if json.count > maximumSize { throw CouchError(.requestTooLarge, reason: "the request entity is too large") }
                } else {
                    try writer?.append(bytes)
                }
            case .partEnded:
                if partIndex == 0 {
                    guard let object = try? JSONValue(parsing: json, options: CouchRequest.jsonOptions).objectValue else {
                        throw CouchError(.badRequest, reason: "multipart: the first part must be a JSON object")
                    }
                    document = object
                    following = (object["_attachments"]?.objectValue?.members ?? [])
                        .filter { $0.value["follows"]?.boolValue == true }
                        .map { ($0.key, $0.value) }
                } else if let finished = writer, let (name, declaredLength) = current {
                    var result = try finished.finish()
                    if let declaredLength {
                        result.isGzip = true
                        result.length = declaredLength
                    }
                    staged[name] = result
                    writer = nil
                    current = nil
                }
            }
        }

        do {
            for try await buffer in stream {
                for event in try reader.feed(Array(buffer.readableBytesView)) { try handle(event) }
            }
            guard reader.isFinished, let document else { throw CouchError(.badRequest, reason: "multipart body ends too soon") }
            for (name, _) in following where staged[name] == nil {
                throw CouchError(.badRequest, reason: "multipart: no part for attachment \(name)")
            }
            return (document, staged)
        } catch {
            store.discardUncommitted(staged.values)
            if let error = error as? CouchError { throw error }
            throw CouchError(.badRequest, reason: "the request body could not be read: \(error)")
        }
    }
}
