import VCardKit

/// The derived index saved to `.cardsync/index.bin`, so that opening a book reads one compact
/// file and replays only the journal lines written after it.
///
/// Two sections, each with its own checksum: the ``IndexSummary`` (journal position, counts,
/// checkpoints, what each remote lacks, every tracked file's stamp), which is all a run that
/// finds nothing changed needs, then the body, decoded only when a run needs it: the card
/// offsets and sync states (with their length and checksum), then every record (with its
/// checksum), so the two parts decode on two cores. A run that changes a few contacts leaves
/// the snapshot as it is and saves an ``IndexDelta`` beside it. The snapshot names the journal size, line count and last
/// sequence number it reflects. It is used only when the journal line that ends at that size
/// has that sequence number; otherwise (missing, damaged, stale, or the journal was compacted)
/// the index is rebuilt from the journal. The format is private to cardsync and may change
/// between versions: it is derived data.
enum IndexSnapshot {
    private static let magic = Array("CSIDX006".utf8)

    /// The snapshot's bytes.
    static func encode(_ index: BookIndex) -> [UInt8] {
        var all: [UInt8] = []
        encode(index) { all.append(contentsOf: $0) }
        return all
    }

    /// Encodes the snapshot in pieces of about 1 MiB handed to `emit`, so that saving a large
    /// index does not hold a second copy of it in memory.
    static func encode(_ index: BookIndex, emit: ([UInt8]) -> Void) {
        let summary = IndexSummary(of: index)
        var header = ByteWriter()
        encodeSummary(summary, into: &header)
        var out = ByteWriter()
        out.bytes.reserveCapacity(1 << 20 + 4096)
        out.bytes.append(contentsOf: magic)
        out.int(Int64(header.bytes.count))
        out.bytes.append(contentsOf: header.bytes)
        out.int(Int64(bitPattern: SnapshotChecksum.of(header.bytes)))
        out.flush(emit)
        // The card offsets and sync states first, with their length and checksum, so that
        // decoding can take them on one core and the records on another.
        var second = ByteWriter()
        second.int(Int64(index.cardOffsets.count))
        for (hash, offset) in index.cardOffsets {
            second.hash(hash)
            second.int(offset)
        }
        second.int(Int64(index.syncStates.count))
        for (remote, states) in index.syncStates {
            second.string(remote)
            second.int(Int64(states.count))
            for (uid, state) in states {
                second.string(uid)
                second.string(state.revision)
                second.bytes.append(state.hash == nil ? 0 : 1)
                if let hash = state.hash { second.hash(hash) }
            }
        }
        out.int(Int64(second.bytes.count))
        out.bytes.append(contentsOf: second.bytes)
        out.int(Int64(bitPattern: SnapshotChecksum.of(second.bytes)))
        second = ByteWriter()
        emit(out.bytes)
        out.bytes.removeAll(keepingCapacity: true)
        out.checksum = SnapshotChecksum()
        out.int(Int64(index.records.count))
        for record in index.records.values {
            out.flushIfFull(emit)
            out.string(record.uid)
            out.string(record.file)
            var flags: UInt8 = record.isGeneratedUID ? 1 : 0
            if record.hash != nil { flags |= 2 }
            if record.lastHash != nil { flags |= 4 }
            if record.name != nil { flags |= 8 }
            if record.edited != nil { flags |= 16 }
            out.bytes.append(flags)
            if let hash = record.hash { out.hash(hash) }
            if let hash = record.lastHash { out.hash(hash) }
            if let name = record.name { out.string(name) }
            out.int(Int64(record.createdSequence))
            out.int(Int64(record.sequence))
            out.int(record.modified)
            if let edited = record.edited { out.int(edited) }
        }
        out.flush(emit)
        out.int(Int64(bitPattern: out.checksum.value))
        emit(out.bytes)
    }

