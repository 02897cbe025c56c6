public import VCardKit

/// One line of the journal: a change to one contact.
///
/// ```json
/// {"card":"BEGIN:VCARD\r\n…","checksum":"1c291ca3","file":"ada.vcf","hash":"9f…","name":"Ada Lovelace",
///  "op":"add","previousHash":null,"schemaVersion":1,"seq":1,"source":"import","time":"2025-05-01T09:30:00.000Z","uid":"ada"}
/// ```
///
/// The card's text is stored only by the first event that brings its ``hash``; later events with
/// the same hash refer to it. `Schemas/journal-event.schema.json` describes the line format.
public struct JournalEvent: Sendable, Hashable {
    /// What happened to the contact.
    public struct Operation: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A new contact.
        public static let add = Operation(rawValue: "add")
        /// New content for a contact.
        public static let update = Operation(rawValue: "update")
        /// The contact's file changed its name; the content did not.
        public static let rename = Operation(rawValue: "rename")
        /// The contact was removed.
        public static let delete = Operation(rawValue: "delete")
        /// An earlier version was brought back (``JournalEvent/restoredSequence`` says which).
        public static let restore = Operation(rawValue: "restore")
        /// Other contacts were merged into this one.
        public static let merge = Operation(rawValue: "merge")
        /// The contact is in step with a remote document: ``JournalEvent/remote`` holds it at
        /// ``JournalEvent/remoteRevision`` with content ``JournalEvent/hash`` (`nil`: a tombstone).
        /// Sync state only: the contact itself does not change.
        public static let synced = Operation(rawValue: "sync")
        /// The remote's changes feed has been applied up to ``JournalEvent/checkpoint``. No contact.
        public static let checkpoint = Operation(rawValue: "checkpoint")
        /// A version that lost a sync conflict, kept so that `cardsync restore` can bring it back.
        /// The contact itself does not change.
        public static let conflict = Operation(rawValue: "conflict")

        /// Whether events of this kind change a contact (the others record sync state or keep a version).
        public var changesContact: Bool { self != .synced && self != .checkpoint && self != .conflict }
    }

    /// Where a change came from.
    public struct Source: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// Found in the folder by a scan: another program (or the user) changed a file.
        public static let folder = Source(rawValue: "folder")
        /// `cardsync import`.
        public static let `import` = Source(rawValue: "import")
        /// A sync with a remote server.
        public static let remote = Source(rawValue: "remote")
        /// A cardsync command run by the user (restore, dedupe, …).
        public static let user = Source(rawValue: "user")
    }

    /// The version of the line format; ``currentSchemaVersion``.
    public var schemaVersion: Int
    /// The sequence number: 1 for the first event, increasing by at least 1 per line.
    public var sequence: Int
    /// When the event was recorded, in milliseconds since 1970 (UTC).
    public var timestamp: Int64
    /// When the version this event brings was made, in milliseconds since 1970 (UTC), when that
    /// is not ``timestamp``: for an edit another program made in the folder, the file's
    /// modification time (bounded by the previous scan and the time the scan found it); for a
    /// version pulled from a remote, the edit time its document carries. `nil`: the version was
    /// made when the event was recorded (an edit made through cardsync).
    public var edited: Int64?
    /// What happened.
    public var operation: Operation
    /// The contact's identity.
    public var uid: String
    /// Whether cardsync generated the UID because the card had none.
    public var isGeneratedUID: Bool
    /// The contact's file, relative to the address book folder (for a delete: the file it was in).
    public var file: String
    /// The file's earlier name, for a rename (or an update that also moved the contact).
    public var previousFile: String?
    /// The content hash after the change; `nil` for a delete.
    public var hash: ContentHash?
    /// The content hash before the change; `nil` for a new contact.
    public var previousHash: ContentHash?
    /// Where the change came from.
    public var source: Source
    /// The formatted name after the change (or before a delete), so history reads as names.
    public var name: String?
    /// The card's bytes, when this event is the first to bring ``hash``.
    public var card: [UInt8]?
    /// For a restore: the sequence number of the event whose version was brought back.
    public var restoredSequence: Int?
    /// For a delete by `dedupe`: the UID of the contact with the same content that was kept.
    public var duplicateOf: String?
    /// For sync events: the remote (its URL without credentials, `…/database`).
    public var remote: String?
    /// For a `sync` event: the remote document's revision (`_rev`).
    public var remoteRevision: String?
    /// For a `checkpoint` event: the remote changes-feed position, as the server gave it (JSON text).
    public var checkpoint: String?
    /// For a `checkpoint` event recorded by a sync: what the sync had done by then, in words
    /// (received and sent contacts, conflicts, errors), so the last sync's summary is read from
    /// the journal like its time.
    public var summary: String?

    /// The line format this version of cardsync writes.
    public static let currentSchemaVersion = 1

    /// Creates an event; ``sequence`` and ``timestamp`` are set by ``Journal/append(_:)``.
    public init(operation: Operation, uid: String, file: String, hash: ContentHash?, previousHash: ContentHash?,
                source: Source, name: String? = nil, card: [UInt8]? = nil, isGeneratedUID: Bool = false,
                previousFile: String? = nil, restoredSequence: Int? = nil, duplicateOf: String? = nil) {
        self.schemaVersion = Self.currentSchemaVersion
        self.sequence = 0
        self.timestamp = 0
        self.operation = operation
        self.uid = uid
        self.isGeneratedUID = isGeneratedUID
        self.file = file
        self.previousFile = previousFile
        self.hash = hash
        self.previousHash = previousHash
        self.source = source
        self.name = name
        self.card = card
        self.restoredSequence = restoredSequence
        self.duplicateOf = duplicateOf
    }

    /// A `sync` event: contact `uid` is in step with revision `revision` of its document on
    /// `remote`, holding content `hash` (`nil` when the document is a tombstone).
    public static func synced(uid: String, file: String, remote: String, revision: String, hash: ContentHash?,
                              isGeneratedUID: Bool = false) -> JournalEvent {
        var event = JournalEvent(operation: .synced, uid: uid, file: file, hash: hash, previousHash: nil, source: .remote,
                                 isGeneratedUID: isGeneratedUID)
        event.remote = remote
        event.remoteRevision = revision
        return event
    }

    /// A `checkpoint` event: `remote`'s changes feed is applied up to `position`.
    public static func checkpoint(remote: String, position: String, summary: String? = nil) -> JournalEvent {
        var event = JournalEvent(operation: .checkpoint, uid: "", file: "", hash: nil, previousHash: nil, source: .remote)
        event.remote = remote
        event.checkpoint = position
        event.summary = summary
        return event
    }

    /// The card's text (its bytes decoded as UTF-8), when the event carries it.
    public var cardText: String? { card.map { String(decoding: $0, as: UTF8.self) } }

    /// The timestamp as `2025-05-01T09:30:00.000Z`.
    public var time: String { UTCTimestamp.format(milliseconds: timestamp) }

    /// When the version was made: ``edited`` when the event has it, else ``timestamp``.
    public var editTime: Int64 { edited ?? timestamp }
}
