/// A saved document: its id and new revision.
public struct DocumentUpdate: Sendable, Hashable {
    /// The document id.
    public var id: String
    /// The new revision (`_rev`).
    public var revision: String

    /// An update.
    public init(id: String, revision: String) {
        self.id = id
        self.revision = revision
    }
}
