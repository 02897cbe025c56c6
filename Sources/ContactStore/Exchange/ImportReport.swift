public import VCardKit

/// What to do with a card whose content is already in the book.
public enum DuplicatePolicy: String, Sendable, Hashable, CaseIterable {
    /// Report it and leave it out (the default).
    case skip
    /// Import it as a contact of its own.
    case keep
}

/// How far an import has come, for progress displays.
public struct ImportProgress: Sendable, Hashable {
    /// The source being read.
    public var source: String
    /// Bytes of that source read so far.
    public var bytesRead: Int
    /// Its size, when known.
    public var totalBytes: Int?
    /// Cards read so far, over all sources.
    public var cardsRead: Int
    /// Contacts added so far.
    public var added: Int
    /// Duplicates skipped so far.
    public var duplicates: Int
}

/// A card left out of an import because its content is already in the book.
public struct SkippedDuplicate: Sendable, Hashable {
    /// The input it was read from.
    public var source: String
    /// The line of its `BEGIN:VCARD` (1 for jCard and xCard).
    public var line: Int
    /// Its own UID, if it has one.
    public var uid: String?
    /// The contact with the same content.
    public var existingUID: String
    /// That contact's file.
    public var existingFile: String

    /// Whether the card is that very contact (same UID): an earlier import of the same input.
    public var isSameContact: Bool { uid == existingUID }
}

/// A card imported under another UID because its own was already taken by another card of the
/// same import.
public struct ReassignedUID: Sendable, Hashable {
    /// The input the card was read from.
    public var source: String
    /// The line of its `BEGIN:VCARD`.
    public var line: Int
    /// The card's UID.
    public var original: String
    /// The UID it was given (and written into its file).
    public var assigned: String
}

/// What an import did.
public struct ImportReport: Sendable {
    /// Cards read, over all sources.
    public var cardsRead = 0
    /// Contacts added.
    public var added = 0
    /// Contacts whose UID was already in the book with other content: the imported card became
    /// their new version (the old one stays in the journal; `restore` brings it back).
    public var updated: [String] = []
    /// Cards left out as duplicates, in input order.
    public var duplicates: [SkippedDuplicate] = []
    /// Cards given another UID.
    public var reassignedUIDs: [ReassignedUID] = []
    /// Problems found reading the sources (cards that could not be read are left out).
    public var diagnostics: [Diagnostic] = []
    /// Cards that could not be imported for another reason.
    public var problems: [StoreProblem] = []
    /// Whether any source had an error.
    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } || !problems.isEmpty }
}
