import Hummingbird
import JSONText

extension CouchResponder {
    /// `GET`/`POST /{db}/_all_docs`: `keys`, `key`, `startkey`/`endkey`, `inclusive_end`,
    /// `descending`, `skip`, `limit`, `include_docs`, `conflicts`, `update_seq`.
    ///
    /// With `designOnly` it is `_design_docs`: only `_design/` documents, counted alone.
    func allDocuments(_ request: CouchRequest, _ database: Database, designOnly: Bool = false) async throws(CouchError) -> CouchResponse {
        var keys = try request.json("keys")
        if request.method == .post {
            try request.requireJSONContentType()
            let body = try request.jsonObjectBody()
            if let bodyKeys = body["keys"] { keys = bodyKeys }
        }
        let includeDocs = try request.flag("include_docs")
        var options = Database.RenderOptions()
        options.conflicts = try request.flag("conflicts")
        let descending = try request.flag("descending")
        let skip = try request.integer("skip") ?? 0
        let limit = try request.integer("limit") ?? Int.max
        var total = await database.documentCount
        if designOnly {
            total = try await database.liveDocumentIDs().filter { $0.hasPrefix("_design/") }.count
        }

        func row(_ entry: DocumentEntry) async throws(CouchError) -> JSONValue {
            guard let winner = entry.winner else { return .null }
            var value: JSONObject = ["rev": .string(winner.description)]
            if entry.isDeleted { value["deleted"] = .bool(true) }
            var row: JSONObject = ["id": .string(entry.id), "key": .string(entry.id), "value": .object(value)]
            if includeDocs {
                row["doc"] = entry.isDeleted ? .null
                    : (try await database.render(entry, revision: winner, options: options)).map(JSONValue.object) ?? .null
            }
            return .object(row)
        }

        var rows: [JSONValue] = []
        var offset: JSONValue = .null
        if let keys {
            guard let list = keys.arrayValue else { throw CouchError(.badRequest, reason: "`keys` must be an array") }
            let selected = descending ? Array(list.reversed()) : list
            for key in selected.dropFirst(skip).prefix(limit) {
                if let id = key.stringValue, let entry = try await database.entry(id) {
                    rows.append(try await row(entry))
                } else {
                    rows.append(.object(["key": key, "error": .string("not_found")]))
                }
            }
        } else {
            var ids = try await database.liveDocumentIDs()
            if designOnly { ids = ids.filter { $0.hasPrefix("_design/") } }
            var startKey = try request.json("startkey")
            if startKey == nil { startKey = try request.json("start_key") }
            var endKey = try request.json("endkey")
            if endKey == nil { endKey = try request.json("end_key") }
            let key = try request.json("key")
            let inclusiveEnd = try request.flag("inclusive_end", default: true)
            var lower = 0
            var upper = ids.count
            func position(_ id: String, after: Bool) -> Int {
                var low = 0
                var high = ids.count
                while low < high {
                    let middle = (low + high) / 2
                    let precedes = after ? !id.utf8.lexicographicallyPrecedes(ids[middle].utf8)
                        : ids[middle].utf8.lexicographicallyPrecedes(id.utf8)
                    if precedes { low = middle + 1 } else { high = middle }
                }
                return low
            }
            if let id = key?.stringValue {
                lower = position(id, after: false)
                upper = position(id, after: true)
            } else if !descending {
                if let start = startKey?.stringValue { lower = position(start, after: false) }
                if let end = endKey?.stringValue { upper = position(end, after: inclusiveEnd) }
            } else {
                if let start = startKey?.stringValue { upper = position(start, after: true) }
                if let end = endKey?.stringValue { lower = position(end, after: !inclusiveEnd) }
            }
            let range = lower < upper ? Array(lower..<upper) : []
            let ordered = descending ? range.reversed() : range
            offset = .integer((descending ? ids.count - upper : lower) + min(skip, range.count))
            for index in ordered.dropFirst(skip).prefix(limit) {
                if let entry = try await database.entry(ids[index]) { rows.append(try await row(entry)) }
            }
        }
        var result: JSONObject = ["total_rows": .integer(total), "offset": offset, "rows": .array(rows)]
        if try request.flag("update_seq") {
            result["update_seq"] = .string(database.sequenceToken(await database.updateSequence))
        }
        return CouchResponse(.object(result))
    }
}
