/// The files an ``IndexSummary`` tracks, by name: every name's bytes one after another in one
/// buffer, found through an open-addressing table of entry positions.
///
/// It holds what `[String: TrackedFile]` would, for the one path where that costs the most: a run
/// that finds nothing changed decodes the summary of every file of the book and looks each file
/// of the folder up in it. Decoding here makes no `String` per name (the names are copied into
/// the buffer as they stand in the snapshot), and a lookup hashes the name's bytes once and
/// compares them with bytes in that buffer (a `String`-keyed dictionary hashes with SipHash and
/// compares with a separate heap object per key: cache misses on 100,000 names of equal length).
///
/// A removed name keeps its place (its entry becomes `nil`), so a later insertion of the same
/// name reuses it; only live entries are counted, iterated, compared and encoded.
struct FileTable: Sendable {
    typealias TrackedFile = IndexSummary.TrackedFile

    /// Every name ever inserted, one after another.
    private var nameBytes: [UInt8] = []
    /// Where each entry's name ends in ``nameBytes`` (it starts where the previous one ends).
    private var nameEnds: [Int] = []
    /// Each entry's hash, kept to grow the slot table.
    private var hashes: [UInt64] = []
    /// Each entry's file, or `nil` once removed.
    private var entries: [TrackedFile?] = []
    /// Entry positions with the high half of their hash (``slotWord(hash:position:)``; empty:
    /// ``emptySlot``), probed linearly; a power of two, at most half full.
    private var slots: [UInt64] = []
    /// The number of live entries.
    private(set) var count = 0

    init() {}

    /// Makes room for `capacity` entries without growing again.
    mutating func reserveCapacity(_ capacity: Int, averageNameLength: Int = 48) {
        nameBytes.reserveCapacity(capacity * averageNameLength)
        nameEnds.reserveCapacity(capacity)
        hashes.reserveCapacity(capacity)
        entries.reserveCapacity(capacity)
        if Self.slotCount(for: capacity) > slots.count { rebuildSlots(count: Self.slotCount(for: capacity)) }
    }

    // MARK: - Lookup and change

    /// The file named `name`, or `nil`; setting `nil` removes it.
    subscript(name: String) -> TrackedFile? {
        get { Self.withBytes(of: name) { self[bytes: $0] } }
        set { _ = Self.withBytes(of: name) { update(bytes: $0, to: newValue) } }
    }

    /// The file whose name is `bytes` (UTF-8), or `nil`.
    subscript(bytes name: UnsafeBufferPointer<UInt8>) -> TrackedFile? {
        guard let position = find(name, hash: Self.hash(name)).entry else { return nil }
        return entries[position]
    }

    /// Sets the file named `name` and returns what it replaced.
    @discardableResult
    mutating func updateValue(_ value: TrackedFile, forKey name: String) -> TrackedFile? {
        Self.withBytes(of: name) { update(bytes: $0, to: value) }
    }

    /// Removes the file named `name` and returns it.
    @discardableResult
    mutating func removeValue(forKey name: String) -> TrackedFile? {
        Self.withBytes(of: name) { update(bytes: $0, to: nil) }
    }

    /// Sets (or, with `nil`, removes) the file whose name is `name` and returns what it replaced.
    @discardableResult
    mutating func update(bytes name: UnsafeBufferPointer<UInt8>, to value: TrackedFile?) -> TrackedFile? {
        let hash = Self.hash(name)
        let (found, slot) = find(name, hash: hash)
        if let found {
            let old = entries[found]
            entries[found] = value
            count += (value == nil ? 0 : 1) - (old == nil ? 0 : 1)
            // Removed names keep their place; once they outnumber the live ones, start afresh.
            if value == nil && entries.count - count > max(1024, count) { compact() }
            return old
        }
        guard let value else { return nil }
        let position = entries.count
        nameBytes.append(contentsOf: name)
        nameEnds.append(nameBytes.count)
        hashes.append(hash)
        entries.append(value)
        count += 1
        if (position + 1) * 2 > slots.count {
            rebuildSlots(count: Self.slotCount(for: position + 1))
        } else {
            slots[slot] = Self.slotWord(hash: hash, position: position)
        }
        return nil
    }

    /// The same live entries without the places of removed names.
    private mutating func compact() {
        var fresh = FileTable()
        fresh.reserveCapacity(count, averageNameLength: nameBytes.count / max(1, entries.count))
        forEachEntry { name, file in fresh.update(bytes: name, to: file) }
        self = fresh
    }

    // MARK: - Reading all of it

