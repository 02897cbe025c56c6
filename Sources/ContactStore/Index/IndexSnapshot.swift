import VCardKit

/// The derived index saved to `.cardsync/index.bin`, so that opening a book reads one compact
/// file and replays only the journal lines written after it.
///
/// First the ``IndexSummary`` (journal position, counts, checkpoints, what each remote lacks,
/// every tracked file's stamp), with its checksum: all a run that finds nothing changed needs.
/// Then the body, in sections that each carry their length and checksum: the remotes, then one
/// hashed table a section (``SnapshotTable``): every record by UID, the live contacts by file and
/// by content, the card offsets by content, and each remote's sync states by UID. The body is
/// never decoded as a whole: the file is mapped, the checksums are checked on every core, and the
/// index's maps (``KeyedMap``) look up the keys a run needs in the tables where they lie. A run
/// that changes a few contacts leaves the snapshot as it is and saves an ``IndexDelta`` beside
/// it. The snapshot names the journal size, line count and last
/// sequence number it reflects. It is used only when the journal line that ends at that size
/// has that sequence number; otherwise (missing, damaged, stale, or the journal was compacted)
/// the index is rebuilt from the journal. The format is private to cardsync and may change
/// between versions: it is derived data.
enum IndexSnapshot {
    private static let magic = Array("CSIDX008".utf8)

    /// The snapshot's bytes.
    /// - Parameter keptEntriesLimit: the most entries a table keeps between the two passes
    ///   that make it (``keptEntriesLimit``, unless a test chooses).
    static func encode(_ index: BookIndex, keptEntriesLimit: Int = keptEntriesLimit) -> [UInt8] {
        var all: [UInt8] = []
        encode(index, keptEntriesLimit: keptEntriesLimit) { all.append(contentsOf: $0) }
        return all
    }

    /// Encodes the snapshot in pieces handed to `emit` (the summary, then each section), so that
    /// saving a large index holds a megabyte or so of its bytes besides the index (and a table's
    /// slots).
    /// - Parameters:
    ///   - summary: the index's summary when the caller has it up to date (otherwise it is made
    ///     from every record and file of the index).
    ///   - keptEntriesLimit: the most entries a table keeps between the two passes that make it.
    static func encode(_ index: BookIndex, summary: IndexSummary? = nil, keptEntriesLimit: Int = keptEntriesLimit,
                       emit: ([UInt8]) -> Void) {
        for part in Part.allCases { encode(index, summary: summary, part: part, keptEntriesLimit: keptEntriesLimit, emit: emit) }
    }

    /// The parts of the snapshot, in order: each part's bytes follow the one before. The last
    /// two are about equal work (at 100,000 contacts), so they can be made at once, one on each
    /// core, once the summary is written (whose memory is let go before they start).
    enum Part: Sendable, CaseIterable {
        /// The start of the snapshot: the summary and the body's directory (the remotes).
        case summary
        /// The table of every record by UID and the table of the live contacts by file.
        case contacts
        /// The live contacts by content, the card offsets, and each remote's sync states.
        case rest
    }

    /// Encodes `part` of the snapshot in pieces handed to `emit`, as ``encode(_:summary:keptEntriesLimit:emit:)``
    /// does the whole.
    static func encode(_ index: BookIndex, summary: IndexSummary? = nil, part: Part, keptEntriesLimit: Int = keptEntriesLimit,
                       emit: ([UInt8]) -> Void) {
        // The body: a directory (the remotes), then one table a section, each with its length and
        // checksum: the contacts, the live ones by file and by content, the card offsets, then
        // each remote's sync states. Each made and written on its own.
        let remotes = index.syncStates.keys.sorted()
        switch part {
        case .summary:
            if let summary {
                emitSummary(summary, files: SummaryFiles(summary.files), emit)
            } else {
                // The files are listed from the index's own maps, not copied into a summary's table first.
                emitSummary(IndexSummary(of: index, includingFiles: false), files: SummaryFiles(listing: index), emit)
            }
            var directory = ByteWriter()
            directory.int(Int64(remotes.count))
            for remote in remotes { directory.string(remote) }
            emitSection(directory.bytes, emit)
        case .contacts:
            emitTable(index.records, emit, keptEntriesLimit, key: IndexTables.appendKey, encode: IndexTables.encode)
            emitTable(index.uidsByFile, emit, keptEntriesLimit, key: IndexTables.appendKey, encode: IndexTables.encode)
        case .rest:
            emitTable(index.uidsByHash, emit, keptEntriesLimit, key: IndexTables.appendKey, encode: IndexTables.encode)
            emitTable(index.cardOffsets, emit, keptEntriesLimit, key: IndexTables.appendKey, encode: { offset, out in out.int(offset) })
            for remote in remotes {
                emitTable(index.syncStates[remote] ?? [:], emit, keptEntriesLimit, key: IndexTables.appendKey, encode: IndexTables.encode)
            }
        }
    }

