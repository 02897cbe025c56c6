@testable import ContactStore
import Foundation
import Testing

/// The index delta: a run that changes a few contacts saves what changed beside the snapshot
/// instead of rewriting it; reopened, the book knows exactly what a rebuild from the journal
/// knows; a torn, damaged or foreign delta is ignored and the index rebuilt; past its limit the
/// snapshot is rewritten.
@Suite struct IndexDeltaTests {
    private let remote = "http://example.invalid/contacts"

    /// A book of `count` contacts, all in step with ``remote``, whose files are old enough for
    /// their stamps to be trusted, saved as a whole snapshot (no delta).
    private func settledBook(count: Int) async throws -> URL {
        let book = try makeBook()
        for index in 0..<count { try book.write(cardText(uid: "u\(index)", name: "Person \(index)"), to: "u\(index).vcf") }
        try await AddressBook.withOpen(at: book) { book in
            let states = await book.liveRecords().map { (uid: $0.uid, state: RemoteSyncState(revision: "1-a", hash: $0.hash)) }
            try await book.recordSynced(states, remote: remote)
            try await book.recordCheckpoint("1", remote: remote)
        }
        try await Task.sleep(for: .milliseconds(250))
        // Stamps trusted now: the first delta; then a whole snapshot, so each test starts from one.
        try await AddressBook.withOpen(at: book) { book in try await book.saveSnapshot() }
        #expect(!FileManager.default.fileExists(atPath: deltaURL(book).path))
        return book
    }

    private func snapshotURL(_ book: URL) -> URL { book.appendingPathComponent(".cardsync/index.bin") }
    private func deltaURL(_ book: URL) -> URL { book.appendingPathComponent(".cardsync/index.delta") }

    /// Everything the index holds that a caller can see: every record (deleted ones too), the
    /// sync state and checkpoint with ``remote``, the count.
    private struct Known: Equatable {
        var records: Set<ContactRecord>
        var states: [String: RemoteSyncState]
        var checkpoint: String?
        var count: Int
        var unsynced: [String]
    }

    private func known(_ book: URL) async throws -> Known {
        try await AddressBook.withOpen(at: book, options: .init(scans: false)) { book in
            Known(records: Set(await book.allRecords()), states: await book.syncStates(remote: remote),
                  checkpoint: await book.checkpoint(remote: remote), count: await book.contactCount,
                  unsynced: await book.unsyncedChanges(remote: remote).map(\.record.uid))
        }
    }

    /// What a rebuild from the journal alone gives (snapshot and delta removed first).
    private func rebuiltFromJournal(_ book: URL) async throws -> Known {
        let copy = try makeBook("copy")
        try FileManager.default.removeItem(at: copy)
        try FileManager.default.copyItem(at: book, to: copy)
        try? FileManager.default.removeItem(at: snapshotURL(copy))
        try? FileManager.default.removeItem(at: deltaURL(copy))
        return try await known(copy)
    }

    /// Edits `k` contacts in the folder (as another program would), deletes one, adds one.
    private func changeSome(_ book: URL, _ k: Int, round: Int) throws {
        for index in 0..<k {
            try book.write(cardText(uid: "u\(index)", name: "Person \(index)", email: "r\(round)@example.com"), to: "u\(index).vcf")
        }
        try? FileManager.default.removeItem(at: book.appendingPathComponent("u\(k).vcf"))
        try book.write(cardText(uid: "new\(round)", name: "Newcomer \(round)"), to: "new\(round).vcf")
    }

    @Test func aFewChangesAreSavedAsADeltaAndReopenAsARebuildFromTheJournalWould() async throws {
        let book = try await settledBook(count: 40)
        let base = try Data(contentsOf: snapshotURL(book))
        for round in 0..<3 {
            try changeSome(book, 3, round: round)
            let scan = try await AddressBook.withOpen(at: book) { book in
                let scan = await book.openingScan
                // A push of some of them: sync state recorded, then a checkpoint.
                let pushed = await book.unsyncedChanges(remote: remote).prefix(2)
                try await book.recordSynced(pushed.map { (uid: $0.record.uid, state: RemoteSyncState(revision: "2-\(round)", hash: $0.record.hash)) },
                                            remote: remote)
                try await book.recordCheckpoint("\(round + 2)", remote: remote)
                return scan
            }
            #expect((scan?.events.count ?? 0) >= 4, "\(scan?.events ?? [])")
            #expect(try Data(contentsOf: snapshotURL(book)) == base, "the snapshot is not rewritten for a few changes")
            #expect(FileManager.default.fileExists(atPath: deltaURL(book).path))
            let reopened = try await known(book)
            let rebuilt = try await rebuiltFromJournal(book)
            #expect(reopened == rebuilt)
            #expect(reopened.checkpoint == "\(round + 2)" && !reopened.unsynced.isEmpty)
        }
        // Stamps the delta holds are trusted: once settled, nothing is read or rewritten.
        try await Task.sleep(for: .milliseconds(250))
        try await AddressBook.withOpen(at: book) { _ in }
        let delta = try Data(contentsOf: deltaURL(book))
        let scan = try await AddressBook.withOpen(at: book) { book in await book.openingScan }
        #expect(scan?.filesRead == 0 && scan?.events.isEmpty == true && scan?.filesSeen == 42)
        #expect(try Data(contentsOf: deltaURL(book)) == delta)
        #expect(try Data(contentsOf: snapshotURL(book)) == base)
        let check = try await AddressBook.withOpen(at: book) { book in try await book.check() }
        #expect(check.isConsistent, "\(check.problems)")
    }

