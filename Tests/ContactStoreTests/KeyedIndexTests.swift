@testable import ContactStore
import Testing
import VCardKit

/// The index's maps over the snapshot's tables: what a snapshot holds is found by key without
/// decoding the rest, changes made since lie on top of it, and a damaged table is refused.
@Suite struct KeyedIndexTests {
    private func hash(_ seed: UInt64) -> ContentHash {
        ContentHash(words: (seed &* 0x9E37_79B9_7F4A_7C15, seed, ~seed, seed &+ 7))
    }

    /// An index of `count` contacts (every fifth deleted, every seventh sharing a card with the
    /// one before), each live one in its own file, synced with two remotes.
    private func index(count: Int) -> BookIndex {
        var index = BookIndex()
        var sequence = 0
        for number in 0..<count {
            sequence += 1
            let content = number % 7 == 0 && number > 0 ? hash(UInt64(number - 1)) : hash(UInt64(number))
            index.apply(JournalEvent(operation: .add, uid: "uid-\(number)", file: "file-\(number).vcf", hash: content, previousHash: nil,
                                     source: .folder, name: number % 3 == 0 ? nil : "Name \(number)", card: Array("card \(number)".utf8)),
                        offset: Int64(number * 100))
            if number % 5 == 4 {
                sequence += 1
                index.apply(JournalEvent(operation: .delete, uid: "uid-\(number)", file: "file-\(number).vcf", hash: nil,
                                         previousHash: content, source: .folder), offset: Int64(number * 100 + 50))
            }
            for remote in ["https://a.invalid/db", "https://b.invalid/db"] where number % 2 == 0 || remote.contains("a.") {
                index.apply(JournalEvent.synced(uid: "uid-\(number)", file: "file-\(number).vcf", remote: remote, revision: "1-\(number)",
                                                hash: number % 5 == 4 ? nil : content), offset: 0)
            }
        }
        index.stamps["file-1.vcf"] = FileStamp(size: 1, modified: 2, changed: 3, inode: 4)
        return index
    }

    /// The summary the snapshot is saved with, and the index opened on the snapshot's tables.
    private func reopened(_ index: BookIndex) throws -> BookIndex {
        let bytes = IndexSnapshot.encode(index)
        let (summary, bodyStart) = try #require(IndexSnapshot.decodeSummary(bytes))
        return try #require(IndexSnapshot.openBody(SnapshotBytes(copying: bytes), from: bodyStart, summary: summary))
    }