    /// The most entries a table keeps between the two passes that make it: every table of a
    /// book of up to about sixteen thousand contacts (see `emitTable`).
    static let keptEntriesLimit = 16_384

    /// Emits the table of `map` as a body section, made in two passes over its entries
    /// (``SnapshotTableWriter``): a large table's entries are written as they are encoded, a
    /// block at a time, never held whole; a table of at most `keptEntriesLimit` entries keeps the
    /// bytes its first pass encoded for the second. Entries of its base that did not change are
    /// copied as they are, not decoded and encoded again.
    private static func emitTable<Key, Value>(_ map: KeyedMap<Key, Value>, _ emit: ([UInt8]) -> Void, _ keptEntriesLimit: Int,
                                              key appendKey: (Key, inout [UInt8]) -> Void,
                                              encode: (Value, inout SnapshotValueWriter) -> Void) {
        if let section = map.unchangedSection {
            emitVerbatim(section, emit)
            return
        }
        var scratch = SnapshotValueWriter()
        var keyBytes: [UInt8] = []
        // Every entry's key and value bytes, in the same order each time: the base's that did not
        // change, then the rest (every entry when nothing was copied), encoded.
        func forEachEntry(_ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Void) {
            let copied = map.forEachUnchangedEncodedEntry(body)
            let visit = copied ? map.forEachChangedEntry : map.forEachEntry
            visit { key, value in
                encode(value, &scratch)
                appendKey(key, &keyBytes)
                keyBytes.withUnsafeBytes { key in scratch.bytes.withUnsafeBytes { body(key, $0) } }
                scratch.bytes.removeAll(keepingCapacity: true)
                keyBytes.removeAll(keepingCapacity: true)
            }
        }
        // A small table (every table of a book of up to about sixteen thousand contacts) keeps
        // the entries its first pass made for the second, instead of visiting and encoding them
        // again; a larger one is made twice rather than held (a large book saves its index when
        // its memory is at its highest).
        let keepsEntries = map.count <= keptEntriesLimit
        var kept: [UInt8] = []
        var keptEnds: [Int] = []
        if keepsEntries { keptEnds.reserveCapacity(2 * map.count) }
        var writer = SnapshotTableWriter(capacity: map.count)
        forEachEntry { key, value in
            writer.place(key: key, valueLength: value.count)
            guard keepsEntries else { return }
            kept.append(contentsOf: key)
            keptEnds.append(kept.count)
            kept.append(contentsOf: value)
            keptEnds.append(kept.count)
        }
        let head = writer.head()
        var frame = ByteWriter()
        frame.int(Int64(head.count + writer.entriesLength))
        emit(frame.bytes)
        var section = SnapshotSectionStream()
        head.withUnsafeBytes { section.append($0, emit: emit) }
        if keepsEntries {
            kept.withUnsafeBytes { bytes in
                var start = 0
                for pair in stride(from: 0, to: keptEnds.count, by: 2) {
                    let keyEnd = keptEnds[pair]
                    let valueEnd = keptEnds[pair + 1]
                    section.append(key: UnsafeRawBufferPointer(rebasing: bytes[start..<keyEnd]),
                                   value: UnsafeRawBufferPointer(rebasing: bytes[keyEnd..<valueEnd]), emit: emit)
                    start = valueEnd
                }
            }
        } else {
            forEachEntry { key, value in section.append(key: key, value: value, emit: emit) }
        }
        section.finish(emit)
        precondition(section.length == head.count + writer.entriesLength, "a snapshot table's entries differ between its two passes")
        frame.bytes.removeAll()
        frame.int(Int64(bitPattern: section.checksum.value))
        emit(frame.bytes)
    }

