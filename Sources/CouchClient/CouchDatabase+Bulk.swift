public import JSONText

/// A document written as JSON text, with its id (for a result the server cannot give it).
public struct SerializedDocument: Sendable, Hashable {
    /// The document's `_id`, when it has one.
    public var id: String?
    /// The document as one JSON object.
    public var text: [UInt8]

    /// A document written as `text`, whose `_id` is `id`.
    public init(id: String?, text: [UInt8]) {
        self.id = id
        self.text = text
    }
}

extension CouchDatabase {
    /// `POST /{db}/_bulk_docs`: saves many documents in one request, one result per document.
    ///
    /// When the server answers 413 (request too large), the batch is split in halves and each half
    /// sent again, down to single documents; a single document that is still too large gets a
    /// `too_large` result instead of failing the call.
    ///
    /// - Parameters:
    ///   - documents: the documents, with `_id` and `_rev` as needed.
    ///   - newEdits: `false` stores the revisions as given (replication); the server then lists
    ///     failures only.
    /// - Returns: per-document results (`conflict`, `forbidden`, … are results, not throws).
    /// - Throws: ``CouchClientError`` when the request as a whole fails.
    public func bulkDocuments(_ documents: [JSONObject], newEdits: Bool = true) async throws -> [BulkDocumentResult] {
        try await bulkDocuments(serialized: documents.map { SerializedDocument(id: $0["_id"]?.stringValue, text: $0.serialized()) },
                                newEdits: newEdits)
    }

