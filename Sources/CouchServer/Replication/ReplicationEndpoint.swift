import CouchClient
import JSONText

/// One side of a `_replicate`: what the replicator needs of a database, wherever it is.
protocol ReplicationEndpoint: Sendable {
    /// The changes after `since` (`nil` from the start), every leaf of each document.
    func changes(since: JSONValue?, limit: Int) async throws -> (rows: [(id: String, revisions: [String])], lastSequence: JSONValue, pending: Int)
    /// Of `revisions` (by document id), those this side lacks.
    func missingRevisions(_ revisions: [String: [String]]) async throws -> [String: [String]]
    /// The asked revisions with `_revisions` and their attachments' bytes inline, as
    /// `GET ?revs=true&attachments=true` shows them.
    func documents(_ requests: [(id: String, revision: String)]) async throws -> [JSONObject]
    /// Stores replicated revisions as given (`new_edits: false`); returns how many failed.
    func write(_ documents: [JSONObject]) async throws -> Int
}

/// A database of this server, used directly.
struct LocalReplicationEndpoint: ReplicationEndpoint {
    let database: Database
    let maximumDocumentSize: Int

    func changes(since: JSONValue?, limit: Int) async throws -> (rows: [(id: String, revisions: [String])], lastSequence: JSONValue, pending: Int) {
        var start = 0
        if let token = since?.stringValue { start = await database.parseSequence(token) ?? 0 }
        let page = try await database.changes(since: start, limit: limit, descending: false, includes: { _ in true })
        let rows = page.rows.map { change in (change.entry.id, change.entry.tree.sortedLeaves.map(\.description)) }
        return (rows, .string(database.sequenceToken(page.lastSequence)), page.pending)
    }

    func missingRevisions(_ revisions: [String: [String]]) async throws -> [String: [String]] {
        var missing: [String: [String]] = [:]
        for (id, list) in revisions {
            let entry = try await database.entry(id)
            let absent = list.filter { text in
                guard let revision = Revision(text), let entry else { return true }
                return !entry.tree.contains(revision)
            }
            if !absent.isEmpty { missing[id] = absent }
        }
        return missing
    }

    func documents(_ requests: [(id: String, revision: String)]) async throws -> [JSONObject] {
        var documents: [JSONObject] = []
        // The stored attachment records (with how each is stored), which the inlining reads.
        var options = Database.RenderOptions(revisions: true)
        options.keepsStoredAttachments = true
        for request in requests {
            guard let entry = try await database.entry(request.id), let revision = Revision(request.revision),
                  var object = try await database.render(entry, revision: revision, options: options)
            else { continue }
            var asked = CouchResponder.AttachmentRequest()
            asked.includesData = true
            try CouchResponder.inlineAttachments(&object, database, asked)
            documents.append(object)
        }
        return documents
    }

    func write(_ documents: [JSONObject]) async throws -> Int {
        var edits: [DocumentEdit] = []
        var failures = 0
        for document in documents {
            do throws(CouchError) {
                let parsed = try DocumentRequestBody.parse(document)
                guard let id = parsed.id else { throw CouchError(.badRequest, reason: "a replicated document without _id") }
                edits.append(try DocumentRequestBody.edit(parsed, id: id, newEdits: false, maximumSize: maximumDocumentSize))
            } catch {
                failures += 1
            }
        }
        let outcomes = try await database.update(edits, newEdits: false)
        return failures + outcomes.filter { if case .failed = $0 { true } else { false } }.count
    }
}

/// A database on another (or this) server, through the project's CouchDB client.
struct RemoteReplicationEndpoint: ReplicationEndpoint {
    let database: CouchDatabase

    func changes(since: JSONValue?, limit: Int) async throws -> (rows: [(id: String, revisions: [String])], lastSequence: JSONValue, pending: Int) {
        let page = try await database.changes(ChangesRequest(since: since.map(CouchSequence.init), limit: limit, allRevisions: true))
        return (page.results.map { ($0.id, $0.revisions) }, page.lastSequence.value, page.pending ?? 0)
    }

    func missingRevisions(_ revisions: [String: [String]]) async throws -> [String: [String]] {
        guard !revisions.isEmpty else { return [:] }
        return try await database.revisionsDifference(revisions).mapValues(\.missing).filter { !$0.value.isEmpty }
    }

    func documents(_ requests: [(id: String, revision: String)]) async throws -> [JSONObject] {
        let results = try await database.bulkGet(requests.map { BulkGetRequest(id: $0.id, revision: $0.revision) }, revisions: true, attachments: true)
        return results.compactMap { if case .found(let document) = $0 { document } else { nil } }
    }

    func write(_ documents: [JSONObject]) async throws -> Int {
        guard !documents.isEmpty else { return 0 }
        return try await database.bulkDocuments(documents, newEdits: false).filter { $0.error != nil }.count
    }
}