    /// Emits a section of the snapshot the index was opened from as it is, with its length and
    /// its checksum (checked when the snapshot was opened), a megabyte at a time.
    private static func emitVerbatim(_ section: (bytes: UnsafeRawBufferPointer, checksum: UInt64), _ emit: ([UInt8]) -> Void) {
        var frame = ByteWriter()
        frame.int(Int64(section.bytes.count))
        emit(frame.bytes)
        var start = 0
        while start < section.bytes.count {
            let end = min(start + (1 << 20), section.bytes.count)
            emit(Array(UnsafeRawBufferPointer(rebasing: section.bytes[start..<end])))
            start = end
        }
        frame.bytes.removeAll()
        frame.int(Int64(bitPattern: section.checksum))
        emit(frame.bytes)
    }

    /// Emits the start of the snapshot: the magic, the summary's length, its bytes and their
    /// checksum. The summary's bytes are not copied, and are freed before the body is made.
    /// - Parameter files: where the summary's files are read (its ``IndexSummary/files`` are not).
    private static func emitSummary(_ summary: IndexSummary, files: SummaryFiles, _ emit: ([UInt8]) -> Void) {
        // Two passes: the first counts the summary's bytes, the second writes them a block at a
        // time (the summary names every file: megabytes for a large book).
        var length = ByteCounter()
        encodeSummary(summary, files: files, into: &length)
        var frame = ByteWriter()
        frame.bytes.append(contentsOf: magic)
        frame.int(Int64(length.count))
        emit(frame.bytes)
        let checksum = withoutActuallyEscaping(emit) { emit in
            var stream = ByteStream(emit: emit)
            encodeSummary(summary, files: files, into: &stream)
            stream.finish()
            precondition(stream.section.length == length.count, "the snapshot's summary differs between its two passes")
            return stream.section.checksum.value
        }
        frame.bytes.removeAll()
        frame.int(Int64(bitPattern: checksum))
        emit(frame.bytes)
    }

    /// Emits a body section: its length, its bytes, their checksum.
    private static func emitSection(_ bytes: [UInt8], _ emit: ([UInt8]) -> Void) {
        var frame = ByteWriter()
        frame.int(Int64(bytes.count))
        emit(frame.bytes)
        emit(bytes)
        frame.bytes.removeAll()
        frame.int(Int64(bitPattern: SnapshotChecksum.of(bytes)))
        emit(frame.bytes)
    }

    private static func encodeSummary(_ summary: IndexSummary, files: SummaryFiles, into out: inout some ByteOutput) {
        out.int(summary.journalSize)
        out.int(Int64(summary.journalLines))
        out.int(Int64(summary.lastSequence))
        out.int(summary.lastScan)
        out.int(Int64(summary.liveCount))
        out.int(Int64(summary.checkpoints.count))
        for (remote, position) in summary.checkpoints {
            out.string(remote)
            out.string(position)
        }
        out.int(Int64(summary.checkpointTimes.count))
        for (remote, time) in summary.checkpointTimes {
            out.string(remote)
            out.int(time)
        }
        out.int(Int64(summary.remotes.count))
        for (remote, tally) in summary.remotes {
            out.string(remote)
            out.int(Int64(tally.synced))
            out.int(Int64(tally.unsynced.count))
            for uid in tally.unsynced { out.string(uid) }
        }
        out.int(Int64(files.count))
        files.forEach { file, tracked in
            out.int(Int64(file.count))
            out.append(UnsafeRawBufferPointer(file))
            out.byte((tracked.isLive ? 1 : 0) | (tracked.stamp == nil ? 0 : 2))
            if let stamp = tracked.stamp {
                out.int(stamp.size)
                out.int(stamp.modified)
                out.int(stamp.changed)
                out.int(Int64(bitPattern: stamp.inode))
            }
        }
    }

