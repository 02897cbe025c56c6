public import JSONText

/// What `GET /{db}` says about a database.
public struct DatabaseInfo: Sendable, Hashable {
    /// The database name.
    public var name: String
    /// Live documents.
    public var documentCount: Int
    /// Deleted documents (tombstones).
    public var deletedDocumentCount: Int
    /// The current end of the changes feed.
    public var updateSequence: CouchSequence
    /// The whole object.
    public var json: JSONValue

    /// Reads the fields of `json`.
    public init(json: JSONValue) {
        self.json = json
        self.name = json["db_name"]?.stringValue ?? ""
        self.documentCount = json["doc_count"]?.intValue ?? 0
        self.deletedDocumentCount = json["doc_del_count"]?.intValue ?? 0
        self.updateSequence = CouchSequence(json["update_seq"] ?? .integer(0))
    }
}
