/// A snapshot whose body is not read yet: the book runs on its ``IndexSummary`` (with the
/// ``IndexDelta`` applied, when there is one) until a call needs the whole index, which is then
/// mapped, checked, opened on its tables (``IndexSnapshot/openBody(_:from:summary:)``: nothing is
/// decoded until it is looked up) and brought up to date: the delta's changes
/// (``IndexOverlay``) are laid over it (or, for a delta without them, the journal lines between
/// the snapshot and the delta are replayed onto it), the delta's file stamps are taken, then the
/// events after the delta (checkpoints, and those recorded since opening) are applied.
struct DeferredIndex: Sendable {
    /// The snapshot file.
    var path: String
    /// The journal file.
    var journalPath: String
    /// The summary as the snapshot saved it.
    var saved: IndexSummary
    /// The summary's checksum: identifies the snapshot when its body is read.
    var summaryChecksum: UInt64
    /// The summary at the delta's journal position (`saved` itself when there is no delta).
    var covered: IndexSummary
    /// Whether ``covered`` comes from a delta (whose stamps and scan time replace the snapshot's).
    var hasDelta: Bool
    /// The files whose entries in ``covered`` differ from ``saved`` (those the delta names).
    var deltaFiles: Set<String>
    /// The delta's ``IndexOverlay``, when it has one.
    var overlay: [UInt8]? = nil
    /// The journal events after ``covered`` (checkpoints only) and their offsets.
    var tail: [(event: JournalEvent, offset: Int64)]

    /// The whole index, or `nil` when the snapshot no longer holds `saved`, its body does not
    /// decode (damaged since it was opened), or the journal replayed onto it does not give the
    /// contacts the delta counted.
    func decode(current: IndexSummary) -> BookIndex? {
        // The snapshot is mapped, not read: its tables are read where they are, one key at a time.
        // Its summary was checked when the book opened: the checksum stored after it names it.
        guard let bytes = SnapshotBytes(mapping: path),
              let bodyStart = IndexSnapshot.summaryLength(Array(bytes.buffer(0..<min(16, bytes.count)))), bodyStart <= bytes.count,
              UInt64(littleEndian: bytes.start.loadUnaligned(fromByteOffset: bodyStart - 8, as: UInt64.self)) == summaryChecksum,
              var index = IndexSnapshot.openBody(bytes, from: bodyStart, summary: saved)
        else { return nil }
        if hasDelta, let overlay, IndexOverlay.apply(overlay, to: &index) {
            // The delta's changes laid over the snapshot's tables: nothing replayed. The rest is
            // the delta's summary's.
            index.take(covered)
        } else if hasDelta {
            if overlay != nil, let reopened = IndexSnapshot.openBody(bytes, from: bodyStart, summary: saved) { index = reopened }
            let end = covered.journalSize
            do {
                try JournalFile.read(journalPath, from: saved.journalSize, firstLineNumber: saved.journalLines + 1,
                                     previousSequence: saved.lastSequence, repairHint: "") { line throws(ContactStoreError) in
                    if line.offset < end { index.apply(line.event, offset: line.offset) }
                }
            } catch {
                return nil
            }
            guard index.liveCount == covered.liveCount, index.lastSequence == covered.lastSequence else { return nil }
            index.stamps = KeyedMap(base: IndexTables.Stamps(covered.files))
            index.lastScan = covered.lastScan
        }
        for (event, offset) in tail { index.apply(event, offset: offset) }
        // `current` holds all of the above: only what changes from here on is to be tracked.
        index.touched = BookIndex.Touched()
        index.journalSize = current.journalSize
        index.journalLines = current.journalLines
        index.lastSequence = max(index.lastSequence, current.lastSequence)
        return index
    }
}
