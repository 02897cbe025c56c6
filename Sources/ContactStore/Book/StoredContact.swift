public import VCardKit

/// A live contact as stored: its record, its card and the card's bytes in its file.
public struct StoredContact: Sendable {
    /// What the book knows about the contact.
    public var record: ContactRecord
    /// The card, as read from its file.
    public var card: VCard
    /// The card's bytes in the file.
    public var bytes: [UInt8]

    /// The contact's UID.
    public var uid: String { record.uid }
    /// Its file, relative to the book.
    public var file: String { record.file }
}

/// The fields `list` shows for one contact.
public struct ContactSummary: Sendable, Hashable, Codable {
    /// The UID.
    public var uid: String
    /// The file, relative to the book.
    public var file: String
    /// The formatted name (`FN`), or an empty string.
    public var name: String
    /// The e-mail addresses.
    public var emails: [String]
    /// The telephone numbers.
    public var phones: [String]
}
