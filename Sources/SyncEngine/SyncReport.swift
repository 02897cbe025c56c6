import ContactStore

/// What a sync did (or, for a dry run, would do), by contact name.
public struct SyncReport: Sendable {
    /// A change to one contact on one side.
    public struct Change: Sendable, Hashable {
        /// What happened to the contact.
        public enum Kind: String, Sendable, Hashable { case add, update, delete }
        /// The contact's UID.
        public var uid: String
        /// Its formatted name (or the UID when it has none).
        public var name: String
        /// What happened.
        public var kind: Kind
    }

    /// A contact changed on both sides, and how it was settled.
    public struct Conflict: Sendable, Hashable {
        /// Which version won.
        public enum Winner: String, Sendable, Hashable { case local, remote }

        /// One side's version, as the policy saw it.
        public struct Version: Sendable, Hashable {
            /// When the version (or the deletion) was made, in milliseconds since 1970, when
            /// known: for an edit found in the folder, its file's modification time bounded by
            /// the previous scan and the sync; for the server's, the document's (or tombstone's)
            /// `edited`, else `updated`, time.
            public var edited: Int64?
            /// Whether this side deleted the contact.
            public var isDeletion: Bool
            /// The card's `REV`, as written, when it has one.
            public var revision: String?

            /// ``edited`` as `2026-11-22T05:09:44.123Z`.
            public var editTime: String? { edited.map { UTCTimestamp.format(milliseconds: $0) } }
        }
        /// The contact's UID.
        public var uid: String
        /// Its formatted name.
        public var name: String
        /// Which version won.
        public var winner: Winner
        /// Why: the policy and what it compared.
        public var reason: String
        /// For `keep-both`: the UID the losing version was kept under.
        public var keptAs: String?
        /// Losing leaf revisions of a document that already had `_conflicts` (deleted on the server).
        public var removedRevisions: [String] = []
        /// This book's version, as compared (`nil` for conflicting revisions on the server only).
        public var local: Version?
        /// The server's version, as compared (`nil` for conflicting revisions on the server only).
        public var remote: Version?
    }

    /// A contact, document or file that could not be synced; the rest went on.
    public struct Problem: Sendable, Hashable {
        /// The contact's UID, the document id, or (for a file of the folder) the file name.
        public var subject: String
        /// The contact's name, when known.
        public var name: String?
        /// What went wrong and what to do.
        public var message: String
        /// For a file of the folder that could not be read: its name, relative to the book.
        public var file: String?
        /// The 1-based line of ``file`` where the problem is, when known.
        public var line: Int?
        /// For a file of the folder: the scan's kind of problem (`invalid-file`, `duplicate-uid`, …).
        public var code: String?
    }

    /// A contact by UID and name.
    public struct Contact: Sendable, Hashable {
        /// The contact's UID.
        public var uid: String
        /// Its formatted name (or the UID when it has none).
        public var name: String
    }

    /// The remote (URL without credentials).
    public var remote: String
    /// Whether nothing was changed (a plan).
    public var isDryRun = false
    /// Whether the remote database was created by this sync.
    public var createdDatabase = false
    /// Changes brought from the remote into the address book.
    public var pulled: [Change] = []
    /// Changes sent from the address book to the remote.
    public var pushed: [Change] = []
    /// Contacts changed on both sides.
    public var conflicts: [Conflict] = []
    /// Groups of contacts that now have identical content.
    public var duplicateGroups: [[Contact]] = []
    /// Groups of UIDs whose contacts now have identical content.
    public var duplicates: [[String]] { duplicateGroups.map { $0.map(\.uid) } }
    /// UIDs removed as duplicates (with `--dedupe`).
    public var removedDuplicates: [String] = []
    /// Contacts and documents that could not be synced.
    public var problems: [Problem] = []
    /// Contacts already identical on both sides that were matched without transfer.
    public var matched = 0
    /// Contacts in the address book after the sync.
    public var localCount = 0
    /// Document writes the server acknowledged during this sync (each one update of its
    /// sequence); what lets the checkpoint move past them.
    public internal(set) var ownWrites = 0
    /// The changes-feed position reached.
    public var checkpoint: String?
    /// HTTP requests made (when the transport counts them).
    public var requests: Int?

    /// Whether anything changed (or would change).
    public var hasChanges: Bool { !pulled.isEmpty || !pushed.isEmpty || !conflicts.isEmpty }

    func count(_ list: [Change], _ kind: Change.Kind) -> Int { list.reduce(0) { $0 + ($1.kind == kind ? 1 : 0) } }
    /// Counts of pulled changes by kind.
    public var pulledCounts: (added: Int, updated: Int, deleted: Int) { (count(pulled, .add), count(pulled, .update), count(pulled, .delete)) }
    /// Counts of pushed changes by kind.
    public var pushedCounts: (added: Int, updated: Int, deleted: Int) { (count(pushed, .add), count(pushed, .update), count(pushed, .delete)) }

    /// What the sync did, in one sentence (kept in the journal with its checkpoint).
    public var summaryLine: String {
        let pulled = pulledCounts
        let pushed = pushedCounts
        return "pulled \(pulled.added) added, \(pulled.updated) updated, \(pulled.deleted) deleted; "
            + "pushed \(pushed.added) added, \(pushed.updated) updated, \(pushed.deleted) deleted; "
            + "\(conflicts.count) conflicts, \(problems.count) errors"
    }
}

/// Where a sync is, for progress displays.
public struct SyncProgress: Sendable {
    /// The phase.
    public enum Phase: String, Sendable { case reading = "reading changes", pulling = "pulling", pushing = "pushing" }
    /// The phase.
    public var phase: Phase
    /// Items done in this phase.
    public var done: Int
    /// Items in this phase, when known.
    public var total: Int?
}
