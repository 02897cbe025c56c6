import Hummingbird
import JSONText
import NIOCore

extension CouchResponder {
    /// What a `_changes` request asks for.
    private struct ChangesQuery: Sendable {
        var since: Int
        var limit: Int?
        var descending: Bool
        var includeDocs: Bool
        var allLeaves: Bool
        var options: Database.RenderOptions
        var documentIDs: Set<String>?
        var designOnly: Bool
        var selector: MangoSelector?
        var timeout: Duration
        var heartbeat: Duration?

        func includes(_ id: String) -> Bool {
            if designOnly, !id.hasPrefix("_design/") { return false }
            return documentIDs?.contains(id) ?? true
        }
    }

    /// `GET`/`POST /{db}/_changes`: `feed=normal|longpoll|continuous`, `since` (token or `now`),
    /// `limit`, `descending`, `include_docs`, `conflicts`, `style=all_docs`, `filter=_doc_ids|_design`,
    /// `timeout`, `heartbeat`.
    func changes(_ request: CouchRequest, _ database: Database) async throws(CouchError) -> CouchResponse {
        var body = JSONObject()
        if request.method == .post, !request.body.isEmpty {
            try request.requireJSONContentType()
            body = try request.jsonObjectBody()
        }
        let sinceText = request.query["since"] ?? "0"
        guard let since = await database.parseSequence(sinceText) else {
            throw CouchError(.badRequest, reason: "Malformed sequence supplied in 'since' parameter.")
        }
        var query = ChangesQuery(
            since: since, limit: try request.integer("limit"), descending: try request.flag("descending"),
            includeDocs: try request.flag("include_docs"), allLeaves: request.query["style"] == "all_docs",
            options: Database.RenderOptions(conflicts: try request.flag("conflicts")),
            documentIDs: nil, designOnly: false, timeout: .milliseconds(60_000), heartbeat: nil
        )
        switch request.query["filter"] {
        case nil:
            break
        case "_doc_ids":
            var list = body["doc_ids"]
            if list == nil { list = try request.json("doc_ids") }
            guard let ids = list?.arrayValue?.compactMap(\.stringValue) else {
                throw CouchError(.badRequest, reason: "`doc_ids` filter parameter is not a list of doc ids.")
            }
            query.documentIDs = Set(ids)
        case "_design":
            query.designOnly = true
        case "_selector":
            guard request.method == .post, let selector = body["selector"] else {
                throw CouchError(.badRequest, reason: "Selector must be specified in POST payload")
            }
            query.selector = try MangoSelector(parsing: selector)
        case let other?:
            let parts = other.split(separator: "/", maxSplits: 1)
            guard parts.count == 2 else {
                throw CouchError(.badRequest, reason: "`filter` must be of the form `designname/filtername`")
            }
            guard try await database.entry("_design/\(parts[0])")?.isDeleted == false else { throw CouchError.missingDocument }
            throw CouchError(.badRequest, reason: "filter '\(other)' is not supported: cardsync serve runs no design functions")
        }
        if let timeout = try request.integer("timeout") { query.timeout = .milliseconds(min(timeout, 60_000)) }
        if let heartbeat = request.query["heartbeat"] {
            if heartbeat == "true" {
                query.heartbeat = .milliseconds(60_000)
            } else if let milliseconds = Int(heartbeat), milliseconds > 0 {
                query.heartbeat = .milliseconds(milliseconds)
            } else {
                throw CouchError(.badRequest, reason: "Invalid heartbeat value")
            }
        }
        let feed = request.query["feed"] ?? "normal"
        switch feed {
        case "normal" where request.method == .head:
            let page = try await changesPage(database, query)
            var response = CouchResponse(.object(page.object))
            response.setETag(Self.opaqueTag(Array("\(database.uuid)\(page.lastSequence)\(request.target)".utf8)))
            return response
        case "normal":
            return try await streamedPage(database, query, target: request.target)
        case "longpoll":
            return longpoll(database, query)
        case "continuous":
            return continuous(database, query)
        default:
            throw CouchError(.badRequest, reason: "Supported feeds are normal, longpoll and continuous")
        }
    }

    private struct ChangesPage: Sendable {
        var rows: [JSONValue]
        var lastSequence: Int
        var pending: Int

        func object(database: Database) -> JSONObject {
            ["results": .array(rows), "last_seq": .string(database.sequenceToken(lastSequence)), "pending": .integer(pending)]
        }
    }

    private func changesPage(_ database: Database, _ query: ChangesQuery) async throws(CouchError) -> (object: JSONObject, lastSequence: Int, isEmpty: Bool) {
        let page = try await changeRows(database, query)
        return (page.object(database: database), page.lastSequence, page.rows.isEmpty)
    }

