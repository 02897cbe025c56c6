import VCardKit

/// The derived index saved to `.cardsync/index.bin`, so that opening a book reads one compact
/// file and replays only the journal lines written after it.
///
/// The snapshot names the journal size, line count and last sequence number it reflects. It is
/// used only when the journal line that ends at that size has that sequence number; otherwise
/// (missing, damaged, stale, or the journal was compacted) the index is rebuilt from the journal.
/// The format is private to cardsync and may change between versions: it is derived data.
enum IndexSnapshot {
    private static let magic = Array("CSIDX004".utf8)

    /// The snapshot's bytes.
    static func encode(_ index: BookIndex) -> [UInt8] {
        var all: [UInt8] = []
        encode(index) { all.append(contentsOf: $0) }
        return all
    }

    /// Encodes the snapshot in pieces of about 1 MiB handed to `emit`, so that saving a large
    /// index does not hold a second copy of it in memory.
    static func encode(_ index: BookIndex, emit: ([UInt8]) -> Void) {
        var out = ByteWriter()
        out.bytes.reserveCapacity(1 << 20 + 4096)
        out.bytes.append(contentsOf: magic)
        out.int(index.journalSize)
        out.int(Int64(index.journalLines))
        out.int(Int64(index.lastSequence))
        out.int(index.lastScan)
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
        out.int(Int64(index.stamps.count))
        for (file, stamp) in index.stamps {
            out.flushIfFull(emit)
            out.string(file)
            out.int(stamp.size)
            out.int(stamp.modified)
            out.int(stamp.changed)
            out.int(Int64(bitPattern: stamp.inode))
        }
        out.int(Int64(index.cardOffsets.count))
        for (hash, offset) in index.cardOffsets {
            out.flushIfFull(emit)
            out.hash(hash)
            out.int(offset)
        }
        out.int(Int64(index.checkpoints.count))
        for (remote, position) in index.checkpoints {
            out.string(remote)
            out.string(position)
        }
        out.int(Int64(index.syncStates.count))
        for (remote, states) in index.syncStates {
            out.string(remote)
            out.int(Int64(states.count))
            for (uid, state) in states {
                out.flushIfFull(emit)
                out.string(uid)
                out.string(state.revision)
                out.bytes.append(state.hash == nil ? 0 : 1)
                if let hash = state.hash { out.hash(hash) }
            }
        }
        out.flush(emit)
        out.int(Int64(out.crc))
        out.flush(emit)
    }

    /// The index saved in `bytes`, or `nil` when they are not a valid snapshot.
    static func decode(_ bytes: [UInt8]) -> BookIndex? {
        guard bytes.count >= magic.count + 8, bytes.starts(with: magic) else { return nil }
        let body = bytes[0..<(bytes.count - 8)]
        var trailer = ByteReader(bytes: bytes, position: bytes.count - 8)
        guard let stored = trailer.int(), UInt32(truncatingIfNeeded: stored) == CRC32.checksum(body) else { return nil }
        var input = ByteReader(bytes: bytes, position: magic.count)
        var index = BookIndex()
        guard let size = input.int(), let lines = input.int(), let sequence = input.int(), let lastScan = input.int(),
              let count = input.int() else { return nil }
        index.lastScan = lastScan
        index.journalSize = size
        index.journalLines = Int(lines)
        index.lastSequence = Int(sequence)
        index.records.reserveCapacity(Int(count))
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
            index.records[uid] = record
            if let hash = record.hash {
                index.uidsByFile[file, default: []].append(uid)
                index.uidsByHash[hash, default: []].append(uid)
            }
        }
        guard let stampCount = input.int() else { return nil }
        for _ in 0..<stampCount {
            guard let file = input.string(), let size = input.int(), let modified = input.int(), let changed = input.int(),
                  let inode = input.int() else { return nil }
            index.stamps[file] = FileStamp(size: size, modified: modified, changed: changed, inode: UInt64(bitPattern: inode))
        }
        guard let offsetCount = input.int() else { return nil }
        index.cardOffsets.reserveCapacity(Int(offsetCount))
        for _ in 0..<offsetCount {
            guard let hash = input.hash(), let offset = input.int() else { return nil }
            index.cardOffsets[hash] = offset
        }
        guard let checkpointCount = input.int(), checkpointCount >= 0 else { return nil }
        for _ in 0..<checkpointCount {
            guard let remote = input.string(), let position = input.string() else { return nil }
            index.checkpoints[remote] = position
        }
        guard let remoteCount = input.int(), remoteCount >= 0 else { return nil }
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
            index.syncStates[remote] = states
        }
        guard input.position == bytes.count - 8 else { return nil }
        return index
    }
}

private struct ByteWriter {
    var bytes: [UInt8] = []
    /// The CRC-32 of everything emitted so far.
    var crc: UInt32 = 0

    mutating func flushIfFull(_ emit: ([UInt8]) -> Void) {
        if bytes.count >= 1 << 20 { flush(emit) }
    }

    mutating func flush(_ emit: ([UInt8]) -> Void) {
        guard !bytes.isEmpty else { return }
        crc = bytes.withUnsafeBytes { CRC32.update(crc, $0) }
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
        guard position + 8 <= bytes.count else { return nil }
        var value: UInt64 = 0
        for offset in (0..<8).reversed() { value = value << 8 | UInt64(bytes[position + offset]) }
        position += 8
        return Int64(bitPattern: value)
    }

    mutating func byte() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func string() -> String? {
        guard let length = int(), length >= 0, position + Int(length) <= bytes.count else { return nil }
        defer { position += Int(length) }
        return String(decoding: bytes[position..<(position + Int(length))], as: UTF8.self)
    }

    mutating func hash() -> ContentHash? {
        guard let a = int(), let b = int(), let c = int(), let d = int() else { return nil }
        return ContentHash(words: (UInt64(bitPattern: a), UInt64(bitPattern: b), UInt64(bitPattern: c), UInt64(bitPattern: d)))
    }
}
