/// What a run that finds nothing changed needs from the index, kept apart from the rest so that
/// it can be read without decoding every contact: the journal position, the counts, the
/// checkpoints, which contacts are not in step with each remote, and every tracked file's stamp.
///
/// Saved as the first section of the ``IndexSnapshot``; the rest (every record, card offset and
/// sync state) is decoded only when a run needs it (``AddressBook`` loads it on first use).
struct IndexSummary: Sendable, Equatable {
    /// A file the index knows.
    struct TrackedFile: Sendable, Equatable {
        /// What the file looked like when it was last read, when that can be trusted.
        var stamp: FileStamp?
        /// Whether it holds live contacts.
        var isLive: Bool
    }

    /// How a book stands with one remote.
    struct RemoteTally: Sendable, Equatable {
        /// The number of contacts the remote holds as this book does (live on both).
        var synced: Int
        /// The contacts whose content (or deletion) is not the one last synced: what a push sends.
        var unsynced: [String]
    }

    var journalSize: Int64 = 0
    var journalLines = 0
    var lastSequence = 0
    var lastScan: Int64 = 0
    var liveCount = 0
    var checkpoints: [String: String] = [:]
    var checkpointTimes: [String: Int64] = [:]
    /// For each remote with sync state or a checkpoint.
    var remotes: [String: RemoteTally] = [:]
    /// Every file with live contacts or a stamp, by name.
    var files = FileTable()
    /// The number of ``files`` with live contacts (set with them).
    var liveFileCount = 0

    init() {}

    /// The summary of `index`.
    /// - Parameter includingFiles: `false` leaves ``files`` empty (``liveFileCount`` is set all
    ///   the same): for a snapshot that lists the index's files from the index itself
    ///   (``SummaryFiles/init(listing:)``) instead of holding them a second time.
    init(of index: BookIndex, includingFiles: Bool = true) {
        takePositionAndCounts(of: index)
        for remote in Set(index.syncStates.keys).union(index.checkpoints.keys) {
            let states = index.syncStates[remote] ?? [:]
            var synced = 0
            states.forEachEntry { _, state in if state.hash != nil { synced += 1 } }
            remotes[remote] = RemoteTally(synced: synced, unsynced: index.unsyncedUIDs(states: states))
        }
        liveFileCount = index.uidsByFile.count
        guard includingFiles else { return }
        files.reserveCapacity(index.uidsByFile.count + index.stamps.count / 8)
        SummaryFiles.forEachFile(of: index) { name, file in files.update(bytes: name, to: file) }
    }

    /// Takes `index`'s journal position, scan time, live count and checkpoints.
    private mutating func takePositionAndCounts(of index: BookIndex) {
        journalSize = index.journalSize
        journalLines = index.journalLines
        lastSequence = index.lastSequence
        lastScan = index.lastScan
        liveCount = index.liveCount
        checkpoints = index.checkpoints
        checkpointTimes = index.checkpointTimes
    }

    /// This summary brought up to date with `index`, which was loaded from it: only the files and
    /// contacts the index marks as ``BookIndex/Touched`` are looked at, so a run that changed a
    /// few contacts of a large book does not visit every record and file. `nil` when a remote's
    /// sync state was forgotten since (the whole summary is then made again).
    func updated(with index: BookIndex) -> IndexSummary? {
        let touched = index.touched
        guard !touched.remoteForgotten else { return nil }
        var result = self
        result.takePositionAndCounts(of: index)
        var remotes: [String: RemoteTally] = [:]
        // In a UID's order of iteration, once: the remotes' loops below zip their flags with it.
        let touchedUIDs = Array(touched.uids)
        for remote in Set(index.syncStates.keys).union(index.checkpoints.keys) {
            let states = index.syncStates[remote] ?? [:]
            let synced = index.syncedCounts[remote] ?? 0
            guard let tally = self.remotes[remote] else {
                remotes[remote] = RemoteTally(synced: synced, unsynced: index.unsyncedUIDs(states: states))
                continue
            }
            var unsynced = Set(tally.unsynced)
            // Looked up on every core when there are many (a first push touches every contact).
            let flags = Parallel.map(touchedUIDs, minimumPerWorker: 4096) { index.isUnsynced($0, states: states) }
            for (uid, isUnsynced) in zip(touchedUIDs, flags) {
                if isUnsynced { unsynced.insert(uid) } else { unsynced.remove(uid) }
            }
            remotes[remote] = RemoteTally(synced: synced, unsynced: unsynced.sorted())
        }
        result.remotes = remotes
        // Looked up on every core when there are many (an import or a first pull touches every file).
        let touchedFiles = Array(touched.files)
        let entries = Parallel.map(touchedFiles, minimumPerWorker: 4096) { file -> TrackedFile? in
            index.uidsByFile[file] != nil ? TrackedFile(stamp: index.stamps[file], isLive: true)
                : index.stamps[file].map { TrackedFile(stamp: $0, isLive: false) }
        }
        for (file, entry) in zip(touchedFiles, entries) {
            let old = entry.map { result.files.updateValue($0, forKey: file) } ?? result.files.removeValue(forKey: file)
            if old?.isLive == true { result.liveFileCount -= 1 }
            if entry?.isLive == true { result.liveFileCount += 1 }
        }
        return result
    }

