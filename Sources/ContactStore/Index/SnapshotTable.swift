#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import VCardKit

/// The bytes of an index snapshot, mapped from its file (or copied into memory), kept for as
/// long as a table reads from them. The book holds the lock of its folder, so no other process
/// rewrites the snapshot meanwhile, and cardsync replaces it by renaming a new file over it: the
/// mapped file stays as it was.
final class SnapshotBytes: @unchecked Sendable {
    /// The first byte.
    let start: UnsafeRawPointer
    /// The number of bytes.
    let count: Int
    private let isMapped: Bool

    /// The whole file at `path`, mapped; `nil` when it cannot be opened or mapped.
    init?(mapping path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size > 0 else { return nil }
        let length = Int(status.st_size)
        #if os(Linux)
        let flags = MAP_PRIVATE | MAP_POPULATE
        #else
        let flags = MAP_PRIVATE
        #endif
        guard let address = mmap(nil, length, PROT_READ, flags, descriptor, 0), address != MAP_FAILED else { return nil }
        start = UnsafeRawPointer(address)
        count = length
        isMapped = true
    }

    /// A copy of `bytes`.
    init(copying bytes: [UInt8]) {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: max(1, bytes.count), alignment: 16)
        bytes.withUnsafeBytes { if let source = $0.baseAddress { memory.copyMemory(from: source, byteCount: $0.count) } }
        start = UnsafeRawPointer(memory)
        count = bytes.count
        isMapped = false
    }

    deinit {
        if isMapped {
            munmap(UnsafeMutableRawPointer(mutating: start), count)
        } else {
            UnsafeMutableRawPointer(mutating: start).deallocate()
        }
    }

    /// The bytes in `range`.
    func buffer(_ range: Range<Int>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: start + range.lowerBound, count: range.count)
    }
}

/// A hashed table of entries kept as bytes in a snapshot: found by key without decoding any
/// other entry. Written by ``SnapshotTableWriter``.
///
/// The section: the number of entries, the table's hash seed, the number of slots (a power of
/// two, at most half full) and the length of the entries (eight bytes each, little-endian); then
/// the slots (eight bytes each: the high half of the key's hash, then where its entry starts
/// among the entries; `0xFFFF_FFFF` when empty); then the entries, one after another: the key's
/// length and the value's (four bytes each), the key, the value.
struct SnapshotTable: Sendable {
    let bytes: SnapshotBytes
    /// The number of entries.
    let count: Int
    private let seed: UInt64
    private let slotsStart: Int
    private let slotCount: Int
    private let entriesStart: Int
    private let entriesEnd: Int
    /// The checksum stored after the section, once it was checked against the section's bytes
    /// (see ``IndexSnapshot``); `nil` while it was not.
    var verifiedChecksum: UInt64?

    private static let headerLength = 32
    private static let tagMask: UInt64 = 0xFFFF_FFFF_0000_0000
    private static let emptySlot: UInt64 = 0xFFFF_FFFF

    /// The table whose section starts at `offset` in `bytes` and ends before `end`, or `nil` when
    /// the section is not one (lengths out of bounds). Its entries are checked when read.
    init?(_ bytes: SnapshotBytes, at offset: Int, end: Int) {
        guard offset >= 0, end <= bytes.count, offset + Self.headerLength <= end else { return nil }
        let header = bytes.buffer(offset..<(offset + Self.headerLength))
        func word(_ index: Int) -> UInt64 { UInt64(littleEndian: header.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)) }
        let count = word(0), seed = word(1), slotCount = word(2), entriesLength = word(3)
        let room = UInt64(end - offset - Self.headerLength)
        guard slotCount <= room / 8, entriesLength <= room - slotCount * 8, count <= slotCount,
              slotCount == 0 || slotCount & (slotCount - 1) == 0 else { return nil }
        self.bytes = bytes
        self.count = Int(count)
        self.seed = seed
        slotsStart = offset + Self.headerLength
        self.slotCount = Int(slotCount)
        entriesStart = slotsStart + Int(slotCount) * 8
        entriesEnd = entriesStart + Int(entriesLength)
    }

    /// Where the section ends.
    var end: Int { entriesEnd }

    /// The whole section as it lies in the snapshot, with its checksum, when that was checked:
    /// what a new snapshot holds for a table that did not change, copied without reading an entry.
    var verifiedSection: (bytes: UnsafeRawBufferPointer, checksum: UInt64)? {
        verifiedChecksum.map { (bytes.buffer((slotsStart - Self.headerLength)..<entriesEnd), $0) }
    }

    /// The value bytes of the entry whose key is `key`, or `nil`.
    func value(forKey key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard slotCount > 0 else { return nil }
        let hash = SnapshotTableWriter.hash(key, seed: seed)
        let tag = hash & Self.tagMask
        let mask = slotCount - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        for _ in 0..<slotCount {
            let word = UInt64(littleEndian: bytes.start.loadUnaligned(fromByteOffset: slotsStart + slot * 8, as: UInt64.self))
            if word == Self.emptySlot { return nil }
            if word & Self.tagMask == tag, let entry = entry(at: entriesStart + Int(truncatingIfNeeded: word & ~Self.tagMask)),
               entry.key.count == key.count, key.isEmpty || memcmp(entry.key.baseAddress!, key.baseAddress!, key.count) == 0 {
                return entry.value
            }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// Calls `body` with every entry's key and value bytes, in the order they were written;
    /// stops at an entry that does not fit the section.
    func forEachEntry(_ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Void) {
        var position = entriesStart
        while position < entriesEnd, let entry = entry(at: position) {
            body(entry.key, entry.value)
            position = entry.next
        }
    }

    /// The entry starting at `position`, or `nil` when it does not fit among the entries.
    private func entry(at position: Int) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, next: Int)? {
        guard position >= entriesStart, position + 8 <= entriesEnd else { return nil }
        let keyLength = Int(UInt32(littleEndian: bytes.start.loadUnaligned(fromByteOffset: position, as: UInt32.self)))
        let valueLength = Int(UInt32(littleEndian: bytes.start.loadUnaligned(fromByteOffset: position + 4, as: UInt32.self)))
        let keyStart = position + 8
        guard keyLength + valueLength <= entriesEnd - keyStart else { return nil }
        let valueStart = keyStart + keyLength
        return (bytes.buffer(keyStart..<valueStart), bytes.buffer(valueStart..<(valueStart + valueLength)), valueStart + valueLength)
    }
}