    @Test func everyEntryOfASnapshotIsFoundByKeyAsItWasSaved() throws {
        let original = index(count: 500)
        let opened = try reopened(original)
        #expect(opened.records.hasBase && opened.cardOffsets.hasBase)
        for (uid, record) in original.records { #expect(opened.records[uid] == record) }
        for (file, uids) in original.uidsByFile { #expect(opened.uidsByFile[file] == uids) }
        for (hash, uids) in original.uidsByHash { #expect(opened.uidsByHash[hash] == uids) }
        for (hash, offset) in original.cardOffsets { #expect(opened.cardOffsets[hash] == offset) }
        #expect(opened.syncStates.keys.sorted() == original.syncStates.keys.sorted())
        for (remote, states) in original.syncStates {
            for (uid, state) in states { #expect(opened.syncStates[remote]?[uid] == state) }
            #expect(opened.syncStates[remote] == states)
            #expect(opened.syncedCounts[remote] == original.syncedCounts[remote])
        }
        #expect(opened.records == original.records && opened.uidsByFile == original.uidsByFile)
        #expect(opened.uidsByHash == original.uidsByHash && opened.cardOffsets == original.cardOffsets)
        #expect(opened.liveCount == original.liveCount && opened.records.count == original.records.count)
        #expect(opened.stamps["file-1.vcf"] == FileStamp(size: 1, modified: 2, changed: 3, inode: 4))
        // Keys that were never saved are not found.
        #expect(opened.records["uid-500"] == nil && opened.uidsByFile["file-4.vcf"] == nil && opened.cardOffsets[hash(9999)] == nil)
    }

    /// A small table keeps the entries its first pass encodes for the second; a large one is
    /// encoded twice. Both give the same tables (their slots differ only by the random seed).
    @Test func aTableEncodedTwiceOpensAsTheTableThatKeptItsEntries() throws {
        let original = index(count: 300)
        let kept = IndexSnapshot.encode(original)
        let twice = IndexSnapshot.encode(original, keptEntriesLimit: 0)
        #expect(try sections(kept).map(\.count) == sections(twice).map(\.count), "the same sections, of the same lengths")
        for bytes in [kept, twice] {
            let (summary, bodyStart) = try #require(IndexSnapshot.decodeSummary(bytes))
            let opened = try #require(IndexSnapshot.openBody(SnapshotBytes(copying: bytes), from: bodyStart, summary: summary))
            #expect(opened.records == original.records && opened.uidsByFile == original.uidsByFile)
            #expect(opened.uidsByHash == original.uidsByHash && opened.cardOffsets == original.cardOffsets)
            #expect(opened.syncStates == original.syncStates)
        }
    }

    @Test func aSnapshotSavedFromTheIndexAloneListsEveryFileTheIndexTracks() throws {
        var original = index(count: 120)
        // A stamped file whose contact was deleted, and one with no contact at all: tracked, not live.
        original.stamps["file-4.vcf"] = FileStamp(size: 10, modified: 20, changed: 30, inode: 40)
        original.stamps["stray.vcf"] = FileStamp(size: 5, modified: 6, changed: 7, inode: 8)
        let (summary, _) = try #require(IndexSnapshot.decodeSummary(IndexSnapshot.encode(original)))
        #expect(summary == IndexSummary(of: original))
        #expect(summary.files.count == original.uidsByFile.count + 2 && summary.liveFileCount == original.uidsByFile.count)
        #expect(summary.files["file-1.vcf"] == IndexSummary.TrackedFile(stamp: FileStamp(size: 1, modified: 2, changed: 3, inode: 4), isLive: true))
        #expect(summary.files["file-4.vcf"] == IndexSummary.TrackedFile(stamp: FileStamp(size: 10, modified: 20, changed: 30, inode: 40), isLive: false))
        #expect(summary.files["stray.vcf"] == IndexSummary.TrackedFile(stamp: FileStamp(size: 5, modified: 6, changed: 7, inode: 8), isLive: false))
        #expect(summary.files["file-2.vcf"] == IndexSummary.TrackedFile(stamp: nil, isLive: true))
    }

    @Test func eventsAppliedAfterOpeningGiveWhatTheyGiveInMemory() throws {
        var inMemory = index(count: 300)
        var opened = try reopened(inMemory)
        let events: [JournalEvent] = [
            JournalEvent(operation: .update, uid: "uid-10", file: "file-10.vcf", hash: hash(77_777), previousHash: hash(10), source: .folder),
            JournalEvent(operation: .delete, uid: "uid-11", file: "file-11.vcf", hash: nil, previousHash: hash(11), source: .folder),
            JournalEvent(operation: .add, uid: "uid-14", file: "file-14.vcf", hash: hash(14), previousHash: nil, source: .folder),
            JournalEvent(operation: .rename, uid: "uid-12", file: "moved.vcf", hash: hash(12), previousHash: hash(12), source: .folder),
            JournalEvent(operation: .add, uid: "fresh", file: "file-20.vcf", hash: hash(20), previousHash: nil, source: .folder, card: [1, 2]),
            JournalEvent.synced(uid: "uid-10", file: "f.vcf", remote: "https://a.invalid/db", revision: "2-x", hash: hash(77_777)),
            JournalEvent.synced(uid: "uid-11", file: "f.vcf", remote: "https://b.invalid/db", revision: "3-x", hash: nil),
            JournalEvent.synced(uid: "fresh", file: "f.vcf", remote: "https://c.invalid/db", revision: "1-y", hash: hash(20)),
        ]
        for (position, event) in events.enumerated() {
            inMemory.apply(event, offset: Int64(1_000_000 + position))
            opened.apply(event, offset: Int64(1_000_000 + position))
        }
        inMemory.stamps["file-10.vcf"] = nil
        opened.stamps["file-10.vcf"] = nil
        #expect(opened.records == inMemory.records && opened.uidsByFile == inMemory.uidsByFile)
        #expect(opened.uidsByHash == inMemory.uidsByHash && opened.cardOffsets == inMemory.cardOffsets)
        #expect(opened.syncStates == inMemory.syncStates && opened.syncedCounts == inMemory.syncedCounts)
        #expect(opened.liveCount == inMemory.liveCount && opened.stamps == inMemory.stamps)
        #expect(opened.uidsByFile["file-20.vcf"] == ["uid-20", "fresh"])
        #expect(opened.uidsByFile["file-12.vcf"] == nil && opened.uidsByFile["moved.vcf"] == ["uid-12"])
        #expect(IndexSummary(of: opened) == IndexSummary(of: inMemory))
        // Saved again (the unchanged entries copied as they are) and reopened: the same index.
        let again = try reopened(opened)
        #expect(again.records == inMemory.records && again.uidsByFile == inMemory.uidsByFile)
        #expect(again.uidsByHash == inMemory.uidsByHash && again.cardOffsets == inMemory.cardOffsets)
        #expect(again.syncStates == inMemory.syncStates && again.syncedCounts == inMemory.syncedCounts)
        // The changes saved in a delta's overlay and laid over the first snapshot: the same index.
        var overlaid = try reopened(index(count: 300))
        #expect(IndexOverlay.apply(try #require(IndexOverlay.encode(opened)), to: &overlaid))
        #expect(overlaid.records == inMemory.records && overlaid.uidsByFile == inMemory.uidsByFile)
        #expect(overlaid.uidsByHash == inMemory.uidsByHash && overlaid.cardOffsets == inMemory.cardOffsets)
        #expect(overlaid.syncStates == inMemory.syncStates)
    }

    @Test func aTableWrittenInTwoPassesAndInBlocksIsFoundWholeByKeyAndInOrder() throws {
        // Entries of 14 to 75 bytes streamed in blocks of 256, and one entry larger than a block.
        let entries: [(key: [UInt8], value: [UInt8])] = (0..<600).map { number in
            (Array("key-\(number)".utf8),
             number == 300 ? [UInt8](repeating: 0xA5, count: 1000) : Array(String(repeating: "v", count: number % 60).utf8))
        }
        var writer = SnapshotTableWriter(capacity: entries.count)
        for entry in entries { entry.key.withUnsafeBytes { writer.place(key: $0, valueLength: entry.value.count) } }
        var blocks: [[UInt8]] = [writer.head()]
        var stream = SnapshotSectionStream(blockLength: 256)
        for entry in entries {
            entry.key.withUnsafeBytes { key in entry.value.withUnsafeBytes { stream.append(key: key, value: $0) { blocks.append($0) } } }
        }
        stream.finish { blocks.append($0) }
        #expect(stream.length == writer.entriesLength)
        #expect(blocks.count > 100, "the entries span blocks")
        #expect(blocks.dropFirst().allSatisfy { $0.count <= 256 || $0.count == 8 + 7 + 1000 }, "a block holds at most 256 bytes, or one larger entry")
        let bytes = blocks.flatMap { $0 }
        let table = try #require(SnapshotTable(SnapshotBytes(copying: bytes), at: 0, end: bytes.count))
        #expect(table.count == 600 && table.end == bytes.count)
        for entry in entries {
            let found = entry.key.withUnsafeBytes { table.value(forKey: $0).map { Array($0) } }
            #expect(found == entry.value, "\(String(decoding: entry.key, as: UTF8.self))")
        }
        var order: [[UInt8]] = []
        table.forEachEntry { key, _ in order.append(Array(key)) }
        #expect(order == entries.map(\.key))
    }

    /// The sections of a snapshot's body: each one's bytes (between its length and its checksum).
    private func sections(_ bytes: [UInt8]) throws -> [[UInt8]] {
        var position = try #require(IndexSnapshot.decodeSummary(bytes)).bodyStart
        var result: [[UInt8]] = []
        while position < bytes.count {
            let length = bytes[position..<(position + 8)].reversed().reduce(0) { $0 << 8 | Int($1) }
            result.append(Array(bytes[(position + 8)..<(position + 8 + length)]))
            position += 16 + length
        }
        return result
    }

    @Test func tablesThatDidNotChangeAreSavedAsTheyLieInTheSnapshotTheIndexOpened() throws {
        let original = IndexSnapshot.encode(index(count: 400))
        let (summary, bodyStart) = try #require(IndexSnapshot.decodeSummary(original))
        var opened = try #require(IndexSnapshot.openBody(SnapshotBytes(copying: original), from: bodyStart, summary: summary))
        // Only the second remote's sync states change.
        opened.apply(JournalEvent.synced(uid: "uid-2", file: "file-2.vcf", remote: "https://b.invalid/db", revision: "2-z", hash: hash(2)),
                     offset: 0)
        let saved = IndexSnapshot.encode(opened)
        let before = try sections(original), after = try sections(saved)
        // The directory, then records, files, contents, card offsets, remote a, remote b.
        #expect(before.count == 7 && after.count == 7)
        // A table written afresh gets a new random seed, so equal bytes mean a copy.
        let copied = (0..<7).map { after[$0] == before[$0] }
        #expect(copied == [true, true, true, true, true, true, false], "the directory and the five unchanged tables copied")
        // And the copy reopens as the index it was saved from.
        let (savedSummary, savedBodyStart) = try #require(IndexSnapshot.decodeSummary(saved))
        let reopened = try #require(IndexSnapshot.openBody(SnapshotBytes(copying: saved), from: savedBodyStart, summary: savedSummary))
        #expect(reopened.records == opened.records && reopened.uidsByFile == opened.uidsByFile)
        #expect(reopened.uidsByHash == opened.uidsByHash && reopened.cardOffsets == opened.cardOffsets)
        #expect(reopened.syncStates == opened.syncStates)
    }

    @Test func aChangedByteInAnyTableIsRefused() throws {
        let bytes = IndexSnapshot.encode(index(count: 200))
        let (summary, bodyStart) = try #require(IndexSnapshot.decodeSummary(bytes))
        #expect(IndexSnapshot.openBody(SnapshotBytes(copying: bytes), from: bodyStart, summary: summary) != nil)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var damaged = bytes
            let at = Int.random(in: bodyStart..<bytes.count, using: &generator)
            damaged[at] ^= UInt8.random(in: 1...255, using: &generator)
            #expect(IndexSnapshot.openBody(SnapshotBytes(copying: damaged), from: bodyStart, summary: summary) == nil, "byte \(at)")
        }
        // Cut short anywhere in the body.
        for end in stride(from: bodyStart, to: bytes.count, by: max(1, (bytes.count - bodyStart) / 97)) {
            #expect(IndexSnapshot.openBody(SnapshotBytes(copying: Array(bytes[..<end])), from: bodyStart, summary: summary) == nil)
        }
    }

    @Test func aKeyedMapCountsAndRemovesOverItsBase() throws {
        let opened = try reopened(index(count: 50))
        var records = opened.records
        let count = records.count
        records["uid-0"] = nil
        records["uid-0"] = nil
        records["nobody"] = nil
        #expect(records.count == count - 1 && records["uid-0"] == nil)
        #expect(!records.keys.contains("uid-0") && records.values.count == count - 1)
        let back = try #require(opened.records["uid-0"])
        records.updateValue(back, forKey: "uid-0")
        records["extra"] = back
        #expect(records.count == count + 1 && records["uid-0"] == back)
        #expect(records.dictionary.count == count + 1)
        var plain: KeyedMap<String, Int> = ["a": 1]
        plain["a"] = nil
        #expect(plain.isEmpty && plain.changedEntries.isEmpty)
    }

    @Test func theSnapshotChecksumDoesNotDependOnHowTheBytesArriveAndSeesEveryByte() {
        var generator = SystemRandomNumberGenerator()
        for length in [0, 1, 7, 8, 31, 32, 33, 64, 95, 1000, 4099] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let whole = SnapshotChecksum.of(bytes)
            // Split at random places: the same value.
            var pieces = SnapshotChecksum()
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + Int.random(in: 1...40, using: &generator))
                pieces.update(bytes[start..<end])
                start = end
            }
            #expect(pieces.value == whole, "length \(length)")
            // Any byte changed, a zero byte added, or two of the lanes' words swapped: another value.
            if length > 0 {
                var changed = bytes
                changed[Int.random(in: 0..<length, using: &generator)] ^= 0x01
                #expect(SnapshotChecksum.of(changed) != whole, "length \(length)")
            }
            #expect(SnapshotChecksum.of(bytes + [0]) != whole, "length \(length)")
            if length >= 32 {
                let swapped = Array(bytes[8..<16] + bytes[0..<8] + bytes[16...])
                #expect(bytes[0..<8] == bytes[8..<16] || SnapshotChecksum.of(swapped) != whole, "length \(length)")
            }
        }
    }
}
