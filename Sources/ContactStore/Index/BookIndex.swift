public import VCardKit

/// The state of an address book derived from its journal: every contact's record, which file
/// holds which contacts, which contents are live, and where each card text is stored.
///
/// Rebuilt by replaying the journal; saved as an ``IndexSnapshot`` so that opening a large book
/// does not replay everything. Opened from a snapshot, its maps read the snapshot's tables one
/// key at a time (``KeyedMap``): a run that changes a few contacts decodes only those.
struct BookIndex: Sendable {
    /// Every contact ever recorded, deleted ones included, by UID.
    var records = KeyedMap<String, ContactRecord>()
    /// The live contacts of each file.
    var uidsByFile = KeyedMap<String, [String]>()
    /// The live contacts with each content hash.
    var uidsByHash = KeyedMap<ContentHash, [String]>()
    /// The byte offset of the journal line that stores each card text.
    var cardOffsets = KeyedMap<ContentHash, Int64>()
    /// What each tracked file looked like when it was last read; not in the journal (derived).
    var stamps = KeyedMap<String, FileStamp>()
    /// The last sequence number applied.
    var lastSequence = 0
    /// The journal size the index reflects.
    var journalSize: Int64 = 0
    /// The number of journal lines the index reflects.
    var journalLines = 0
    /// Sync state: for each remote, each contact's last synced document revision and content.
    var syncStates: [String: KeyedMap<String, RemoteSyncState>] = [:]
    /// For each remote, the number of contacts whose sync state holds content (synced live):
    /// kept as states change, so that it is known without visiting every state.
    var syncedCounts: [String: Int] = [:]
    /// The number of live contacts (those in ``uidsByFile``), kept as they change.
    var liveCount = 0
    /// The remotes whose sync states the snapshot the maps were opened on holds (none when they
    /// were built in memory): those an ``IndexOverlay`` must name when they are gone.
    var snapshotRemotes: [String] = []
    /// For each remote, the changes-feed position applied.
    var checkpoints: [String: String] = [:]
    /// For each remote, when its last checkpoint event was recorded (milliseconds since 1970):
    /// the time of the last sync with it.
    var checkpointTimes: [String: Int64] = [:]
    /// When the folder was last scanned (by the book's clock, milliseconds since 1970; 0 when
    /// unknown): an outside edit found later was made after it. Derived, not in the journal: kept
    /// in the snapshot whenever the index is saved.
    var lastScan: Int64 = 0
    /// What changed since ``touched`` was last cleared (when the index was loaded from a
    /// summary): lets that summary be brought up to date without visiting every record.
    var touched = Touched()

    /// The contacts and files whose entries may differ from the summary the index was loaded
    /// with; ``IndexSummary/updated(with:)`` reads them.
    struct Touched: Sendable {
        /// Contacts whose record or sync state changed.
        var uids: Set<String> = []
        /// Files whose live contacts or stamp changed.
        var files: Set<String> = []
        /// A remote's sync state was forgotten: the summary's tallies are recomputed.
        var remoteForgotten = false
    }

    /// The live contacts.
    var liveRecords: [ContactRecord] {
        var live: [ContactRecord] = []
        live.reserveCapacity(liveCount)
        records.forEachEntry { _, record in if !record.isDeleted { live.append(record) } }
        return live
    }

    /// Takes from `summary` what it holds of the index (the journal position, the scan time,
    /// the checkpoints, the live and synced counts, the files' stamps): the rest of an index
    /// whose maps were opened on a snapshot's tables, as they stand where `summary` was made.
    mutating func take(_ summary: IndexSummary) {
        stamps = KeyedMap(base: IndexTables.Stamps(summary.files))
        liveCount = summary.liveCount
        syncedCounts = [:]
        for remote in syncStates.keys { syncedCounts[remote] = summary.remotes[remote]?.synced ?? 0 }
        lastScan = summary.lastScan
        journalSize = summary.journalSize
        journalLines = summary.journalLines
        lastSequence = summary.lastSequence
        checkpoints = summary.checkpoints
        checkpointTimes = summary.checkpointTimes
    }