    /// The length of the snapshot's start that holds the summary, read from its first 16
    /// bytes; `nil` when they do not start a snapshot.
    static func summaryLength(_ start: [UInt8]) -> Int? {
        guard start.count >= magic.count + 8, start.starts(with: magic) else { return nil }
        var input = ByteReader(bytes: start, position: magic.count)
        guard let length = input.int(), length >= 0, length < Int64(Int32.max) else { return nil }
        return magic.count + 8 + Int(length) + 8
    }

    /// The stored checksum of the summary at the start of `bytes` when it matches the summary's
    /// bytes, and where the body starts: identifies a snapshot without decoding its summary.
    static func summaryChecksum(_ bytes: [UInt8]) -> (checksum: UInt64, bodyStart: Int)? {
        guard let bodyStart = summaryLength(Array(bytes.prefix(magic.count + 8))), bodyStart <= bytes.count else { return nil }
        var trailer = ByteReader(bytes: bytes, position: bodyStart - 8)
        guard let stored = trailer.int(), UInt64(bitPattern: stored) == SnapshotChecksum.of(bytes[(magic.count + 8)..<(bodyStart - 8)])
        else { return nil }
        return (UInt64(bitPattern: stored), bodyStart)
    }

    /// The summary saved at the start of `bytes` (the whole snapshot, or its first
    /// ``summaryLength(_:)`` bytes) and where the body starts, or `nil` when that start is not a
    /// valid snapshot (the summary's checksum is checked; the body's is checked when decoded).
    static func decodeSummary(_ bytes: [UInt8]) -> (summary: IndexSummary, bodyStart: Int)? {
        guard let bodyStart = summaryLength(Array(bytes.prefix(magic.count + 8))), bodyStart <= bytes.count else { return nil }
        var input = ByteReader(bytes: bytes, position: magic.count + 8)
        let headerStart = magic.count + 8
        let headerEnd = bodyStart - 8
        var trailer = ByteReader(bytes: bytes, position: headerEnd)
        guard let headerSum = trailer.int(), UInt64(bitPattern: headerSum) == SnapshotChecksum.of(bytes[headerStart..<headerEnd]) else { return nil }
        guard let summary = decodeSummaryFields(&input) else { return nil }
        guard input.position == headerEnd else { return nil }
        return (summary, bodyStart)
    }

    /// Reads the summary's fields (as ``encodeSummary(_:files:into:)`` wrote them) from `input`.
    private static func decodeSummaryFields(_ input: inout ByteReader) -> IndexSummary? {
        var summary = IndexSummary()
        guard let size = input.int(), let lines = input.int(), let sequence = input.int(), let lastScan = input.int(),
              let live = input.int(), let checkpointCount = input.int(), checkpointCount >= 0 else { return nil }
        summary.journalSize = size
        summary.journalLines = Int(lines)
        summary.lastSequence = Int(sequence)
        summary.lastScan = lastScan
        summary.liveCount = Int(live)
        for _ in 0..<checkpointCount {
            guard let remote = input.string(), let position = input.string() else { return nil }
            summary.checkpoints[remote] = position
        }
        guard let timeCount = input.int(), timeCount >= 0 else { return nil }
        for _ in 0..<timeCount {
            guard let remote = input.string(), let time = input.int() else { return nil }
            summary.checkpointTimes[remote] = time
        }
        guard let remoteCount = input.int(), remoteCount >= 0 else { return nil }
        for _ in 0..<remoteCount {
            guard let remote = input.string(), let synced = input.int(), let count = input.int(), count >= 0 else { return nil }
            var unsynced: [String] = []
            for _ in 0..<count {
                guard let uid = input.string() else { return nil }
                unsynced.append(uid)
            }
            summary.remotes[remote] = IndexSummary.RemoteTally(synced: Int(synced), unsynced: unsynced)
        }
        guard let fileCount = input.int(), fileCount >= 0 else { return nil }
        summary.files.reserveCapacity(Int(min(fileCount, 1 << 24)))
        for _ in 0..<fileCount {
            // The name's bytes go into the table as they stand (no String per file).
            guard let file = input.stringRange(), let flags = input.byte() else { return nil }
            var tracked = IndexSummary.TrackedFile(stamp: nil, isLive: flags & 1 != 0)
            if flags & 2 != 0 {
                guard let size = input.int(), let modified = input.int(), let changed = input.int(), let inode = input.int() else { return nil }
                tracked.stamp = FileStamp(size: size, modified: modified, changed: changed, inode: UInt64(bitPattern: inode))
            }
            let replaced = input.bytes.withUnsafeBufferPointer { summary.files.update(bytes: UnsafeBufferPointer(rebasing: $0[file]), to: tracked) }
            if replaced?.isLive == true { summary.liveFileCount -= 1 }
            if tracked.isLive { summary.liveFileCount += 1 }
        }
        return summary
    }

