import HTTPServerSupport
import Hummingbird
import JSONText

extension CouchResponder {
    /// `GET`/`PUT /{db}/_revs_limit`: a bare JSON number.
    func revisionsLimit(_ request: CouchRequest, _ database: Database) async throws(CouchError) -> CouchResponse {
        try allow(request, [.get, .head, .put])
        guard request.method == .put else { return CouchResponse(.integer(await database.revisionsLimit)) }
        guard let limit = try request.jsonBody().intValue, limit > 0 else {
            throw CouchError(.badRequest, reason: "`revs_limit` must be a positive integer")
        }
        try await database.setRevisionsLimit(limit)
        return .ok()
    }

    /// `GET`/`PUT /{db}/_purged_infos_limit`: a bare JSON number.
    func purgedInfosLimit(_ request: CouchRequest, _ database: Database) async throws(CouchError) -> CouchResponse {
        try allow(request, [.get, .head, .put])
        guard request.method == .put else { return CouchResponse(.integer(await database.purgedInfosLimit)) }
        guard let limit = try request.jsonBody().intValue, limit > 0 else {
            throw CouchError(.badRequest, reason: "`purged_infos_limit` must be a positive integer")
        }
        try await database.setPurgedInfosLimit(limit)
        return .ok()
    }

    /// `GET`/`PUT /{db}/_security`: the object is stored as sent (`admins` and `members`, each
    /// with `names` and `roles` lists). The server has one admin and no users, so it only keeps it.
    func security(_ request: CouchRequest, _ database: Database) async throws(CouchError) -> CouchResponse {
        try allow(request, [.get, .head, .put])
        guard request.method == .put else { return CouchResponse(.object(await database.security)) }
        let object = try request.jsonObjectBody()
        for section in ["admins", "members"] {
            guard let value = object[section] else { continue }
            guard let members = value.objectValue else {
                throw CouchError(.badRequest, reason: "Security object member \(section) must be a JSON object")
            }
            for list in ["names", "roles"] {
                if let entries = members[list], entries.arrayValue?.allSatisfy({ $0.stringValue != nil }) != true {
                    throw CouchError(.badRequest, reason: "\(section).\(list) must be a JSON list of strings")
                }
            }
        }
        try await database.setSecurity(object)
        return .ok()
    }

    /// `POST /{db}/_compact`: CouchDB's 202, after removing the attachment files no stored
    /// revision refers to. The journal itself is not rewritten: every answer is served from it.
    func compact(_ request: CouchRequest, _ database: Database) async throws(CouchError) -> CouchResponse {
        try allow(request, [.post])
        try request.requireJSONContentType()
        _ = try await database.collectUnreferencedAttachments()
        return .ok(status: .accepted)
    }

    /// `POST /{db}/_purge` `{"id": ["rev", …]}`: 201 `{purge_seq: null, purged: {id: [revs]}}`,
    /// each list holding the revisions that were leaves and are now gone.
    func purge(_ request: CouchRequest, _ database: Database) async throws(CouchError) -> CouchResponse {
        try allow(request, [.post])
        try request.requireJSONContentType()
        let body = try request.jsonObjectBody()
        var requests: [(id: String, revisions: [Revision])] = []
        for member in body.members {
            guard let list = member.value.arrayValue else {
                throw CouchError(.badRequest, reason: "Expected a list of revisions for document \(member.key)")
            }
            var revisions: [Revision] = []
            for item in list {
                guard let text = item.stringValue, let revision = Revision(text) else { throw CouchError.invalidRevisionFormat }
                revisions.append(revision)
            }
            requests.append((member.key, revisions))
        }
        let results = try await database.purge(requests)
        var purged = JSONObject()
        for result in results {
            purged[result.id] = .array(result.revisions.map { .string($0.description) })
        }
        return CouchResponse(status: .created, .object(["purge_seq": .null, "purged": .object(purged)]))
    }