    private func changeRows(_ database: Database, _ query: ChangesQuery) async throws(CouchError) -> ChangesPage {
        let (changes, lastSequence, pending) = try await changeList(database, query)
        var rows: [JSONValue] = []
        rows.reserveCapacity(changes.count)
        for change in changes {
            if let row = try await changeRow(change, database, query) { rows.append(row) }
        }
        return ChangesPage(rows: rows, lastSequence: lastSequence, pending: pending)
    }

    /// The changes a query selects (documents not rendered yet), the sequence to resume from and
    /// how many changes remain after it.
    private func changeList(_ database: Database, _ query: ChangesQuery) async throws(CouchError)
        -> (changes: [Database.Change], lastSequence: Int, pending: Int)
    {
        let filter = query
        var selects: (@Sendable (JSONObject) -> Bool)?
        if let selector = query.selector {
            selects = { @Sendable object in selector.matches(object) }
        }
        let (changes, lastSequence, pending) = try await database.changes(
            since: query.descending ? 0 : query.since, limit: query.limit, descending: query.descending,
            includes: { filter.includes($0) },
            selects: selects
        )
        return (changes, lastSequence, pending)
    }

    /// The row of one change (its document rendered when the query includes documents); `nil`
    /// for a document without a winning revision.
    private func changeRow(_ change: Database.Change, _ database: Database, _ query: ChangesQuery) async throws(CouchError) -> JSONValue? {
        guard let (head, winner) = rowWithoutDocument(change, database, query) else { return nil }
        var row = head
        if query.includeDocs {
            row["doc"] = (try await database.render(change.entry, revision: winner, options: query.options)).map(JSONValue.object) ?? .null
        }
        return .object(row)
    }

    /// A change's row before its document (`seq`, `id`, `changes`, `deleted`), and the winning
    /// revision it shows; `nil` for a document without one.
    private func rowWithoutDocument(_ change: Database.Change, _ database: Database, _ query: ChangesQuery)
        -> (row: JSONObject, winner: Revision)?
    {
        let entry = change.entry
        guard let winner = entry.winner else { return nil }
        let revisions = query.allLeaves ? entry.tree.sortedLeaves : [winner]
        var row: JSONObject = [
            "seq": .string(database.sequenceToken(change.sequence)),
            "id": .string(entry.id),
            "changes": .array(revisions.map { .object(["rev": .string($0.description)]) }),
        ]
        if entry.isDeleted { row["deleted"] = .bool(true) }
        return (row, winner)
    }

