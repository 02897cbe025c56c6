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

    static func string(_ key: UnsafeRawBufferPointer) -> String { String(decoding: key, as: UTF8.self) }

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
        guard input.isAtEnd else { return nil }
        return record
    }

    struct Records: KeyedBase {
        let table: SnapshotTable
        var count: Int { table.count }
        func lookup(_ uid: String) -> ContactRecord? {
            guard let value = withKey(uid, { table.value(forKey: $0) }) else { return nil }
            return decodeRecord(uid: uid, value)
        }
        func forEachEntry(_ body: (String, ContactRecord) -> Void) {
            table.forEachEntry { key, value in
                let uid = string(key)
                if let record = decodeRecord(uid: uid, value) { body(uid, record) }
            }
        }
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

    struct UIDsByFile: KeyedBase {
        let table: SnapshotTable
        var count: Int { table.count }
        func lookup(_ file: String) -> [String]? {
            withKey(file) { table.value(forKey: $0) }.flatMap(decodeUIDs)
        }
        func forEachEntry(_ body: (String, [String]) -> Void) {
            table.forEachEntry { key, value in if let uids = decodeUIDs(value) { body(string(key), uids) } }
        }
    }

    struct UIDsByHash: KeyedBase {
        let table: SnapshotTable
        var count: Int { table.count }
        func lookup(_ hash: ContentHash) -> [String]? {
            withKey(hash) { table.value(forKey: $0) }.flatMap(decodeUIDs)
        }
        func forEachEntry(_ body: (ContentHash, [String]) -> Void) {
            table.forEachEntry { key, value in
                if let hash = SnapshotValueReader.hash(key: key), let uids = decodeUIDs(value) { body(hash, uids) }
            }
        }
    }

    // MARK: - Card offsets, by content

    static func decodeOffset(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        var input = SnapshotValueReader(bytes)
        guard let offset = input.int(), input.isAtEnd else { return nil }
        return offset
    }

    struct CardOffsets: KeyedBase {
        let table: SnapshotTable
        var count: Int { table.count }
        func lookup(_ hash: ContentHash) -> Int64? {
            withKey(hash) { table.value(forKey: $0) }.flatMap(decodeOffset)
        }
        func forEachEntry(_ body: (ContentHash, Int64) -> Void) {
            table.forEachEntry { key, value in
                if let hash = SnapshotValueReader.hash(key: key), let offset = decodeOffset(value) { body(hash, offset) }
            }
        }
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

    struct SyncStates: KeyedBase {
        let table: SnapshotTable
        var count: Int { table.count }
        func lookup(_ uid: String) -> RemoteSyncState? {
            withKey(uid) { table.value(forKey: $0) }.flatMap(decodeState)
        }
        func forEachEntry(_ body: (String, RemoteSyncState) -> Void) {
            table.forEachEntry { key, value in if let state = decodeState(value) { body(string(key), state) } }
        }
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
