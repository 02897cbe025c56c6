public import VCardKit

/// What the address book knows about one contact: where it is and which version it holds.
///
/// The index holds one record per contact, so a record is kept small: the current hash and the
/// last hash before a deletion share one field (a live contact's last hash is its current one),
/// and ``edited`` is stored without an optional's padding. 120 bytes instead of 176.
public struct ContactRecord: Sendable, Hashable {
    /// The contact's identity.
    public var uid: String
    /// The file that holds the contact, relative to the book's folder (for a deleted contact: the
    /// file it was last in).
    public var file: String
    /// The formatted name of the last version.
    public var name: String?
    /// The sequence number of the event that created the contact.
    public var createdSequence: Int
    /// The sequence number of the contact's latest event.
    public var sequence: Int
    /// When the contact last changed (its latest event that changed it was recorded), in
    /// milliseconds since 1970.
    public var modified: Int64 = 0
    /// ``edited``, or `Int64.min` for none.
    private var editedOrNone = Int64.min
    /// The current version's hash; for a deleted contact, the last version's (zero when unknown).
    private var versionHash = Self.noHash
    private var flags: Flags = []

    private struct Flags: OptionSet, Hashable, Sendable {
        let rawValue: UInt8
        static let generatedUID = Flags(rawValue: 1)
        static let live = Flags(rawValue: 2)
        static let knowsVersionHash = Flags(rawValue: 4)
    }

    private static let noHash = ContentHash(words: (0, 0, 0, 0))

    /// A record holding `hash` as its current version (`nil`: deleted, with `lastHash` as the
    /// last version before the deletion, when known).
    init(uid: String, isGeneratedUID: Bool, file: String, hash: ContentHash?, lastHash: ContentHash?, name: String?,
         createdSequence: Int, sequence: Int) {
        self.uid = uid
        self.file = file
        self.name = name
        self.createdSequence = createdSequence
        self.sequence = sequence
        self.isGeneratedUID = isGeneratedUID
        if let hash {
            setCurrent(hash)
        } else {
            markDeleted(lastHash: lastHash)
        }
    }

    /// Whether cardsync generated the UID (the card has none).
    public var isGeneratedUID: Bool {
        get { flags.contains(.generatedUID) }
        set { if newValue { flags.insert(.generatedUID) } else { flags.remove(.generatedUID) } }
    }

    /// The content hash of the current version; `nil` when the contact is deleted. Setting a
    /// hash makes it the current version (and the last one); setting `nil` marks the contact
    /// deleted, its current version becoming its last (as ``BookIndex`` records a deletion).
    public var hash: ContentHash? {
        get { flags.contains(.live) ? versionHash : nil }
        set {
            if let newValue { setCurrent(newValue) } else { markDeleted(lastHash: lastHash) }
        }
    }

    /// The content hash of the last version before the contact was deleted (for a live contact,
    /// its current version's).
    public var lastHash: ContentHash? { flags.contains(.knowsVersionHash) ? versionHash : nil }

    /// When the current version was made, when the journal knows it apart from ``modified``
    /// (``JournalEvent/edited``: an outside edit's file modification time, a remote document's
    /// edit time); `nil` when the version was made as it was recorded.
    public var edited: Int64? {
        get { editedOrNone == .min ? nil : editedOrNone }
        set { editedOrNone = newValue ?? .min }
    }

    /// When the current version (or the deletion) was made, in milliseconds since 1970:
    /// ``edited``, else ``modified``. What `--conflict newest` compares.
    public var editTime: Int64 { edited ?? modified }

    /// Whether the contact was deleted.
    public var isDeleted: Bool { !flags.contains(.live) }

    /// Makes `hash` the current version.
    mutating func setCurrent(_ hash: ContentHash) {
        versionHash = hash
        flags.formUnion([.live, .knowsVersionHash])
    }

    /// Marks the contact deleted, `lastHash` being its last version (`nil`: not known).
    mutating func markDeleted(lastHash: ContentHash?) {
        flags.remove(.live)
        if let lastHash {
            versionHash = lastHash
            flags.insert(.knowsVersionHash)
        } else {
            versionHash = Self.noHash
            flags.remove(.knowsVersionHash)
        }
    }
}
