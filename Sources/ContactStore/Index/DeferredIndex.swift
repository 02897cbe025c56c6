/// A snapshot whose body is not read yet: the book runs on its ``IndexSummary`` until a call
/// needs the whole index, which is then read, checked, decoded and brought up to date with the
/// checkpoint events appended to the journal since the snapshot was saved.
struct DeferredIndex: Sendable {
    /// The snapshot file.
    var path: String
    /// The summary as the snapshot saved it.
    var saved: IndexSummary
    /// The summary's checksum: identifies the snapshot when its body is read.
    var summaryChecksum: UInt64
    /// The journal events after the snapshot (checkpoints only) and their offsets.
    var tail: [(event: JournalEvent, offset: Int64)]

    /// The whole index, or `nil` when the snapshot no longer holds `saved` or its body does not
    /// decode (damaged since it was opened).
    func decode(current: IndexSummary) -> BookIndex? {
        guard let bytes = try? POSIX.readFile(path).bytes, let (checksum, bodyStart) = IndexSnapshot.summaryChecksum(bytes),
              checksum == summaryChecksum
        else { return nil }
        return Self.decode(bytes, bodyStart: bodyStart, saved: saved, tail: tail, current: current)
    }

    /// The index in the snapshot `bytes` whose summary is `saved`, with `tail` applied.
    static func decode(_ bytes: [UInt8], bodyStart: Int, saved: IndexSummary, tail: [(event: JournalEvent, offset: Int64)],
                       current: IndexSummary) -> BookIndex? {
        guard var index = IndexSnapshot.decodeBody(bytes, from: bodyStart, summary: saved) else { return nil }
        for (event, offset) in tail { index.apply(event, offset: offset) }
        index.journalSize = current.journalSize
        index.journalLines = current.journalLines
        index.lastSequence = max(index.lastSequence, current.lastSequence)
        return index
    }
}
