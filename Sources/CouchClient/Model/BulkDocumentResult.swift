import JSONText

/// The outcome for one document of `_bulk_docs`: saved (``revision``) or failed (``error``).
public struct BulkDocumentResult: Sendable, Hashable {
    /// The document id, when known.
    public var id: String?
    /// The new revision, when saved.
    public var revision: String?
    /// CouchDB's `error`, like `conflict`, `forbidden` or `too_large`, when it failed.
    public var error: String?
    /// CouchDB's `reason`, when it failed.
    public var reason: String?

    /// Whether the document was saved.
    public var isSuccess: Bool { error == nil }

    /// A result.
    public init(id: String?, revision: String? = nil, error: String? = nil, reason: String? = nil) {
        self.id = id
        self.revision = revision
        self.error = error
        self.reason = reason
    }

    init(json: JSONValue) {
        self.init(id: json["id"]?.stringValue, revision: json["rev"]?.stringValue,
                  error: json["error"]?.stringValue, reason: json["reason"]?.stringValue)
    }
}