    private static func encodeSummary(_ summary: IndexSummary, into out: inout ByteWriter) {
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
        out.int(Int64(summary.files.count))
        summary.files.forEachEntry { file, tracked in
            out.int(Int64(file.count))
            out.bytes.append(contentsOf: file)
            out.bytes.append((tracked.isLive ? 1 : 0) | (tracked.stamp == nil ? 0 : 2))
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

    /// Reads the summary's fields (as ``encodeSummary(_:into:)`` wrote them) from `input`.
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

    private static let deltaMagic = Array("CSDLT001".utf8)

    /// The bytes of `delta` (``IndexDelta``): a magic, the base's summary checksum, the
    /// length of the rest, the summary fields (with the changed files only), the removed files,
    /// and a checksum of all but the magic.
    static func encodeDelta(_ delta: IndexDelta) -> [UInt8] {
        var payload = ByteWriter()
        encodeSummary(delta.summary, into: &payload)
        payload.int(Int64(delta.removedFiles.count))
        for file in delta.removedFiles { payload.string(file) }
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
        guard input.position == payloadEnd else { return nil }
        return IndexDelta(baseChecksum: UInt64(bitPattern: base), summary: summary, removedFiles: removed)
    }

    /// The index saved in `bytes`, or `nil` when they are not a valid snapshot.
    static func decode(_ bytes: [UInt8]) -> BookIndex? {
        guard let (summary, bodyStart) = decodeSummary(bytes) else { return nil }
        return decodeBody(bytes, from: bodyStart, summary: summary)
    }

    /// The whole index: `summary` and the body of `bytes` (the whole snapshot) from
    /// `bodyStart`, or `nil` when a section's checksum does not match or it does not decode. The
    /// records are decoded on one core while the card offsets and sync states are on another.
    static func decodeBody(_ bytes: [UInt8], from bodyStart: Int, summary: IndexSummary) -> BookIndex? {
        var lengthReader = ByteReader(bytes: bytes, position: bodyStart)
        guard let secondLength = lengthReader.int(), secondLength >= 0, secondLength <= Int64(bytes.count),
              Int64(bodyStart) + 8 + secondLength + 8 + 8 + 8 <= Int64(bytes.count) else { return nil }
        let secondStart = bodyStart + 8
        let secondEnd = secondStart + Int(secondLength)
        let recordsEnd = bytes.count - 8
        let parts = Parallel.map([BodySection.second, .records], minimumPerWorker: 1) { section -> DecodedSection? in
            switch section {
            case .second: decodeOffsetsAndStates(bytes, from: secondStart, to: secondEnd)
            case .records: decodeRecords(bytes, from: secondEnd + 8, to: recordsEnd, summary: summary)
            }
        }
        var index = BookIndex()
        for part in parts {
            switch part {
            case .some(.second(let offsets, let states)):
                index.cardOffsets = offsets
                index.syncStates = states
            case .some(.records(let records, let byFile, let byHash)):
                index.records = records
                index.uidsByFile = byFile
                index.uidsByHash = byHash
            case .none:
                return nil
            }
        }
        index.lastScan = summary.lastScan
        index.journalSize = summary.journalSize
        index.journalLines = summary.journalLines
        index.lastSequence = summary.lastSequence
        index.checkpoints = summary.checkpoints
        index.checkpointTimes = summary.checkpointTimes
        index.stamps.reserveCapacity(summary.files.count)
        for (file, tracked) in summary.files.namedEntries { if let stamp = tracked.stamp { index.stamps[file] = stamp } }
        guard index.liveCount == summary.liveCount else { return nil }
        return index
    }

    private enum BodySection: Sendable { case second, records }

    private enum DecodedSection: Sendable {
        case second(offsets: [ContentHash: Int64], states: [String: [String: RemoteSyncState]])
        case records([String: ContactRecord], byFile: [String: [String]], byHash: [ContentHash: [String]])
    }

    /// The card offsets and sync states in `bytes[start..<end]`, followed by their checksum.
    private static func decodeOffsetsAndStates(_ bytes: [UInt8], from start: Int, to end: Int) -> DecodedSection? {
        var trailer = ByteReader(bytes: bytes, position: end)
        guard let sum = trailer.int(), UInt64(bitPattern: sum) == SnapshotChecksum.of(bytes[start..<end]) else { return nil }
        var input = ByteReader(bytes: bytes, position: start)
        guard let offsetCount = input.int(), offsetCount >= 0 else { return nil }
        var offsets: [ContentHash: Int64] = [:]
        offsets.reserveCapacity(Int(min(offsetCount, 1 << 24)))
        for _ in 0..<offsetCount {
            guard let hash = input.hash(), let offset = input.int() else { return nil }
            offsets[hash] = offset
        }
        guard let remoteCount = input.int(), remoteCount >= 0 else { return nil }
        var syncStates: [String: [String: RemoteSyncState]] = [:]
        for _ in 0..<remoteCount {
            guard let remote = input.string(), let count = input.int(), count >= 0 else { return nil }
            var states: [String: RemoteSyncState] = [:]
            states.reserveCapacity(Int(min(count, 1 << 24)))
            for _ in 0..<count {
                guard let uid = input.string(), let revision = input.string(), let flag = input.byte() else { return nil }
                var state = RemoteSyncState(revision: revision, hash: nil)
                if flag == 1 { guard let hash = input.hash() else { return nil }; state.hash = hash }
                states[uid] = state
            }
            syncStates[remote] = states
        }
        guard input.position == end else { return nil }
        return .second(offsets: offsets, states: syncStates)
    }

    /// The records in `bytes[start..<end]`, followed by their checksum, and the live ones by
    /// file and by content.
    private static func decodeRecords(_ bytes: [UInt8], from start: Int, to end: Int, summary: IndexSummary) -> DecodedSection? {
        var trailer = ByteReader(bytes: bytes, position: end)
        guard start <= end, let sum = trailer.int(), UInt64(bitPattern: sum) == SnapshotChecksum.of(bytes[start..<end]) else { return nil }
        var input = ByteReader(bytes: bytes, position: start)
        guard let count = input.int(), count >= 0 else { return nil }
        var records: [String: ContactRecord] = [:]
        var byFile: [String: [String]] = [:]
        var byHash: [ContentHash: [String]] = [:]
        records.reserveCapacity(Int(min(count, 1 << 24)))
        byFile.reserveCapacity(summary.liveFileCount)
        byHash.reserveCapacity(summary.liveCount)
        for _ in 0..<count {
            guard let uid = input.string(), let file = input.string(), let flags = input.byte() else { return nil }
            var record = ContactRecord(uid: uid, isGeneratedUID: flags & 1 != 0, file: file, hash: nil, lastHash: nil, name: nil,
                                       createdSequence: 0, sequence: 0)
            if flags & 2 != 0 { guard let hash = input.hash() else { return nil }; record.hash = hash }
            if flags & 4 != 0 { guard let hash = input.hash() else { return nil }; record.lastHash = hash }
            if flags & 8 != 0 { guard let name = input.string() else { return nil }; record.name = name }
            guard let created = input.int(), let last = input.int(), let modified = input.int() else { return nil }
            record.createdSequence = Int(created)
            record.sequence = Int(last)
            record.modified = modified
            if flags & 16 != 0 { guard let edited = input.int() else { return nil }; record.edited = edited }
            records[uid] = record
            if let hash = record.hash {
                byFile[file, default: []].append(uid)
                byHash[hash, default: []].append(uid)
            }
        }
        guard input.position == end else { return nil }
        return .records(records, byFile: byFile, byHash: byHash)
    }
}

/// A fast 64-bit checksum of the snapshot's sections (eight bytes a step; it guards against
/// torn and damaged files, not against anyone forging one).
struct SnapshotChecksum {
    private(set) var state: UInt64 = 0x9E37_79B9_7F4A_7C15
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
        var value = state
        while !pending.isEmpty && pending.count < 8 && offset < raw.count {
            pending.append(raw[offset])
            offset += 1
        }
        if pending.count == 8 {
            var word: UInt64 = 0
            for (position, byte) in pending.enumerated() { word |= UInt64(byte) << (8 * UInt64(position)) }
            value = Self.mix(value, word)
            pending.removeAll()
        }
        while offset + 8 <= raw.count {
            value = Self.mix(value, UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            offset += 8
        }
        state = value
        if offset < raw.count { pending.append(contentsOf: raw[offset...]) }
    }

    /// The checksum of everything given so far.
    var value: UInt64 {
        var last: UInt64 = 0
        for (position, byte) in pending.enumerated() { last |= UInt64(byte) << (8 * UInt64(position)) }
        return Self.mix(Self.mix(state, last), length)
    }
}

private struct ByteWriter {
    var bytes: [UInt8] = []
    /// The checksum of everything emitted since it was last reset.
    var checksum = SnapshotChecksum()

    mutating func flushIfFull(_ emit: ([UInt8]) -> Void) {
        if bytes.count >= 1 << 20 { flush(emit) }
    }

    mutating func flush(_ emit: ([UInt8]) -> Void) {
        guard !bytes.isEmpty else { return }
        checksum.update(bytes)
        emit(bytes)
        bytes.removeAll(keepingCapacity: true)
    }

    mutating func int(_ value: Int64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func string(_ value: String) {
        let utf8 = value.utf8
        int(Int64(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    mutating func hash(_ hash: ContentHash) {
        int(Int64(bitPattern: hash.words.0))
        int(Int64(bitPattern: hash.words.1))
        int(Int64(bitPattern: hash.words.2))
        int(Int64(bitPattern: hash.words.3))
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

    mutating func hash() -> ContentHash? {
        guard let a = int(), let b = int(), let c = int(), let d = int() else { return nil }
        return ContentHash(words: (UInt64(bitPattern: a), UInt64(bitPattern: b), UInt64(bitPattern: c), UInt64(bitPattern: d)))
    }
}