    /// Applies a `checkpoint` event appended after the summary was made (the only kind of event
    /// a book applies without loading its whole index).
    mutating func applyCheckpoint(_ event: JournalEvent) {
        lastSequence = max(lastSequence, event.sequence)
        guard let remote = event.remote, let position = event.checkpoint else { return }
        if position.isEmpty {
            checkpoints[remote] = nil
            remotes[remote] = nil
        } else {
            checkpoints[remote] = position
        }
        checkpointTimes[remote] = event.timestamp
    }
}

extension BookIndex {
    /// The contacts whose content is not the one last synced (`states`): live ones with other
    /// content, and deleted ones the remote still holds; sorted.
    func unsyncedUIDs(states: KeyedMap<String, RemoteSyncState>) -> [String] {
        var uids: [String] = []
        records.forEachEntry { uid, record in
            let state = states[uid]
            if (record.hash != nil || state != nil) && Self.isUnsynced(record, state: state) { uids.append(uid) }
        }
        return uids.sorted()
    }

    /// Whether contact `uid` is among ``unsyncedUIDs(states:)``.
    func isUnsynced(_ uid: String, states: KeyedMap<String, RemoteSyncState>) -> Bool {
        guard let record = records[uid] else { return false }
        return Self.isUnsynced(record, state: states[uid])
    }

    /// A live contact whose content is not the one last synced, or a deleted one the remote still holds.
    private static func isUnsynced(_ record: ContactRecord, state: RemoteSyncState?) -> Bool {
        if let hash = record.hash { return state?.hash != hash }
        return state?.hash != nil
    }
}

/// The files a snapshot's summary lists, by where they are read: an ``IndexSummary``'s table,
/// or an index's own maps (every file with live contacts, then every other stamped file), so
/// that saving the snapshot of a large index does not first copy every file name and stamp into
/// a table (6 MB at 100,000 contacts, at the moment memory is highest).
struct SummaryFiles {
    private enum Source {
        case table(FileTable)
        case index(BookIndex)
    }

    private let source: Source
    /// The number of files listed (counted once: the summary is written in two passes).
    let count: Int

    /// The files of a summary's table.
    init(_ table: FileTable) {
        source = .table(table)
        count = table.count
    }

    /// The files `index` tracks, read from its maps.
    init(listing index: BookIndex) {
        source = .index(index)
        var count = index.uidsByFile.count
        index.stamps.forEachEntry { file, _ in if index.uidsByFile[file] == nil { count += 1 } }
        self.count = count
    }

    /// Calls `body` with each file's name (UTF-8) and what is tracked of it, in the same order each time.
    func forEach(_ body: (UnsafeBufferPointer<UInt8>, IndexSummary.TrackedFile) -> Void) {
        switch source {
        case .table(let table): table.forEachEntry(body)
        case .index(let index): Self.forEachFile(of: index, body)
        }
    }

    /// Every file `index` tracks: those with live contacts, then every other stamped file.
    static func forEachFile(of index: BookIndex, _ body: (UnsafeBufferPointer<UInt8>, IndexSummary.TrackedFile) -> Void) {
        index.uidsByFile.forEachEntry { file, _ in
            withBytes(of: file) { body($0, IndexSummary.TrackedFile(stamp: index.stamps[file], isLive: true)) }
        }
        index.stamps.forEachEntry { file, stamp in
            guard index.uidsByFile[file] == nil else { return }
            withBytes(of: file) { body($0, IndexSummary.TrackedFile(stamp: stamp, isLive: false)) }
        }
    }

    private static func withBytes(of name: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var name = name
        name.withUTF8(body)
    }
}