/// Writes a ``SnapshotTable`` in two passes over the same entries, in the same order, so that
/// saving a table never holds more than a block of its entries. The first pass places each entry
/// (``place(key:valueLength:)``): its key's hash and where it starts. That gives the section's
/// length and its start (``head()``: the header and the slots, with a fresh random seed). The
/// second pass writes the entries through a ``SnapshotSectionStream``.
struct SnapshotTableWriter {
    private var starts: [UInt32] = []
    private var keyHashes: [UInt64] = []
    /// The length of the entries placed so far.
    private(set) var entriesLength = 0
    private let seed = UInt64.random(in: 1...UInt64.max)

    /// A writer for about `capacity` entries.
    init(capacity: Int = 0) {
        starts.reserveCapacity(capacity)
        keyHashes.reserveCapacity(capacity)
    }

    /// Places the next entry: its key is `key`, its value `valueLength` bytes long. Each key is
    /// to be placed once.
    mutating func place(key: UnsafeRawBufferPointer, valueLength: Int) {
        starts.append(UInt32(entriesLength))
        keyHashes.append(Self.hash(key, seed: seed))
        entriesLength += SnapshotSectionStream.length(key: key.count, value: valueLength)
    }

    /// The section's start, once every entry was placed: its header and slots. The entries
    /// follow it, ``entriesLength`` bytes.
    func head() -> [UInt8] {
        var slotCount = 16
        while slotCount < starts.count * 2 { slotCount <<= 1 }
        if starts.isEmpty { slotCount = 0 }
        // The slots are filled where they are returned, not in an array of their own copied in
        // after: a large book's save makes two tables at once, and each table's slots are
        // megabytes.
        var head = [UInt8](repeating: 0, count: 32 + slotCount * 8)
        head.withUnsafeMutableBytes { bytes in
            for (index, word) in [UInt64(starts.count), seed, UInt64(slotCount), UInt64(entriesLength)].enumerated() {
                bytes.storeBytes(of: word.littleEndian, toByteOffset: index * 8, as: UInt64.self)
            }
            let empty = UInt64(0xFFFF_FFFF).littleEndian
            for slot in 0..<slotCount { bytes.storeBytes(of: empty, toByteOffset: 32 + slot * 8, as: UInt64.self) }
            let mask = slotCount - 1
            for (position, start) in starts.enumerated() {
                var slot = Int(truncatingIfNeeded: keyHashes[position]) & mask
                while bytes.loadUnaligned(fromByteOffset: 32 + slot * 8, as: UInt64.self) != empty { slot = (slot + 1) & mask }
                let word = keyHashes[position] & 0xFFFF_FFFF_0000_0000 | UInt64(start)
                bytes.storeBytes(of: word.littleEndian, toByteOffset: 32 + slot * 8, as: UInt64.self)
            }
        }
        return head
    }

