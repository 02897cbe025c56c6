public import JSONText

/// A revision to fetch with `_bulk_get`.
public struct BulkGetRequest: Sendable, Hashable {
    /// The document id.
    public var id: String
    /// The revision; `nil` for the winner.
    public var revision: String?

    /// A request.
    public init(id: String, revision: String? = nil) {
        self.id = id
        self.revision = revision
    }
}

/// What `_bulk_get` returned for one requested revision.
public enum BulkGetResult: Sendable, Hashable {
    /// The document at that revision.
    case found(JSONObject)
    /// It failed: the id, revision, CouchDB's `error` and `reason`.
    case failed(id: String, revision: String?, error: String, reason: String?)
}

/// What `_revs_diff` found missing for one document.
public struct RevisionsDifference: Sendable, Hashable {
    /// Revisions the database does not have.
    public var missing: [String]
    /// Revisions it has that may be ancestors of the missing ones.
    public var possibleAncestors: [String]

    /// A difference.
    public init(missing: [String], possibleAncestors: [String] = []) {
        self.missing = missing
        self.possibleAncestors = possibleAncestors
    }
}
