/// What a run changed in the index since its snapshot (`index.bin`, the base) was saved,
/// saved beside it as `.cardsync/index.delta` so that a run that changes a few contacts does not
/// rewrite (or, when it finds nothing else to do, decode) the whole base.
///
/// The delta holds the index's changes since the base (``IndexOverlay``: records, UID lists,
/// card offsets, sync states), laid over the base's tables when the whole index is needed, so
/// nothing is replayed; a delta without them has the journal lines between the base's journal
/// position and its own replayed onto the base instead (the journal is the source of truth for
/// contacts, card offsets and sync state). The delta also keeps what the journal does not hold,
/// or what a run that finds nothing changed needs without reading the rest: the summary as it stands at the delta's
/// journal position (counts, checkpoints, what each remote lacks), the stamps of the files that
/// differ from the base's (written, read or removed since), and when the folder was last scanned.
///
/// A delta names its base by the base summary's checksum and is used only with that base and
/// only when the journal line that ends at its position has its sequence number; otherwise
/// (missing, torn, damaged, of another base) it is ignored and the journal lines after the base
/// are replayed instead, which also gives the index back (only the stamps of files changed since
/// the base are then not trusted, so those files are read once more).
struct IndexDelta: Sendable, Equatable {
    /// The checksum of the base snapshot's summary.
    var baseChecksum: UInt64
    /// The summary at the delta's journal position, whose ``IndexSummary/files`` holds only the
    /// files whose entry differs from the base's.
    var summary: IndexSummary
    /// The files the base tracks that are no longer tracked.
    var removedFiles: [String]
    /// The index's changes since the base (``IndexOverlay``), when it was opened on the base's
    /// tables; otherwise (`nil`) the journal lines after the base are replayed.
    var overlay: [UInt8]?

    init(baseChecksum: UInt64, summary: IndexSummary, removedFiles: [String]) {
        self.baseChecksum = baseChecksum
        self.summary = summary
        self.removedFiles = removedFiles
    }

    /// The delta that turns `base` (whose checksum is `baseChecksum`) into `current`.
    ///
    /// - Parameter candidates: when given, the only files whose entries can differ between `base`
    ///   and `current` (those of the delta the book was opened with and those changed since): only
    ///   they are compared, instead of every file of the book.
    init(from base: IndexSummary, baseChecksum: UInt64, to current: IndexSummary, candidates: Set<String>? = nil) {
        self.baseChecksum = baseChecksum
        var summary = current
        summary.liveFileCount = 0
        if let candidates {
            summary.files = [:]
            for file in candidates {
                if let entry = current.files[file], base.files[file] != entry { summary.files[file] = entry }
            }
            removedFiles = candidates.filter { base.files[$0] != nil && current.files[$0] == nil }.sorted()
        } else {
            summary.files = current.files.filter { name, file in base.files[bytes: name] != file }
            var removed: [String] = []
            base.files.forEachEntry { name, _ in
                if current.files[bytes: name] == nil { removed.append(String(decoding: name, as: UTF8.self)) }
            }
            removedFiles = removed.sorted()
        }
        self.summary = summary
    }

    /// The names of the files the delta holds an entry for or removes.
    var fileNames: Set<String> { Set(summary.files.names).union(removedFiles) }

    /// The number of file entries the delta holds (changed and removed).
    var fileCount: Int { summary.files.count + removedFiles.count }

    /// The whole summary: `base` with this delta applied.
    func applied(to base: IndexSummary) -> IndexSummary {
        var result = summary
        var files = base.files
        var liveFileCount = base.liveFileCount
        for file in removedFiles {
            if let old = files.removeValue(forKey: file), old.isLive { liveFileCount -= 1 }
        }
        summary.files.forEachEntry { file, tracked in
            if let old = files.update(bytes: file, to: tracked), old.isLive { liveFileCount -= 1 }
            if tracked.isLive { liveFileCount += 1 }
        }
        result.files = files
        result.liveFileCount = liveFileCount
        return result
    }

    /// The most journal lines after the base, and the most file entries in the delta, before the
    /// base is rewritten instead: a fifth of the book's contacts (a change is usually two lines:
    /// the content, then the sync state), at least 2,048. Replaying that many lines when the
    /// whole index is needed costs far less than decoding the base.
    static func limit(liveCount: Int) -> Int {
        max(2048, liveCount / 5)
    }
}