    /// `POST /_dbs_info` `{"keys": [names]}`: `{key, info}` per database, `{key, error: not_found}`
    /// for one that does not exist.
    func databasesInformation(_ request: CouchRequest) async throws(CouchError) -> CouchResponse {
        try allow(request, [.post])
        try request.requireJSONContentType()
        guard let keys = try request.jsonObjectBody()["keys"]?.arrayValue else {
            throw CouchError(.badRequest, reason: "`keys` member must exist.")
        }
        guard keys.count <= 100 else {
            throw CouchError(.badRequest, reason: "`keys` member must be less than or equal to 100")
        }
        var rows: [JSONValue] = []
        for key in keys {
            if let name = key.stringValue, let database = try? await catalog.database(named: name) {
                rows.append(.object(["key": key, "info": try await databaseInformation(database)]))
            } else {
                rows.append(.object(["key": key, "error": .string("not_found")]))
            }
        }
        return CouchResponse(.array(rows))
    }

    /// `GET /{db}/_local_docs`: the `_local` documents (`descending`, `skip`, `limit`,
    /// `include_docs`); CouchDB counts neither `total_rows` nor `offset` here.
    func localDocuments(_ request: CouchRequest, _ database: Database) async throws(CouchError) -> CouchResponse {
        try allow(request, [.get, .head, .post])
        var locals = try await database.localDocumentRevisions()
        if try request.flag("descending") { locals.reverse() }
        let skip = try request.integer("skip") ?? 0
        let limit = try request.integer("limit") ?? Int.max
        let includeDocs = try request.flag("include_docs")
        var rows: [JSONValue] = []
        for local in locals.dropFirst(skip).prefix(limit) {
            var row: JSONObject = [
                "id": .string(local.id), "key": .string(local.id),
                "value": .object(["rev": .string("0-\(local.revision)")]),
            ]
            if includeDocs { row["doc"] = try await database.localDocument(local.id).map(JSONValue.object) ?? .null }
            rows.append(.object(row))
        }
        return CouchResponse(.object(["total_rows": .null, "offset": .null, "rows": .array(rows)]))
    }

    /// `COPY /{db}/{docid}` with `Destination: other` (or `other?rev=R` to overwrite): the
    /// source's winning revision (or `?rev=`) written under the new id.
    func copyDocument(_ request: CouchRequest, _ database: Database, id: String) async throws(CouchError) -> CouchResponse {
        guard let destination = request.header("Destination"), !destination.isEmpty else {
            throw CouchError(.badRequest, reason: "Destination header is mandatory for COPY.")
        }
        var targetText = Substring(destination)
        var targetRevision: Revision?
        if let question = destination.firstIndex(of: "?") {
            targetText = destination[..<question]
            for pair in destination[destination.index(after: question)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0] == "rev" else { continue }
                guard let revision = Revision(String(parts[1])) else { throw CouchError.invalidRevisionFormat }
                targetRevision = revision
            }
        }
        guard let targetID = PercentEncoding.decode(targetText), !targetID.isEmpty else {
            throw CouchError(.badRequest, reason: "Destination header is mandatory for COPY.")
        }
        guard let entry = try await database.entry(id), entry.winner != nil else { throw CouchError.missingDocument }
        let revision = try requestedRevision(request, of: entry)
        guard let source = try await database.render(entry, revision: revision) else { throw CouchError.missingDocument }
        var body = JSONObject()
        for member in source.members where !member.key.hasPrefix("_") || member.key == "_attachments" {
            body.members.append(member)
        }
        try DocumentRequestBody.validate(id: targetID)
        var edit = DocumentEdit(id: targetID, baseRevision: targetRevision, body: body)
        // The copy's attachment stubs name the source's files, which the copy shares.
        edit.attachmentOrigin = .init(id: id, revision: revision)
        let saved = try await save(edit, in: database)
        var response = CouchResponse(status: .created, .object(["ok": .bool(true), "id": .string(targetID), "rev": .string(saved.description)]))
        response.setETag(saved.description)
        response.setHeader("Location", location(request, database.name, targetID))
        return response
    }
}
