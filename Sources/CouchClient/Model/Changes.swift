public import JSONText

/// What to ask `_changes` for.
public struct ChangesRequest: Sendable, Hashable {
    /// Changes after this position; `nil` for all.
    public var since: CouchSequence?
    /// At most this many rows.
    public var limit: Int?
    /// Include each change's document.
    public var includeDocuments: Bool
    /// List every leaf revision, not only the winner (`style=all_docs`).
    public var allRevisions: Bool
    /// Include `_conflicts` in documents.
    public var conflicts: Bool

    /// A request.
    public init(since: CouchSequence? = nil, limit: Int? = nil, includeDocuments: Bool = false,
                allRevisions: Bool = false, conflicts: Bool = false) {
        self.since = since
        self.limit = limit
        self.includeDocuments = includeDocuments
        self.allRevisions = allRevisions
        self.conflicts = conflicts
    }
}

extension ChangesRequest {
    /// The query parameters.
    var query: [(String, String)] {
        var query: [(String, String)] = []
        if let since { query.append(("since", since.description)) }
        if let limit { query.append(("limit", String(limit))) }
        if includeDocuments { query.append(("include_docs", "true")) }
        if allRevisions { query.append(("style", "all_docs")) }
        if conflicts { query.append(("conflicts", "true")) }
        return query
    }
}

/// One page of `_changes`.
public struct ChangesPage: Sendable, Hashable {
    /// The changes, in feed order.
    public var results: [Change]
    /// Where the next page starts (store it as the checkpoint once applied).
    public var lastSequence: CouchSequence
    /// Changes left after this page, when the server says.
    public var pending: Int?

    /// A page.
    public init(results: [Change], lastSequence: CouchSequence, pending: Int?) {
        self.results = results
        self.lastSequence = lastSequence
        self.pending = pending
    }
}

/// One row of `_changes`: a document changed.
public struct Change: Sendable, Hashable {
    /// The position of this change.
    public var sequence: CouchSequence
    /// The document id.
    public var id: String
    /// The leaf revisions listed (the winner only, unless ``ChangesRequest/allRevisions``).
    public var revisions: [String]
    /// Whether the winning revision is a deletion.
    public var isDeleted: Bool
    /// The document, when asked for.
    public var document: JSONObject?

    init(json: JSONValue) {
        sequence = CouchSequence(json["seq"] ?? .null)
        id = json["id"]?.stringValue ?? ""
        revisions = json["changes"]?.arrayValue?.compactMap { $0["rev"]?.stringValue } ?? []
        isDeleted = json["deleted"]?.boolValue ?? false
        document = json["doc"]?.objectValue
    }
}
