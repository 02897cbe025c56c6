import VCardKit

/// The index's tables as the snapshot keeps them (``SnapshotTable``), read one key at a time:
/// the bases of ``BookIndex``'s maps. Each encodes its values for ``IndexSnapshot`` and decodes
/// them when asked.
enum IndexTables {
    /// Calls `body` with the UTF-8 bytes of `key`.
    static func withKey<Result>(_ key: String, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        var key = key
        return key.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }

    /// Calls `body` with the 32 bytes of `hash`.
    static func withKey<Result>(_ hash: ContentHash, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        withUnsafeBytes(of: SnapshotValueWriter.littleEndianWords(hash), body)
    }

    /// Appends the UTF-8 bytes of `key` to `bytes`.
    static func appendKey(_ key: String, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: key.utf8)
    }

    /// Appends the 32 bytes of `hash` to `bytes`.
    static func appendKey(_ hash: ContentHash, to bytes: inout [UInt8]) {
        withKey(hash) { bytes.append(contentsOf: $0) }
    }

    static func string(_ key: UnsafeRawBufferPointer) -> String { String(decoding: key, as: UTF8.self) }

    /// A map's base that is a snapshot table: keys and values are decoded from its entries
    /// as they are looked up.
    struct Table<Key: Hashable & Sendable, Value: Sendable>: KeyedBase {
        let table: SnapshotTable
        /// Calls its closure with the bytes of a key.
        let withKeyBytes: @Sendable (Key, (UnsafeRawBufferPointer) -> UnsafeRawBufferPointer?) -> UnsafeRawBufferPointer?
        /// The key whose bytes are given, or `nil` when they are not one.
        let decodeKey: @Sendable (UnsafeRawBufferPointer) -> Key?
        /// The value of an entry (its key, its bytes), or `nil` when the bytes are not one.
        let decodeValue: @Sendable (Key, UnsafeRawBufferPointer) -> Value?

        var count: Int { table.count }

        func lookup(_ key: Key) -> Value? {
            guard let bytes = withKeyBytes(key, { table.value(forKey: $0) }) else { return nil }
            return decodeValue(key, bytes)
        }

        func forEachEntry(_ body: (Key, Value) -> Void) {
            table.forEachEntry { keyBytes, valueBytes in
                if let key = decodeKey(keyBytes), let value = decodeValue(key, valueBytes) { body(key, value) }
            }
        }

        var verifiedSection: (bytes: UnsafeRawBufferPointer, checksum: UInt64)? { table.verifiedSection }

        func forEachEncodedEntry(_ body: (Key, UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) -> Bool {
            table.forEachEntry { keyBytes, valueBytes in
                if let key = decodeKey(keyBytes) { body(key, keyBytes, valueBytes) }
            }
            return true
        }
    }

    /// A table keyed by strings (UIDs, file names).
    static func byString<Value>(_ table: SnapshotTable, _ decode: @escaping @Sendable (String, UnsafeRawBufferPointer) -> Value?)
        -> Table<String, Value> {
        Table(table: table, withKeyBytes: { key, body in withKey(key, body) }, decodeKey: { string($0) }, decodeValue: decode)
    }

    /// A table keyed by content hashes.
    static func byHash<Value>(_ table: SnapshotTable, _ decode: @escaping @Sendable (UnsafeRawBufferPointer) -> Value?)
        -> Table<ContentHash, Value> {
        Table(table: table, withKeyBytes: { key, body in withKey(key, body) }, decodeKey: { SnapshotValueReader.hash(key: $0) },
              decodeValue: { _, bytes in decode(bytes) })
    }

    static func records(_ table: SnapshotTable) -> Table<String, ContactRecord> { byString(table) { decodeRecord(uid: $0, $1) } }
    static func uidsByFile(_ table: SnapshotTable) -> Table<String, [String]> { byString(table) { decodeUIDs($1) } }
    static func uidsByHash(_ table: SnapshotTable) -> Table<ContentHash, [String]> { byHash(table, decodeUIDs) }
    static func cardOffsets(_ table: SnapshotTable) -> Table<ContentHash, Int64> { byHash(table, decodeOffset) }
    static func syncStates(_ table: SnapshotTable) -> Table<String, RemoteSyncState> { byString(table) { decodeState($1) } }

    // MARK: - Contact records, by UID

    static func encode(_ record: ContactRecord, into out: inout SnapshotValueWriter) {
        out.string(record.file)
        var flags: UInt8 = record.isGeneratedUID ? 1 : 0
        if record.hash != nil { flags |= 2 }
        if record.lastHash != nil { flags |= 4 }
        if record.name != nil { flags |= 8 }
        if record.edited != nil { flags |= 16 }
        out.byte(flags)
        if let hash = record.hash { out.hash(hash) }
        if let hash = record.lastHash { out.hash(hash) }
        if let name = record.name { out.string(name) }
        out.int(Int64(record.createdSequence))
        out.int(Int64(record.sequence))
        out.int(record.modified)
        if let edited = record.edited { out.int(edited) }
    }

    static func decodeRecord(uid: String, _ bytes: UnsafeRawBufferPointer) -> ContactRecord? {
        var input = SnapshotValueReader(bytes)
        guard let file = input.string(), let flags = input.byte() else { return nil }
        var hash: ContentHash?
        var lastHash: ContentHash?
        if flags & 2 != 0 { guard let read = input.hash() else { return nil }; hash = read }
        if flags & 4 != 0 { guard let read = input.hash() else { return nil }; lastHash = read }
        var record = ContactRecord(uid: uid, isGeneratedUID: flags & 1 != 0, file: file, hash: hash, lastHash: lastHash, name: nil,
                                   createdSequence: 0, sequence: 0)
        if flags & 8 != 0 { guard let name = input.string() else { return nil }; record.name = name }
        guard let created = input.int(), let last = input.int(), let modified = input.int() else { return nil }
        record.createdSequence = Int(created)
        record.sequence = Int(last)
        record.modified = modified
        if flags & 16 != 0 { guard let edited = input.int() else { return nil }; record.edited = edited }
        guard input.isAtEnd else { return nil }
        return record
    }

    // MARK: - UIDs, by file and by content

    static func encode(_ uids: [String], into out: inout SnapshotValueWriter) {
        out.int(Int64(uids.count))
        for uid in uids { out.string(uid) }
    }

    static func decodeUIDs(_ bytes: UnsafeRawBufferPointer) -> [String]? {
        var input = SnapshotValueReader(bytes)
        guard let count = input.int(), count >= 0, count <= Int64(bytes.count) else { return nil }
        var uids: [String] = []
        uids.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let uid = input.string() else { return nil }
            uids.append(uid)
        }
        return input.isAtEnd ? uids : nil
    }

    // MARK: - Card offsets, by content

    static func decodeOffset(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        var input = SnapshotValueReader(bytes)
        guard let offset = input.int(), input.isAtEnd else { return nil }
        return offset
    }

    // MARK: - Sync states, by UID (one table per remote)

    static func encode(_ state: RemoteSyncState, into out: inout SnapshotValueWriter) {
        out.string(state.revision)
        out.byte(state.hash == nil ? 0 : 1)
        if let hash = state.hash { out.hash(hash) }
    }

    static func decodeState(_ bytes: UnsafeRawBufferPointer) -> RemoteSyncState? {
        var input = SnapshotValueReader(bytes)
        guard let revision = input.string(), let flag = input.byte() else { return nil }
        var state = RemoteSyncState(revision: revision, hash: nil)
        if flag == 1 { guard let hash = input.hash() else { return nil }; state.hash = hash }
        return input.isAtEnd ? state : nil
    }

    // MARK: - File stamps, from a summary

    /// The stamps of a summary's files (those that have one).
    struct Stamps: KeyedBase {
        let files: FileTable
        let count: Int

        init(_ files: FileTable) {
            self.files = files
            var count = 0
            files.forEachEntry { _, tracked in if tracked.stamp != nil { count += 1 } }
            self.count = count
        }

        func lookup(_ file: String) -> FileStamp? { files[file]?.stamp }

        func forEachEntry(_ body: (String, FileStamp) -> Void) {
            files.forEachEntry { name, tracked in
                if let stamp = tracked.stamp { body(String(decoding: name, as: UTF8.self), stamp) }
            }
        }
    }
}