    private static let deltaMagic = Array("CSDLT003".utf8)

    /// The bytes of `delta` (``IndexDelta``): a magic, the base's summary checksum, the
    /// length of the rest, the summary fields (with the changed files only), the removed files,
    /// the length of the ``IndexOverlay`` (-1: none) and its bytes, and a checksum of all but
    /// the magic.
    static func encodeDelta(_ delta: IndexDelta) -> [UInt8] {
        var payload = ByteWriter()
        encodeSummary(delta.summary, files: SummaryFiles(delta.summary.files), into: &payload)
        payload.int(Int64(delta.removedFiles.count))
        for file in delta.removedFiles { payload.string(file) }
        if let overlay = delta.overlay {
            payload.int(Int64(overlay.count))
            payload.bytes.append(contentsOf: overlay)
        } else {
            payload.int(-1)
        }
        var out = ByteWriter()
        out.bytes.append(contentsOf: deltaMagic)
        out.int(Int64(bitPattern: delta.baseChecksum))
        out.int(Int64(payload.bytes.count))
        out.bytes.append(contentsOf: payload.bytes)
        out.int(Int64(bitPattern: SnapshotChecksum.of(out.bytes[deltaMagic.count...])))
        return out.bytes
    }

    /// The delta saved in `bytes`, or `nil` when they are not a whole, undamaged delta (a torn
    /// write, a flipped byte, another file).
    static func decodeDelta(_ bytes: [UInt8]) -> IndexDelta? {
        let payloadStart = deltaMagic.count + 16
        guard bytes.count >= payloadStart + 8, bytes.starts(with: deltaMagic) else { return nil }
        var input = ByteReader(bytes: bytes, position: deltaMagic.count)
        guard let base = input.int(), let length = input.int(), length >= 0, Int64(payloadStart) + length + 8 == Int64(bytes.count)
        else { return nil }
        let payloadEnd = payloadStart + Int(length)
        var trailer = ByteReader(bytes: bytes, position: payloadEnd)
        guard let stored = trailer.int(), UInt64(bitPattern: stored) == SnapshotChecksum.of(bytes[deltaMagic.count..<payloadEnd]),
              let summary = decodeSummaryFields(&input), let removedCount = input.int(), removedCount >= 0
        else { return nil }
        var removed: [String] = []
        for _ in 0..<removedCount {
            guard let file = input.string() else { return nil }
            removed.append(file)
        }
        guard let overlayLength = input.int(), overlayLength >= -1, overlayLength <= Int64(payloadEnd - input.position) else { return nil }
        var delta = IndexDelta(baseChecksum: UInt64(bitPattern: base), summary: summary, removedFiles: removed)
        if overlayLength >= 0 {
            delta.overlay = Array(bytes[input.position..<(input.position + Int(overlayLength))])
            input.position += Int(overlayLength)
        }
        guard input.position == payloadEnd else { return nil }
        return delta
    }

    /// The index saved in `bytes`, or `nil` when they are not a valid snapshot.
    static func decode(_ bytes: [UInt8]) -> BookIndex? {
        guard let (summary, bodyStart) = decodeSummary(bytes) else { return nil }
        return openBody(SnapshotBytes(copying: bytes), from: bodyStart, summary: summary)
    }