    /// A run that changed a few contacts brings the summary it opened with up to date from what
    /// it touched (debug builds also compare that with summarizing the whole index): with a
    /// second remote appearing, a remote forgotten, deletions, renames and sync states.
    @Test func theSummaryBroughtUpToDateFromTheChangesIsTheWholeIndexsSummary() async throws {
        let book = try await settledBook(count: 30)
        let other = "http://other.invalid/contacts"
        for round in 0..<4 {
            try changeSome(book, 2, round: round)
            if round == 1 {
                try FileManager.default.moveItem(at: book.appendingPathComponent("u20.vcf"), to: book.appendingPathComponent("renamed.vcf"))
            }
            try await AddressBook.withOpen(at: book) { book in
                let changed = await book.unsyncedChanges(remote: remote)
                switch round {
                case 0:
                    // A second remote: every live contact synced with it.
                    let live = await book.liveRecords()
                    try await book.recordSynced(live.map { (uid: $0.uid, state: RemoteSyncState(revision: "1-o", hash: $0.hash)) }, remote: other)
                    try await book.recordCheckpoint("o1", remote: other)
                case 2:
                    try await book.forgetSyncState(remote: other)
                default:
                    try await book.recordSynced(changed.prefix(1).map { (uid: $0.record.uid, state: RemoteSyncState(revision: "3-\(round)", hash: $0.record.hash)) },
                                                remote: remote)
                }
                #expect(await book.unsyncedChanges(remote: remote).count <= changed.count)
            }
            #expect(FileManager.default.fileExists(atPath: deltaURL(book).path))
            let reopened = try await known(book)
            #expect(reopened == (try await rebuiltFromJournal(book)), "round \(round)")
            let synced = try await AddressBook.withOpen(at: book, options: .init(scans: false)) { book in await book.syncedCount(remote: other) }
            // Synced once with the second remote (the edits since do not undo that), until it is forgotten.
            #expect(synced == (round < 2 ? 30 : 0), "round \(round): contacts synced with the second remote")
        }
    }

    @Test func aTornDamagedOrForeignDeltaIsIgnoredAndTheIndexRebuiltFromTheJournal() async throws {
        let book = try await settledBook(count: 12)
        try changeSome(book, 4, round: 0)
        try await AddressBook.withOpen(at: book) { _ in }
        let expected = try await rebuiltFromJournal(book)
        let good = try Data(contentsOf: deltaURL(book))
        // Another book's delta (another base) of the same shape.
        let other = try await settledBook(count: 12)
        try changeSome(other, 4, round: 0)
        try await AddressBook.withOpen(at: other) { _ in }
        var damaged: [Data] = []
        for position in [3, 12, good.count / 2, good.count - 2] {
            var bytes = good
            bytes[position] ^= 0x41
            damaged.append(bytes)
        }
        damaged.append(good.prefix(good.count - 9))
        damaged.append(Data())
        damaged.append(try Data(contentsOf: deltaURL(other)))
        for bytes in damaged {
            try bytes.write(to: deltaURL(book))
            #expect(try await known(book) == expected)
            let scan = try await AddressBook.withOpen(at: book) { book in await book.openingScan }
            #expect(scan?.events.isEmpty == true, "\(scan?.events ?? [])")
            #expect(try await known(book) == expected)
            #expect(try Data(contentsOf: deltaURL(book)) != bytes, "the bad delta is replaced")
        }
        let check = try await AddressBook.withOpen(at: book) { book in try await book.check() }
        #expect(check.isConsistent, "\(check.problems)")
    }