    /// Applies one event read from (or just written to) the journal at `offset`.
    mutating func apply(_ event: JournalEvent, offset: Int64) {
        lastSequence = max(lastSequence, event.sequence)
        if let hash = event.hash, event.card != nil, cardOffsets[hash] == nil {
            cardOffsets[hash] = offset
        }
        guard event.operation.changesContact else {
            if event.operation == .synced, let remote = event.remote, let revision = event.remoteRevision {
                if let awaited = awaitedRemote, awaited.remote == remote {
                    awaitedRemote = nil
                    if syncStates[remote] == nil {
                        var states = KeyedMap<String, RemoteSyncState>()
                        states.reserveCapacity(forSetting: awaited.capacity)
                        syncStates[remote] = states
                    }
                }
                let old = syncStates[remote, default: [:]].updateValue(RemoteSyncState(revision: revision, hash: event.hash),
                                                                        forKey: event.uid)
                syncedCounts[remote, default: 0] += (event.hash == nil ? 0 : 1) - (old?.hash == nil ? 0 : 1)
                touched.uids.insert(event.uid)
            } else if event.operation == .checkpoint, let remote = event.remote, let position = event.checkpoint {
                if position.isEmpty {
                    touched.remoteForgotten = true
                    // A fresh start with this remote (`cardsync remote remove`): forget its sync state.
                    checkpoints[remote] = nil
                    syncStates[remote] = nil
                    syncedCounts[remote] = nil
                } else {
                    checkpoints[remote] = position
                }
                checkpointTimes[remote] = event.timestamp
            }
            return
        }
        // Looked up once: a pull or an import applies an event per contact.
        let existing = records[event.uid]
        var record = existing ?? ContactRecord(uid: event.uid, isGeneratedUID: event.isGeneratedUID, file: event.file,
                                               hash: nil, lastHash: nil, name: nil,
                                               createdSequence: event.sequence, sequence: event.sequence)
        touched.uids.insert(event.uid)
        touched.files.insert(event.file)
        if let existing {
            if existing.file != event.file { touched.files.insert(existing.file) }
            if !existing.isDeleted { removeLive(existing) }
        }
        if event.operation == .delete || event.hash == nil {
            record.markDeleted(lastHash: event.previousHash ?? record.hash ?? record.lastHash)
        } else {
            if record.isDeleted && existing != nil && event.operation == .add {
                record.createdSequence = event.sequence
            }
            if let hash = event.hash { record.setCurrent(hash) }
            record.isGeneratedUID = event.isGeneratedUID
        }
        record.file = event.file
        record.sequence = event.sequence
        record.modified = event.timestamp
        record.edited = event.edited
        if let name = event.name { record.name = name }
        records[event.uid] = record
        if !record.isDeleted { addLive(record) }
    }

    private mutating func removeLive(_ record: ContactRecord) {
        if var uids = uidsByFile[record.file] {
            let before = uids.count
            uids.removeAll { $0 == record.uid }
            liveCount -= before - uids.count
            if uids.isEmpty {
                uidsByFile[record.file] = nil
                stamps[record.file] = nil
            } else {
                uidsByFile[record.file] = uids
            }
        }
        if let hash = record.hash, var uids = uidsByHash[hash] {
            uids.removeAll { $0 == record.uid }
            uidsByHash[hash] = uids.isEmpty ? nil : uids
        }
    }

    private mutating func addLive(_ record: ContactRecord) {
        uidsByFile[record.file, default: []].append(record.uid)
        liveCount += 1
        if let hash = record.hash { uidsByHash[hash, default: []].append(record.uid) }
    }

    /// Makes room in every map for `count` more contacts, each in a file of its own, and in
    /// `remote`'s sync states for as many: a run that knows how many contacts it is about to add
    /// (a first pull) then fills maps that do not grow and rehash as they fill.
    mutating func reserveCapacity(forAdding count: Int, remote: String?) {
        guard count > 0 else { return }
        records.reserveCapacity(forSetting: count)
        uidsByFile.reserveCapacity(forSetting: count)
        uidsByHash.reserveCapacity(forSetting: count)
        cardOffsets.reserveCapacity(forSetting: count)
        stamps.reserveCapacity(forSetting: count)
        touched.uids.reserveCapacity(touched.uids.count + count)
        touched.files.reserveCapacity(touched.files.count + count)
        guard let remote else { return }
        if syncStates[remote] != nil {
            syncStates[remote]!.reserveCapacity(forSetting: count)
        } else {
            // Made when its first state is recorded, not now: a remote is known to the index
            // (and its snapshot) by the states it holds.
            awaitedRemote = (remote, count)
        }
    }

    /// A remote with no sync state yet, and the room its states are made with when the first is
    /// recorded (``reserveCapacity(forAdding:remote:)``).
    private var awaitedRemote: (remote: String, capacity: Int)?

    /// Records what `file` looked like when it was last read (`nil`: not to be trusted).
    mutating func setStamp(_ stamp: FileStamp?, for file: String) {
        stamps[file] = stamp
        touched.files.insert(file)
    }

    /// The live record with `uid`.
    func live(_ uid: String) -> ContactRecord? {
        guard let record = records[uid], !record.isDeleted else { return nil }
        return record
    }
}

/// What a contact looked like on a remote when it was last in step with it.
public struct RemoteSyncState: Sendable, Hashable {
    /// The document's revision (`_rev`) then.
    public var revision: String
    /// The content hash both sides held then; `nil` when the contact was deleted on both.
    public var hash: ContentHash?

    /// A sync state.
    public init(revision: String, hash: ContentHash?) {
        self.revision = revision
        self.hash = hash
    }
}