    /// The whole index: `summary` and the body of `bytes` (the whole snapshot) from
    /// `bodyStart`, its maps reading the body's tables one key at a time; `nil` when a section's
    /// checksum does not match (all are checked here, on every core) or its layout is wrong.
    static func openBody(_ bytes: SnapshotBytes, from bodyStart: Int, summary: IndexSummary) -> BookIndex? {
        // The sections' places, from their lengths.
        var sections: [Range<Int>] = []
        var position = bodyStart
        while position < bytes.count {
            guard position + 8 <= bytes.count else { return nil }
            let length = Int64(littleEndian: bytes.start.loadUnaligned(fromByteOffset: position, as: Int64.self))
            guard length >= 0, length <= Int64(bytes.count - position - 16) else { return nil }
            sections.append((position + 8)..<(position + 8 + Int(length)))
            position += 16 + Int(length)
        }
        guard position == bytes.count, sections.count >= 5 else { return nil }
        let checksums = Parallel.map(sections, minimumPerWorker: 1) { range -> UInt64? in
            let stored = UInt64(littleEndian: bytes.start.loadUnaligned(fromByteOffset: range.upperBound, as: UInt64.self))
            var checksum = SnapshotChecksum()
            checksum.update(bytes.buffer(range))
            return checksum.value == stored ? stored : nil
        }
        guard !checksums.contains(nil) else { return nil }
        let directory = Array(bytes.buffer(sections[0]))
        var input = ByteReader(bytes: directory, position: 0)
        guard let remoteCount = input.int(), remoteCount == Int64(sections.count - 5) else { return nil }
        var remotes: [String] = []
        for _ in 0..<remoteCount {
            guard let remote = input.string() else { return nil }
            remotes.append(remote)
        }
        guard input.position == directory.count else { return nil }
        var tables: [SnapshotTable] = []
        for (range, checksum) in zip(sections, checksums).dropFirst() {
            guard var table = SnapshotTable(bytes, at: range.lowerBound, end: range.upperBound), table.end == range.upperBound
            else { return nil }
            table.verifiedChecksum = checksum
            tables.append(table)
        }
        var index = BookIndex()
        index.records = KeyedMap(base: IndexTables.records(tables[0]))
        index.uidsByFile = KeyedMap(base: IndexTables.uidsByFile(tables[1]))
        index.uidsByHash = KeyedMap(base: IndexTables.uidsByHash(tables[2]))
        index.cardOffsets = KeyedMap(base: IndexTables.cardOffsets(tables[3]))
        for (remote, table) in zip(remotes, tables.dropFirst(4)) {
            index.syncStates[remote] = KeyedMap(base: IndexTables.syncStates(table))
        }
        index.snapshotRemotes = remotes
        index.take(summary)
        return index
    }
}

/// A fast 64-bit checksum of the snapshot's sections: four independent lanes of eight bytes each
/// take 32 bytes a step, so the multiplications of one lane do not wait for another's (about
/// four times the speed of one lane, which mattered: a book opened for a small change checks
/// its whole snapshot). It guards against torn and damaged files, not against anyone forging
/// one. The value does not depend on how the bytes were split between calls to ``update(_:)``.
struct SnapshotChecksum {
    private var lanes: (UInt64, UInt64, UInt64, UInt64) = (0x9E37_79B9_7F4A_7C15, 0xBF58_476D_1CE4_E5B9,
                                                           0x94D0_49BB_1331_11EB, 0xD6E8_FEB8_6659_FD93)
    /// Bytes of an unfinished 32-byte block (fewer than 32).
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    /// The checksum of `bytes`.
    static func of(_ bytes: some Collection<UInt8>) -> UInt64 {
        var sum = SnapshotChecksum()
        sum.update(bytes)
        return sum.value
    }

    private static func mix(_ state: UInt64, _ word: UInt64) -> UInt64 {
        var value = (state ^ word) &* 0xFF51_AFD7_ED55_8CCD
        value = (value << 31) | (value >> 33)
        return value &* 0xC4CE_B9FE_1A85_EC53
    }

    mutating func update(_ bytes: some Collection<UInt8>) {
        let handled = bytes.withContiguousStorageIfAvailable { buffer -> Bool in
            update(UnsafeRawBufferPointer(buffer))
            return true
        } ?? false
        if !handled { Array(bytes).withUnsafeBytes { update($0) } }
    }