    /// The delta is not synced (it is a cache of the synced journal), so a power loss may leave
    /// the one saved before, whole and valid, while the journal holds a later run's lines: the
    /// opening applies it and replays the lines after it, and knows what a rebuild knows.
    @Test func aDeltaOneSaveBehindTheJournalIsAppliedAndTheLinesAfterItReplayed() async throws {
        let book = try await settledBook(count: 20)
        try changeSome(book, 3, round: 0)
        try await AddressBook.withOpen(at: book) { _ in }
        let earlier = try Data(contentsOf: deltaURL(book))
        try changeSome(book, 5, round: 1)
        try await AddressBook.withOpen(at: book) { book in
            let changed = await book.unsyncedChanges(remote: remote)
            try await book.recordSynced(changed.prefix(2).map { (uid: $0.record.uid, state: RemoteSyncState(revision: "2-b", hash: $0.record.hash)) },
                                        remote: remote)
            try await book.recordCheckpoint("2", remote: remote)
        }
        let expected = try await rebuiltFromJournal(book)
        #expect(try Data(contentsOf: deltaURL(book)) != earlier)
        try earlier.write(to: deltaURL(book))
        #expect(try await known(book) == expected)
        #expect(expected.checkpoint == "2")
        let scan = try await AddressBook.withOpen(at: book) { book in await book.openingScan }
        #expect(scan?.events.isEmpty == true, "\(scan?.events ?? [])")
        let check = try await AddressBook.withOpen(at: book) { book in try await book.check() }
        #expect(check.isConsistent, "\(check.problems)")
    }

    /// A kill -9 while the snapshot is rewritten: after the new snapshot was moved into place and
    /// before the delta (which names the old one) was removed, or before the new snapshot was
    /// moved into place (its temporary file left). Either way the next opening knows exactly what
    /// the journal holds: no contact lost or counted twice, nothing recorded by its scan.
    @Test func aKillWhileTheSnapshotIsRewrittenLeavesABookThatKnowsWhatTheJournalHolds() async throws {
        let book = try await settledBook(count: 30)
        let options = AddressBook.OpenOptions(indexDeltaLimit: 8)
        try changeSome(book, 1, round: 0)
        try await AddressBook.withOpen(at: book, options: options) { _ in }
        let oldSnapshot = try Data(contentsOf: snapshotURL(book))
        let staleDelta = try Data(contentsOf: deltaURL(book))
        // Past the limit: the snapshot is rewritten and the delta removed.
        try changeSome(book, 10, round: 1)
        try await AddressBook.withOpen(at: book, options: options) { _ in }
        #expect(try Data(contentsOf: snapshotURL(book)) != oldSnapshot)
        #expect(!FileManager.default.fileExists(atPath: deltaURL(book).path))
        let expected = try await rebuiltFromJournal(book)
        #expect(expected.count == 31, "u1 deleted, then written again; u10 deleted; new0 and new1 added")

        // Killed after the new snapshot was in place, before the delta was removed: the delta names the old snapshot.
        try staleDelta.write(to: deltaURL(book))
        #expect(try await known(book) == expected)
        let scan = try await AddressBook.withOpen(at: book) { book in await book.openingScan }
        #expect(scan?.events.isEmpty == true, "\(scan?.events ?? [])")
        #expect(try await known(book) == expected)

        // Killed before the new snapshot was moved into place: the old snapshot and its delta, the journal past both.
        try oldSnapshot.write(to: snapshotURL(book))
        try staleDelta.write(to: deltaURL(book))
        try Data("partial".utf8).write(to: book.appendingPathComponent(".cardsync/.index.bin.cardsync-tmp"))
        #expect(try await known(book) == expected)
        let again = try await AddressBook.withOpen(at: book) { book in await book.openingScan }
        #expect(again?.events.isEmpty == true, "\(again?.events ?? [])")
        #expect(try await known(book) == expected)
        let check = try await AddressBook.withOpen(at: book) { book in try await book.check() }
        #expect(check.isConsistent, "\(check.problems)")
    }

    @Test func theSnapshotIsRewrittenWhenTheDeltaOutgrowsItsLimit() async throws {
        let book = try await settledBook(count: 30)
        let base = try Data(contentsOf: snapshotURL(book))
        let options = AddressBook.OpenOptions(indexDeltaLimit: 8)
        // One edit, one deletion, one addition: three journal lines, three file entries; within the limit of 8.
        try changeSome(book, 1, round: 0)
        try await AddressBook.withOpen(at: book, options: options) { _ in }
        #expect(try Data(contentsOf: snapshotURL(book)) == base)
        #expect(FileManager.default.fileExists(atPath: deltaURL(book).path))
        // Ten more changes and two more: past the limit, so a whole snapshot is written and the delta removed.
        try changeSome(book, 10, round: 1)
        try await AddressBook.withOpen(at: book, options: options) { _ in }
        #expect(try Data(contentsOf: snapshotURL(book)) != base)
        #expect(!FileManager.default.fileExists(atPath: deltaURL(book).path))
        let rebuilt = try await rebuiltFromJournal(book)
        #expect(try await known(book) == rebuilt)
        #expect(IndexDelta.limit(liveCount: 100_000) == 20_000 && IndexDelta.limit(liveCount: 10) == 2048)
    }
}

extension AddressBook.OpenOptions {
    /// Default options with the given delta limit.
    init(indexDeltaLimit: Int) {
        self.init()
        self.indexDeltaLimit = indexDeltaLimit
    }
}
