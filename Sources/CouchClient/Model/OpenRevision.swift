public import JSONText

/// One revision asked for with `open_revs`.
public enum OpenRevision: Sendable, Hashable {
    /// The revision's document (with `_deleted` when a tombstone).
    case found(JSONObject)
    /// The database does not have this revision.
    case missing(String)
}

/// Which revisions `open_revs` asks for.
public enum OpenRevisions: Sendable, Hashable {
    /// Every leaf revision.
    case all
    /// These revisions.
    case only([String])
}