    mutating func update(_ raw: UnsafeRawBufferPointer) {
        length &+= UInt64(raw.count)
        var offset = 0
        if !pending.isEmpty {
            offset = min(32 - pending.count, raw.count)
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[..<offset]))
            guard pending.count == 32 else { return }
            pending.withUnsafeBytes { consumeBlocks($0) }
            pending.removeAll(keepingCapacity: true)
        }
        let whole = (raw.count - offset) / 32 * 32
        if whole > 0 { consumeBlocks(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + whole)])) }
        offset += whole
        if offset < raw.count { pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[offset...])) }
    }

    /// Takes `blocks`, whose length is a multiple of 32, into the four lanes.
    private mutating func consumeBlocks(_ blocks: UnsafeRawBufferPointer) {
        var (a, b, c, d) = lanes
        var offset = 0
        while offset < blocks.count {
            a = Self.mix(a, UInt64(littleEndian: blocks.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            b = Self.mix(b, UInt64(littleEndian: blocks.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)))
            c = Self.mix(c, UInt64(littleEndian: blocks.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self)))
            d = Self.mix(d, UInt64(littleEndian: blocks.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self)))
            offset += 32
        }
        lanes = (a, b, c, d)
    }

    /// The checksum of everything given so far: the lanes in order, then the unfinished
    /// block's bytes eight at a time (the last word padded with zeros), then the length.
    var value: UInt64 {
        var value = Self.mix(Self.mix(Self.mix(Self.mix(0, lanes.0), lanes.1), lanes.2), lanes.3)
        var word: UInt64 = 0
        for (position, byte) in pending.enumerated() {
            word |= UInt64(byte) << (8 * UInt64(position % 8))
            if position % 8 == 7 {
                value = Self.mix(value, word)
                word = 0
            }
        }
        if pending.count % 8 != 0 { value = Self.mix(value, word) }
        return Self.mix(value, length)
    }
}

/// Where the snapshot's fields are written: an array (``ByteWriter``), a count of their bytes
/// (``ByteCounter``), or blocks handed on as they fill (``ByteStream``).
private protocol ByteOutput {
    mutating func append(_ bytes: UnsafeRawBufferPointer)
}

extension ByteOutput {
    mutating func int(_ value: Int64) {
        withUnsafeBytes(of: value.littleEndian) { append($0) }
    }

    mutating func byte(_ value: UInt8) {
        withUnsafeBytes(of: value) { append($0) }
    }

    mutating func string(_ value: String) {
        var value = value
        int(Int64(value.utf8.count))
        value.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }
}

private struct ByteWriter: ByteOutput {
    var bytes: [UInt8] = []

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        self.bytes.append(contentsOf: bytes)
    }
}

/// Counts the bytes written.
private struct ByteCounter: ByteOutput {
    var count = 0

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        count += bytes.count
    }
}

/// Hands the bytes written to `emit` in blocks (``SnapshotSectionStream``), keeping their
/// length and checksum.
private struct ByteStream: ByteOutput {
    let emit: ([UInt8]) -> Void
    private(set) var section = SnapshotSectionStream()

    init(emit: @escaping ([UInt8]) -> Void) {
        self.emit = emit
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        section.append(bytes, emit: emit)
    }

    /// Hands on what is left.
    mutating func finish() {
        section.finish(emit)
    }
}

private struct ByteReader {
    let bytes: [UInt8]
    var position: Int

    mutating func int() -> Int64? {
        guard position >= 0, position + 8 <= bytes.count else { return nil }
        // Little-endian, as ByteWriter wrote it; one unaligned load instead of eight byte reads.
        let value = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: position, as: UInt64.self)) }
        position += 8
        return Int64(bitPattern: value)
    }

    mutating func byte() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func string() -> String? {
        guard let length = int(), length >= 0, length <= bytes.count - position else { return nil }
        defer { position += Int(length) }
        return String(decoding: bytes[position..<(position + Int(length))], as: UTF8.self)
    }

    /// Where the next length-prefixed string's bytes are, skipping them.
    mutating func stringRange() -> Range<Int>? {
        guard let length = int(), length >= 0, length <= bytes.count - position else { return nil }
        defer { position += Int(length) }
        return position..<(position + Int(length))
    }
}
