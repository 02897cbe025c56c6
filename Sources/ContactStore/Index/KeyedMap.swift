/// Entries kept somewhere other than a dictionary (the index snapshot's tables, the summary's
/// files), read one key at a time without decoding the others.
protocol KeyedBase<Key, Value>: Sendable {
    associatedtype Key: Hashable & Sendable
    associatedtype Value: Sendable
    /// The number of entries.
    var count: Int { get }
    /// The entry for `key`, decoded; `nil` when there is none.
    func lookup(_ key: Key) -> Value?
    /// Calls `body` with every entry, decoded, in the order they are stored.
    func forEachEntry(_ body: (Key, Value) -> Void)
    /// Calls `body` with every entry's key, decoded, and its key and value bytes as a
    /// ``SnapshotTable`` holds them; `false` (without calling it) when the base is not one.
    func forEachEncodedEntry(_ body: (Key, UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) -> Bool
    /// The base's whole ``SnapshotTable`` section and its checked checksum; `nil` when the base
    /// is not a snapshot table or its checksum was not checked.
    var verifiedSection: (bytes: UnsafeRawBufferPointer, checksum: UInt64)? { get }
}

extension KeyedBase {
    func forEachEncodedEntry(_ body: (Key, UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) -> Bool { false }
    var verifiedSection: (bytes: UnsafeRawBufferPointer, checksum: UInt64)? { nil }
}

/// A dictionary over a ``KeyedBase``: what the base holds, with the changes made since on top.
///
/// The index of a large book opens on the tables of its snapshot without decoding them: a run
/// that changes a few contacts looks up (and changes) those contacts only. Looking a key up reads
/// the changes, then the base; setting or removing a key records the change. Going through every
/// entry (``forEachEntry(_:)``, ``keys``, ``values``, iteration) decodes the base's entries, so it
/// costs what decoding the whole index did: the paths that need every contact pay for them, the
/// others do not.
struct KeyedMap<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The entries the map started from; `nil` for a map built in memory.
    private var base: (any KeyedBase<Key, Value>)?
    /// Entries set (`.some`) or removed (`.none`) since, by key.
    private var changes: [Key: Value?] = [:]
    /// The number of entries.
    private(set) var count = 0

    /// An empty map.
    init() {}

    /// The entries of `base`.
    init(base: any KeyedBase<Key, Value>) {
        self.base = base
        count = base.count
    }

    /// Whether the map has no entries.
    var isEmpty: Bool { count == 0 }

    /// Whether the map reads from a base (and so decodes it to go through every entry).
    var hasBase: Bool { base != nil }

    /// The entry for `key`; setting `nil` removes it.
    subscript(key: Key) -> Value? {
        get {
            if let changed = changes[key] { return changed }
            return base?.lookup(key)
        }
        set { updateEntry(key, to: newValue) }
    }

    /// The entry for `key`, or `defaultValue` (inserted when changed).
    subscript(key: Key, default defaultValue: @autoclosure () -> Value) -> Value {
        get { self[key] ?? defaultValue() }
        set { updateEntry(key, to: newValue) }
    }

    /// Makes room for `count` more entries set than the map holds changes for now, so that
    /// setting them does not grow (and rehash) its storage again and again.
    mutating func reserveCapacity(forSetting count: Int) {
        changes.reserveCapacity(changes.count + count)
    }

    /// Sets the entry for `key`, returning what it replaced.
    @discardableResult
    mutating func updateValue(_ value: Value, forKey key: Key) -> Value? {
        updateEntry(key, to: value)
    }

    /// Sets (or removes) the entry for `key`, keeping ``count``; returns what it replaced.
    @discardableResult
    private mutating func updateEntry(_ key: Key, to value: Value?) -> Value? {
        let previous = changes.updateValue(value, forKey: key)
        let old: Value? = previous ?? base?.lookup(key)
        // Without a base there is nothing a removal must hide.
        if value == nil && base == nil { changes.removeValue(forKey: key) }
        count += (value == nil ? 0 : 1) - (old == nil ? 0 : 1)
        return old
    }

    /// Calls `body` with every entry: the base's that were not changed, then the changed ones.
    func forEachEntry(_ body: (Key, Value) -> Void) {
        base?.forEachEntry { key, value in if changes[key] == nil { body(key, value) } }
        forEachChangedEntry(body)
    }

    /// Calls `body` with the key and value bytes of every entry of the base that was not changed
    /// since, as its snapshot table holds them; `false` (without calling it) when the base is not
    /// a snapshot table. With ``forEachChangedEntry(_:)``, every entry: what a new table of the
    /// map is written from without decoding the entries that did not change.
    func forEachUnchangedEncodedEntry(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) -> Bool {
        guard let base else { return false }
        return base.forEachEncodedEntry { key, keyBytes, valueBytes in
            if changes[key] == nil { body(keyBytes, valueBytes) }
        }
    }

    /// The section of the snapshot table the map reads from, with its checksum, when no entry
    /// changed since the map was opened on it: a new snapshot copies it as it is.
    var unchangedSection: (bytes: UnsafeRawBufferPointer, checksum: UInt64)? {
        guard changes.isEmpty, let section = base?.verifiedSection else { return nil }
        return section
    }

    /// Calls `body` with every entry set since the base.
    func forEachChangedEntry(_ body: (Key, Value) -> Void) {
        for (key, value) in changes {
            if let value { body(key, value) }
        }
    }

    /// Every key.
    var keys: [Key] {
        var result: [Key] = []
        result.reserveCapacity(count)
        forEachEntry { key, _ in result.append(key) }
        return result
    }

    /// Every value.
    var values: [Value] {
        var result: [Value] = []
        result.reserveCapacity(count)
        forEachEntry { _, value in result.append(value) }
        return result
    }

    /// Every entry as a dictionary.
    var dictionary: [Key: Value] {
        var result: [Key: Value] = [:]
        result.reserveCapacity(count)
        forEachEntry { key, value in result[key] = value }
        return result
    }

    /// The entries whose keys are among `keys`, as a dictionary (looked up one by one).
    func entries(for keys: some Sequence<Key>) -> [Key: Value] {
        var result: [Key: Value] = [:]
        for key in keys { if let value = self[key] { result[key] = value } }
        return result
    }

    /// The keys changed (set or removed) since the base, with their entries (`nil`: removed).
    var changedEntries: [Key: Value?] { changes }
}

extension KeyedMap: Sequence {
    typealias Element = (key: Key, value: Value)

    func makeIterator() -> IndexingIterator<[Element]> {
        var all: [Element] = []
        all.reserveCapacity(count)
        forEachEntry { key, value in all.append((key, value)) }
        return all.makeIterator()
    }

    var underestimatedCount: Int { count }
}

extension KeyedMap: ExpressibleByDictionaryLiteral {
    init(dictionaryLiteral elements: (Key, Value)...) {
        self.init()
        for (key, value) in elements { self[key] = value }
    }
}

extension KeyedMap: Equatable where Value: Equatable {
    /// Maps are equal when they hold the same keys with the same values (every entry is read).
    static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var equal = true
        lhs.forEachEntry { key, value in if equal, rhs[key] != value { equal = false } }
        return equal
    }
}