    /// A seeded hash of `bytes`, eight at a time.
    static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        var hash = seed ^ UInt64(truncatingIfNeeded: bytes.count) &* 0x9E37_79B9_7F4A_7C15
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = mix(hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        if offset < bytes.count {
            var tail: UInt64 = 0
            for index in offset..<bytes.count { tail = tail << 8 | UInt64(bytes[index]) }
            hash = mix(hash ^ tail)
        }
        return mix(hash)
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var x = value &* 0xBF58_476D_1CE4_E5B9
        x ^= x >> 31
        x = x &* 0x94D0_49BB_1331_11EB
        return x ^ (x >> 29)
    }
}

/// A snapshot section's bytes as they are written, handed on in blocks of about `blockLength`
/// bytes (a piece or an entry larger than that makes a block of its own), with their length and
/// checksum: how the summary and each ``SnapshotTable`` reach the file without being held whole.
struct SnapshotSectionStream {
    private var block: [UInt8] = []
    private let blockLength: Int
    /// The length of what was written so far.
    private(set) var length = 0
    /// The checksum of the blocks handed on so far (all of them after ``finish(_:)``).
    private(set) var checksum = SnapshotChecksum()

    init(blockLength: Int = 1 << 20) {
        self.blockLength = blockLength
    }

    /// The length of a table's entry whose key and value have these lengths.
    static func length(key: Int, value: Int) -> Int { 8 + key + value }

    /// Writes `bytes` as they are; `emit` is given the block they complete, if any.
    mutating func append(_ bytes: UnsafeRawBufferPointer, emit: ([UInt8]) -> Void) {
        makeRoom(for: bytes.count, emit)
        block.append(contentsOf: bytes)
        length += bytes.count
    }

    /// Writes a table's entry (never split between blocks); `emit` is given the block it
    /// completes, if any.
    mutating func append(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, emit: ([UInt8]) -> Void) {
        let entry = Self.length(key: key.count, value: value.count)
        makeRoom(for: entry, emit)
        withUnsafeBytes(of: UInt32(key.count).littleEndian) { block.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(value.count).littleEndian) { block.append(contentsOf: $0) }
        block.append(contentsOf: key)
        block.append(contentsOf: value)
        length += entry
    }

    /// Hands on the last block.
    mutating func finish(_ emit: ([UInt8]) -> Void) {
        if !block.isEmpty { flush(emit) }
    }

    /// Hands on the block when `count` more bytes would overflow it.
    private mutating func makeRoom(for count: Int, _ emit: ([UInt8]) -> Void) {
        if !block.isEmpty && block.count + count > blockLength { flush(emit) }
        if block.capacity == 0 { block.reserveCapacity(max(count, min(blockLength, 64 << 10))) }
    }

    private mutating func flush(_ emit: ([UInt8]) -> Void) {
        emit(block)
        checksum.update(block)
        block.removeAll(keepingCapacity: true)
    }
}

/// Writes the value of a snapshot table's entry.
struct SnapshotValueWriter {
    var bytes: [UInt8] = []

    mutating func int(_ value: Int64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    mutating func string(_ value: String) {
        let utf8 = value.utf8
        withUnsafeBytes(of: UInt32(utf8.count).littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: utf8)
    }

    mutating func hash(_ hash: ContentHash) {
        withUnsafeBytes(of: Self.littleEndianWords(hash)) { bytes.append(contentsOf: $0) }
    }

    static func littleEndianWords(_ hash: ContentHash) -> (UInt64, UInt64, UInt64, UInt64) {
        (hash.words.0.littleEndian, hash.words.1.littleEndian, hash.words.2.littleEndian, hash.words.3.littleEndian)
    }
}

/// Reads the value of a snapshot table's entry; every read is bounds-checked (`nil` past the end).
struct SnapshotValueReader {
    let bytes: UnsafeRawBufferPointer
    var position = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { position == bytes.count }

    mutating func int() -> Int64? {
        guard position + 8 <= bytes.count else { return nil }
        defer { position += 8 }
        return Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: Int64.self))
    }

    mutating func byte() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func string() -> String? {
        guard position + 4 <= bytes.count else { return nil }
        let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self)))
        guard length <= bytes.count - position - 4 else { return nil }
        let start = position + 4
        position = start + length
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    }

    mutating func hash() -> ContentHash? {
        guard position + 32 <= bytes.count else { return nil }
        defer { position += 32 }
        func word(_ index: Int) -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position + index * 8, as: UInt64.self)) }
        return ContentHash(words: (word(0), word(1), word(2), word(3)))
    }

    /// The hash whose 32 bytes are `key`.
    static func hash(key: UnsafeRawBufferPointer) -> ContentHash? {
        var reader = SnapshotValueReader(key)
        guard let hash = reader.hash(), reader.isAtEnd else { return nil }
        return hash
    }
}
