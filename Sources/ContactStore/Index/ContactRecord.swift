public import VCardKit

/// What the address book knows about one contact: where it is and which version it holds.
public struct ContactRecord: Sendable, Hashable {
    /// The contact's identity.
    public var uid: String
    /// Whether cardsync generated the UID (the card has none).
    public var isGeneratedUID: Bool
    /// The file that holds the contact, relative to the book's folder (for a deleted contact: the
    /// file it was last in).
    public var file: String
    /// The content hash of the current version; `nil` when the contact is deleted.
    public var hash: ContentHash?
    /// The content hash of the last version before the contact was deleted.
    public var lastHash: ContentHash?
    /// The formatted name of the last version.
    public var name: String?
    /// The sequence number of the event that created the contact.
    public var createdSequence: Int
    /// The sequence number of the contact's latest event.
    public var sequence: Int
    /// When the contact last changed (its latest event that changed it was recorded), in
    /// milliseconds since 1970.
    public var modified: Int64 = 0
    /// When the current version was made, when the journal knows it apart from ``modified``
    /// (``JournalEvent/edited``: an outside edit's file modification time, a remote document's
    /// edit time); `nil` when the version was made as it was recorded.
    public var edited: Int64?

    /// When the current version (or the deletion) was made, in milliseconds since 1970:
    /// ``edited``, else ``modified``. What `--conflict newest` compares.
    public var editTime: Int64 { edited ?? modified }

    /// Whether the contact was deleted.
    public var isDeleted: Bool { hash == nil }
}
