import VCardKit

/// What changed in an index opened on a snapshot's tables (``KeyedMap/changedEntries`` of each of
/// its maps), saved at the end of an ``IndexDelta`` so that the next opening lays it over the same
/// snapshot instead of replaying the journal lines written since the snapshot.
///
/// The bytes: the changed records, the changed UID lists by file and by content, the changed card
/// offsets, then each remote's sync states (removed, changed over the snapshot's table, or made
/// afresh), each entry a key and its value's length and bytes (`0xFFFF_FFFF`: removed). They are
/// covered by the delta's own checksum.
enum IndexOverlay {
    private static let removed = UInt32.max

    /// The changes of `index` since its snapshot, or `nil` when its maps were not all opened on
    /// one (an index rebuilt from the journal: the snapshot is rewritten instead).
    static func encode(_ index: BookIndex) -> [UInt8]? {
        guard index.records.hasBase, index.uidsByFile.hasBase, index.uidsByHash.hasBase, index.cardOffsets.hasBase else { return nil }
        var out = SnapshotValueWriter()
        var value = SnapshotValueWriter()
        func entry(_ present: Bool) {
            if present {
                withUnsafeBytes(of: UInt32(value.bytes.count).littleEndian) { out.bytes.append(contentsOf: $0) }
                out.bytes.append(contentsOf: value.bytes)
            } else {
                withUnsafeBytes(of: removed.littleEndian) { out.bytes.append(contentsOf: $0) }
            }
            value.bytes.removeAll(keepingCapacity: true)
        }
        let records = index.records.changedEntries
        out.int(Int64(records.count))
        for (uid, record) in records {
            out.string(uid)
            if let record { IndexTables.encode(record, into: &value) }
            entry(record != nil)
        }
        let byFile = index.uidsByFile.changedEntries
        out.int(Int64(byFile.count))
        for (file, uids) in byFile {
            out.string(file)
            if let uids { IndexTables.encode(uids, into: &value) }
            entry(uids != nil)
        }
        let byHash = index.uidsByHash.changedEntries
        out.int(Int64(byHash.count))
        for (hash, uids) in byHash {
            out.hash(hash)
            if let uids { IndexTables.encode(uids, into: &value) }
            entry(uids != nil)
        }
        let offsets = index.cardOffsets.changedEntries
        out.int(Int64(offsets.count))
        for (hash, offset) in offsets {
            out.hash(hash)
            if let offset { value.int(offset) }
            entry(offset != nil)
        }
        // Every remote the index or its snapshot knows: removed ones too.
        let remotes = Set(index.syncStates.keys).union(index.snapshotRemotes).sorted()
        out.int(Int64(remotes.count))
        for remote in remotes {
            out.string(remote)
            guard let states = index.syncStates[remote] else {
                out.byte(0)
                continue
            }
            out.byte(states.hasBase ? 1 : 2)
            let changed = states.changedEntries
            out.int(Int64(changed.count))
            for (uid, state) in changed {
                out.string(uid)
                if let state { IndexTables.encode(state, into: &value) }
                entry(state != nil)
            }
        }
        return out.bytes
    }

    /// Lays the changes in `bytes` (as ``encode(_:)`` made them) over `index`, opened on the same
    /// snapshot; `false` when they do not decode (the index is then not to be used).
    static func apply(_ bytes: [UInt8], to index: inout BookIndex) -> Bool {
        bytes.withUnsafeBytes { raw in
            var input = SnapshotValueReader(raw)
            func value() -> UnsafeRawBufferPointer?? {
                guard input.position + 4 <= raw.count else { return nil }
                let length = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: input.position, as: UInt32.self))
                input.position += 4
                if length == removed { return .some(nil) }
                guard Int(length) <= raw.count - input.position else { return nil }
                defer { input.position += Int(length) }
                return .some(UnsafeRawBufferPointer(rebasing: raw[input.position..<(input.position + Int(length))]))
            }
            func count() -> Int? {
                guard let count = input.int(), count >= 0, count <= Int64(raw.count) else { return nil }
                return Int(count)
            }
            guard let recordCount = count() else { return false }
            for _ in 0..<recordCount {
                guard let uid = input.string(), let bytes = value() else { return false }
                if let bytes {
                    guard let record = IndexTables.decodeRecord(uid: uid, bytes) else { return false }
                    index.records[uid] = record
                } else {
                    index.records[uid] = nil
                }
            }
            guard let fileCount = count() else { return false }
            for _ in 0..<fileCount {
                guard let file = input.string(), let bytes = value() else { return false }
                if let bytes {
                    guard let uids = IndexTables.decodeUIDs(bytes) else { return false }
                    index.uidsByFile[file] = uids
                } else {
                    index.uidsByFile[file] = nil
                }
            }
            guard let hashCount = count() else { return false }
            for _ in 0..<hashCount {
                guard let hash = input.hash(), let bytes = value() else { return false }
                if let bytes {
                    guard let uids = IndexTables.decodeUIDs(bytes) else { return false }
                    index.uidsByHash[hash] = uids
                } else {
                    index.uidsByHash[hash] = nil
                }
            }
            guard let offsetCount = count() else { return false }
            for _ in 0..<offsetCount {
                guard let hash = input.hash(), let bytes = value() else { return false }
                if let bytes {
                    guard let offset = IndexTables.decodeOffset(bytes) else { return false }
                    index.cardOffsets[hash] = offset
                } else {
                    index.cardOffsets[hash] = nil
                }
            }
            guard let remoteCount = count() else { return false }
            for _ in 0..<remoteCount {
                guard let remote = input.string(), let kind = input.byte() else { return false }
                switch kind {
                case 0:
                    index.syncStates[remote] = nil
                    continue
                case 1 where index.syncStates[remote] != nil:
                    break
                case 1, 2:
                    index.syncStates[remote] = KeyedMap()
                default:
                    return false
                }
                guard let stateCount = count() else { return false }
                for _ in 0..<stateCount {
                    guard let uid = input.string(), let bytes = value() else { return false }
                    if let bytes {
                        guard let state = IndexTables.decodeState(bytes) else { return false }
                        index.syncStates[remote]![uid] = state
                    } else {
                        index.syncStates[remote]![uid] = nil
                    }
                }
            }
            return input.isAtEnd
        }
    }
}
