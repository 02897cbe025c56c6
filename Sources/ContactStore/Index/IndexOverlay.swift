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
        /// The count of `changes`, then each key and its value's length and bytes (or removal).
        func write<Key, Value>(_ changes: [Key: Value?], key: (Key, inout SnapshotValueWriter) -> Void,
                               encode: (Value, inout SnapshotValueWriter) -> Void) {
            out.int(Int64(changes.count))
            for (entryKey, entry) in changes {
                key(entryKey, &out)
                guard let entry else {
                    withUnsafeBytes(of: removed.littleEndian) { out.bytes.append(contentsOf: $0) }
                    continue
                }
                encode(entry, &value)
                withUnsafeBytes(of: UInt32(value.bytes.count).littleEndian) { out.bytes.append(contentsOf: $0) }
                out.bytes.append(contentsOf: value.bytes)
                value.bytes.removeAll(keepingCapacity: true)
            }
        }
        write(index.records.changedEntries, key: { $1.string($0) }, encode: IndexTables.encode)
        write(index.uidsByFile.changedEntries, key: { $1.string($0) }, encode: IndexTables.encode)
        write(index.uidsByHash.changedEntries, key: { $1.hash($0) }, encode: IndexTables.encode)
        write(index.cardOffsets.changedEntries, key: { $1.hash($0) }, encode: { offset, out in out.int(offset) })
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
            write(states.changedEntries, key: { $1.string($0) }, encode: IndexTables.encode)
        }
        return out.bytes
    }

    /// Lays the changes in `bytes` (as ``encode(_:)`` made them) over `index`, opened on the same
    /// snapshot; `false` when they do not decode (the index is then not to be used).
    static func apply(_ bytes: [UInt8], to index: inout BookIndex) -> Bool {
        bytes.withUnsafeBytes { raw in
            var input = SnapshotValueReader(raw)
            /// Reads a count, then as many keys with their values, handing each to `set`.
            func read<Key, Value>(key: (inout SnapshotValueReader) -> Key?, decode: (Key, UnsafeRawBufferPointer) -> Value?,
                                  set: (Key, Value?) -> Void) -> Bool {
                guard let count = input.int(), count >= 0, count <= Int64(raw.count) else { return false }
                for _ in 0..<count {
                    guard let entryKey = key(&input), input.position + 4 <= raw.count else { return false }
                    let length = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: input.position, as: UInt32.self))
                    input.position += 4
                    if length == removed {
                        set(entryKey, nil)
                        continue
                    }
                    guard Int(length) <= raw.count - input.position,
                          let entry = decode(entryKey, UnsafeRawBufferPointer(rebasing: raw[input.position..<(input.position + Int(length))]))
                    else { return false }
                    input.position += Int(length)
                    set(entryKey, entry)
                }
                return true
            }
            guard read(key: { $0.string() }, decode: IndexTables.decodeRecord, set: { index.records[$0] = $1 }),
                  read(key: { $0.string() }, decode: { IndexTables.decodeUIDs($1) }, set: { index.uidsByFile[$0] = $1 }),
                  read(key: { $0.hash() }, decode: { IndexTables.decodeUIDs($1) }, set: { index.uidsByHash[$0] = $1 }),
                  read(key: { $0.hash() }, decode: { IndexTables.decodeOffset($1) }, set: { index.cardOffsets[$0] = $1 }),
                  let remoteCount = input.int(), remoteCount >= 0, remoteCount <= Int64(raw.count)
            else { return false }
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
                guard read(key: { $0.string() }, decode: { IndexTables.decodeState($1) }, set: { index.syncStates[remote]![$0] = $1 })
                else { return false }
            }
            return input.isAtEnd
        }
    }
}