    /// ``bulkDocuments(_:newEdits:)`` of documents already written as JSON text: what a sync
    /// sends by the thousand is written straight to text (see `JSONObjectWriter`) instead of being
    /// built as objects first. Split in halves on 413 the same way.
    public func bulkDocuments(serialized documents: [SerializedDocument], newEdits: Bool = true) async throws -> [BulkDocumentResult] {
        guard !documents.isEmpty else { return [] }
        do {
            var body: [UInt8] = []
            body.reserveCapacity(documents.reduce(32) { $0 + $1.text.count + 1 })
            body.append(contentsOf: #"{"docs":["#.utf8)
            for (index, document) in documents.enumerated() {
                if index > 0 { body.append(UInt8(ascii: ",")) }
                body.append(contentsOf: document.text)
            }
            body.append(UInt8(ascii: "]"))
            if !newEdits { body.append(contentsOf: #","new_edits":false"#.utf8) }
            body.append(UInt8(ascii: "}"))
            let response = try await client.send("POST", path: path + "/_bulk_docs", bodyText: body)
            guard let rows = response.json.arrayValue else { throw invalid("expected an array from _bulk_docs") }
            return rows.map(BulkDocumentResult.init(json:))
        } catch let error as CouchClientError where error.status == 413 {
            if documents.count == 1 {
                return [BulkDocumentResult(id: documents[0].id, error: error.error ?? "too_large",
                                           reason: error.reason ?? "the document is too large")]
            }
            let middle = documents.count / 2
            let first = try await bulkDocuments(serialized: Array(documents[..<middle]), newEdits: newEdits)
            let second = try await bulkDocuments(serialized: Array(documents[middle...]), newEdits: newEdits)
            return first + second
        }
    }

    /// `POST /{db}/_all_docs`: the rows for the ids given, in their order.
    ///
    /// - Parameters:
    ///   - keys: document ids; an unknown id gets a row with `error: not_found`.
    ///   - includeDocuments: include each live document.
    ///   - conflicts: include `_conflicts` (losing leaf revisions) in each document.
    /// - Throws: ``CouchClientError``.
    public func allDocuments(keys: [String], includeDocuments: Bool = false, conflicts: Bool = false) async throws -> [AllDocumentsRow] {
        var query: [(String, String)] = includeDocuments ? [("include_docs", "true")] : []
        if conflicts { query.append(("conflicts", "true")) }
        let body: JSONValue = ["keys": .array(keys.map(JSONValue.string))]
        let response = try await client.send("POST", path: path + "/_all_docs", query: query, body: body)
        guard let rows = response.json["rows"]?.arrayValue else { throw invalid("expected rows from _all_docs") }
        return rows.map(AllDocumentsRow.init(json:))
    }

    /// `POST /{db}/_revs_diff`: which of the given revisions the database lacks.
    ///
    /// - Parameter revisions: revisions per document id.
    /// - Returns: per document id with something missing, the missing revisions.
    /// - Throws: ``CouchClientError``.
    public func revisionsDifference(_ revisions: [String: [String]]) async throws -> [String: RevisionsDifference] {
        let body = JSONObject(revisions.sorted { $0.key < $1.key }.map {
            JSONObject.Member(key: $0.key, value: .array($0.value.map(JSONValue.string)))
        })
        let response = try await client.send("POST", path: path + "/_revs_diff", body: .object(body))
        guard let object = response.json.objectValue else { throw invalid("expected an object from _revs_diff") }
        var differences: [String: RevisionsDifference] = [:]
        for member in object.members {
            differences[member.key] = RevisionsDifference(
                missing: member.value["missing"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                possibleAncestors: member.value["possible_ancestors"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        }
        return differences
    }

    /// `POST /{db}/_bulk_get`: many documents (or revisions) in one request.
    ///
    /// - Parameters:
    ///   - requests: ids and optional revisions.
    ///   - revisions: include `_revisions` in each document.
    ///   - attachments: include each attachment's bytes (base64 `data`) instead of its stub,
    ///     so that a document and its attachments can be written elsewhere as they are.
    /// - Returns: one result per revision returned, in order.
    /// - Throws: ``CouchClientError``.
    public func bulkGet(_ requests: [BulkGetRequest], revisions: Bool = false, attachments: Bool = false) async throws -> [BulkGetResult] {
        guard !requests.isEmpty else { return [] }
        let docs: [JSONValue] = requests.map { request in
            var entry: JSONObject = ["id": .string(request.id)]
            if let revision = request.revision { entry["rev"] = .string(revision) }
            return .object(entry)
        }
        var query: [(String, String)] = revisions ? [("revs", "true")] : []
        if attachments { query.append(("attachments", "true")) }
        let response = try await client.send("POST", path: path + "/_bulk_get", query: query, body: ["docs": .array(docs)])
        guard let results = response.json["results"]?.arrayValue else { throw invalid("expected results from _bulk_get") }
        var output: [BulkGetResult] = []
        for result in results {
            let id = result["id"]?.stringValue ?? ""
            for entry in result["docs"]?.arrayValue ?? [] {
                if let document = entry["ok"]?.objectValue {
                    output.append(.found(document))
                } else if let failure = entry["error"] {
                    output.append(.failed(id: failure["id"]?.stringValue ?? id, revision: failure["rev"]?.stringValue,
                                          error: failure["error"]?.stringValue ?? "unknown",
                                          reason: failure["reason"]?.stringValue))
                }
            }
        }
        return output
    }

    /// `GET /{db}/_changes`: one page of the changes feed (normal, not continuous).
    ///
    /// ```swift
    /// var since = CouchSequence.zero
    /// repeat {
    ///     let page = try await database.changes(ChangesRequest(since: since, limit: 500, includeDocuments: true))
    ///     apply(page.results)
    ///     since = page.lastSequence
    /// } while page.pending ?? 0 > 0
    /// ```
    ///
    /// - Throws: ``CouchClientError``.
    public func changes(_ request: ChangesRequest = ChangesRequest()) async throws -> ChangesPage {
        let response = try await client.send("GET", path: path + "/_changes", query: request.query)
        guard let rows = response.json["results"]?.arrayValue else { throw invalid("expected results from _changes") }
        return ChangesPage(results: rows.map(Change.init(json:)),
                           lastSequence: CouchSequence(response.json["last_seq"] ?? .null),
                           pending: response.json["pending"]?.intValue)
    }
}