    /// ``changeRow(_:_:_:)``'s JSON text (the same bytes) appended to `buffer`, from the row
    /// without its document and the revision it shows: the document is written by
    /// ``Database/renderedText(_:revision:options:)``, which copies a stored body as it is.
    private func appendChangeRow(_ row: JSONObject, winner: Revision, of change: Database.Change, _ database: Database,
                                 _ query: ChangesQuery, to buffer: inout [UInt8]) async throws(CouchError) {
        row.write(to: &buffer)
        guard query.includeDocs else { return }
        let document = try await database.renderedText(change.entry, revision: winner, options: query.options)
        // The row's closing brace gives way to its last member, the document.
        buffer.removeLast()
        buffer.append(contentsOf: #","doc":"#.utf8)
        if let document { buffer.append(contentsOf: document) } else { buffer.append(contentsOf: "null".utf8) }
        buffer.append(UInt8(ascii: "}"))
    }

    /// A `feed=normal` answer written row by row as each is rendered, in chunks of about 64 KiB,
    /// as CouchDB sends it (chunked, no `Content-Length`): the first rows of a large feed with
    /// documents reach the client at once instead of after the whole feed is built, and the
    /// server never holds the whole answer. The bytes are those of the whole answer serialized
    /// at once. The selection is made before the first byte (so the `ETag` and any error come
    /// first); a failure to read a document after that ends the answer early, which a client
    /// sees as a broken response and asks again.
    private func streamedPage(_ database: Database, _ query: ChangesQuery, target: String) async throws(CouchError) -> CouchResponse {
        let (changes, lastSequence, pending) = try await changeList(database, query)
        // The answer's frame is the empty page's own serialization, `{"results":[` … `],"last_seq":…}`,
        // cut at its empty array: the rows go in between.
        let frame = JSONValue.object(ChangesPage(rows: [], lastSequence: lastSequence, pending: pending).object(database: database)).serialized()
        let cut = frame.firstIndex(of: 0x5B)! + 1
        var response = CouchResponse(status: .ok, body: .stream { writer in
            let chunkSize = 64 << 10
            var buffer = Array(frame[..<cut])
            buffer.reserveCapacity(chunkSize + (chunkSize >> 2))
            var first = true
            for change in changes {
                guard let (row, winner) = rowWithoutDocument(change, database, query) else { continue }
                if !first { buffer.append(0x2C) }
                first = false
                try await appendChangeRow(row, winner: winner, of: change, database, query, to: &buffer)
                if buffer.count >= chunkSize {
                    try await writer.write(ByteBuffer(bytes: buffer))
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            buffer.append(contentsOf: frame[cut...])
            buffer.append(0x0A)
            try await writer.write(ByteBuffer(bytes: buffer))
        })
        response.setETag(Self.opaqueTag(Array("\(database.uuid)\(lastSequence)\(target)".utf8)))
        return response
    }

    /// Answers when there is a change after `since`, or when `timeout` passes; with `heartbeat`,
    /// a newline is sent every interval while waiting.
    private func longpoll(_ database: Database, _ query: ChangesQuery) -> CouchResponse {
        let deadline = ContinuousClock.now + query.timeout
        let wait: @Sendable () async throws -> ChangesPage = {
            var since = query.since
            while true {
                let page = try await changeRows(database, query)
                if !page.rows.isEmpty || ContinuousClock.now >= deadline || Task.isCancelled { return page }
                since = max(since, page.lastSequence)
                let remaining = deadline - ContinuousClock.now
                await database.waitForChange(after: since, timeout: min(remaining, query.heartbeat ?? remaining))
                if ContinuousClock.now >= deadline { return try await changeRows(database, query) }
            }
        }
        guard let heartbeat = query.heartbeat else {
            return CouchResponse(status: .ok, body: .stream { writer in
                let page = try await wait()
                var bytes = JSONValue.object(page.object(database: database)).serialized()
                bytes.append(0x0A)
                try await writer.write(ByteBuffer(bytes: bytes))
            })
        }
        return CouchResponse(status: .ok, body: .stream { writer in
            // The wait is timed from when the answer starts, so a busy server still sends at least
            // one heartbeat for a wait longer than the interval.
            let deadline = ContinuousClock.now + query.timeout
            var since = query.since
            while true {
                let page = try await changeRows(database, query)
                if !page.rows.isEmpty || ContinuousClock.now >= deadline {
                    var bytes = JSONValue.object(page.object(database: database)).serialized()
                    bytes.append(0x0A)
                    try await writer.write(ByteBuffer(bytes: bytes))
                    return
                }
                since = max(since, page.lastSequence)
                let remaining = deadline - ContinuousClock.now
                await database.waitForChange(after: since, timeout: min(remaining, heartbeat))
                // A wait that ended without a change is one heartbeat, even if it reached the
                // deadline: the newline before the final body is harmless to every client.
                if await database.updateSequence <= since {
                    try await writer.write(ByteBuffer(bytes: [0x0A]))
                }
            }
        })
    }

    /// One JSON line per change as they happen, until `limit` rows or `timeout` without a change;
    /// then a last line with `last_seq`.
    private func continuous(_ database: Database, _ query: ChangesQuery) -> CouchResponse {
        CouchResponse(status: .ok, body: .stream { writer in
            var query = query
            var sent = 0
            var lastChange = ContinuousClock.now
            while true {
                if let limit = query.limit { query.limit = limit - sent }
                let page = try await changeRows(database, query)
                for row in page.rows {
                    var bytes = row.serialized()
                    bytes.append(0x0A)
                    try await writer.write(ByteBuffer(bytes: bytes))
                }
                sent += page.rows.count
                query.since = max(query.since, page.lastSequence)
                if !page.rows.isEmpty { lastChange = ContinuousClock.now }
                let limitReached = query.limit.map { $0 - page.rows.count <= 0 } ?? false
                let idle = ContinuousClock.now - lastChange
                if limitReached || idle >= query.timeout || Task.isCancelled {
                    var bytes = JSONValue.object(["last_seq": .string(database.sequenceToken(query.since)), "pending": .integer(page.pending)]).serialized()
                    bytes.append(0x0A)
                    try await writer.write(ByteBuffer(bytes: bytes))
                    return
                }
                let wait = min(query.timeout - idle, query.heartbeat ?? query.timeout)
                await database.waitForChange(after: query.since, timeout: wait)
                if await database.updateSequence <= query.since, query.heartbeat != nil {
                    try await writer.write(ByteBuffer(bytes: [0x0A]))
                }
            }
        })
    }
}