    /// Calls `body` with the bytes of every live entry's name and its file, in insertion order.
    func forEachEntry(_ body: (UnsafeBufferPointer<UInt8>, TrackedFile) throws -> Void) rethrows {
        try nameBytes.withUnsafeBufferPointer { all in
            var start = 0
            for position in entries.indices {
                let end = nameEnds[position]
                defer { start = end }
                guard let entry = entries[position] else { continue }
                try body(UnsafeBufferPointer(rebasing: all[start..<end]), entry)
            }
        }
    }

    /// Every live entry's name and file, in insertion order.
    var namedEntries: [(name: String, file: TrackedFile)] {
        var result: [(name: String, file: TrackedFile)] = []
        result.reserveCapacity(count)
        forEachEntry { name, file in result.append((String(decoding: name, as: UTF8.self), file)) }
        return result
    }

    /// The names of the live entries, in insertion order.
    var names: [String] { namedEntries.map(\.name) }

    /// The live entries for which `isIncluded` holds.
    func filter(_ isIncluded: (UnsafeBufferPointer<UInt8>, TrackedFile) -> Bool) -> FileTable {
        var result = FileTable()
        forEachEntry { name, file in if isIncluded(name, file) { result.update(bytes: name, to: file) } }
        return result
    }

    // MARK: - Hashing and probing

    /// The entry named `name` (when there is one), else the empty slot where it would go.
    private func find(_ name: UnsafeBufferPointer<UInt8>, hash: UInt64) -> (entry: Int?, slot: Int) {
        guard !slots.isEmpty else { return (nil, 0) }
        let mask = slots.count - 1
        let tag = hash & Self.tagMask
        var slot = Int(truncatingIfNeeded: hash) & mask
        return nameBytes.withUnsafeBufferPointer { all in
            while true {
                let word = slots[slot]
                if word == Self.emptySlot { return (nil, slot) }
                // The slot's high half is its entry's hash's: most other names are passed over
                // without reading their entry.
                if word & Self.tagMask == tag {
                    let position = Int(truncatingIfNeeded: word & ~Self.tagMask)
                    let start = position == 0 ? 0 : nameEnds[position - 1]
                    let end = nameEnds[position]
                    if end - start == name.count,
                       name.isEmpty || memcmp(all.baseAddress! + start, name.baseAddress!, name.count) == 0 {
                        return (position, slot)
                    }
                }
                slot = (slot + 1) & mask
            }
        }
    }

    private mutating func rebuildSlots(count slotCount: Int) {
        slots = [UInt64](repeating: Self.emptySlot, count: slotCount)
        let mask = slotCount - 1
        for position in hashes.indices {
            var slot = Int(truncatingIfNeeded: hashes[position]) & mask
            while slots[slot] != Self.emptySlot { slot = (slot + 1) & mask }
            slots[slot] = Self.slotWord(hash: hashes[position], position: position)
        }
    }

    /// A slot: the high 32 bits of the entry's hash, then its position.
    private static func slotWord(hash: UInt64, position: Int) -> UInt64 {
        hash & tagMask | UInt64(truncatingIfNeeded: position)
    }

    private static let tagMask: UInt64 = 0xFFFF_FFFF_0000_0000
    /// No entry has this position (a table holds fewer than 2³² − 1 entries).
    private static let emptySlot: UInt64 = 0xFFFF_FFFF

    /// The power of two that holds `count` entries at most half full (at least 16).
    private static func slotCount(for count: Int) -> Int {
        var slots = 16
        while slots < count * 2 { slots <<= 1 }
        return slots
    }

    /// Chosen once per process, so that which names share a slot cannot be planned from outside.
    private static let seed = UInt64.random(in: 1...UInt64.max)

    /// A hash of `bytes` (``SnapshotTableWriter/hash(_:seed:)`` with the process's seed).
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        SnapshotTableWriter.hash(UnsafeRawBufferPointer(bytes), seed: seed)
    }

    /// Calls `body` with the UTF-8 bytes of `name` (in place for a native string).
    private static func withBytes<Result>(of name: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        var name = name
        return name.withUTF8(body)
    }
}

extension FileTable: Equatable {
    /// Tables are equal when they hold the same live names with the same files.
    static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var equal = true
        lhs.forEachEntry { name, file in if equal, rhs[bytes: name] != file { equal = false } }
        return equal
    }
}

extension FileTable: ExpressibleByDictionaryLiteral {
    init(dictionaryLiteral elements: (String, TrackedFile)...) {
        self.init()
        for (name, file) in elements { self[name] = file }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
