public import JSONText

/// One row of `_all_docs`.
public struct AllDocumentsRow: Sendable, Hashable {
    /// The key asked for (the document id).
    public var key: String
    /// The document id, when the document exists or existed.
    public var id: String?
    /// The winning revision.
    public var revision: String?
    /// Whether the document is deleted (a tombstone).
    public var isDeleted: Bool
    /// `not_found` when the key names no document.
    public var error: String?
    /// The document, with `include_docs`.
    public var document: JSONObject?

    init(json: JSONValue) {
        key = json["key"]?.stringValue ?? ""
        id = json["id"]?.stringValue
        revision = json["value"]?["rev"]?.stringValue
        isDeleted = json["value"]?["deleted"]?.boolValue ?? false
        error = json["error"]?.stringValue
        document = json["doc"]?.objectValue
    }
}
