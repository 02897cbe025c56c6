import ContactStore
import Foundation
import Testing

/// The index snapshot: a run that finds nothing changed reads its summary only and leaves it
/// alone; a stale or damaged one is rebuilt and loses or duplicates no contact.
@Suite struct IndexSnapshotTests {
    /// A book of `count` contacts whose files are old enough for their stamps to be trusted
    /// (a stamp taken within two seconds of a change is not), saved with those stamps.
    private func settledBook(count: Int) async throws -> URL {
        let book = try makeBook()
        for index in 0..<count { try book.write(cardText(uid: "u\(index)", name: "Person \(index)"), to: "u\(index).vcf") }
        try await AddressBook.withOpen(at: book) { _ in }
        try await Task.sleep(for: .milliseconds(2100))
        try await AddressBook.withOpen(at: book) { _ in }
        return book
    }

    private func snapshotState(_ book: URL) throws -> (modified: Date, bytes: Data) {
        let url = book.appendingPathComponent(".cardsync/index.bin")
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return (try #require(attributes[.modificationDate] as? Date), try Data(contentsOf: url))
    }

    /// The live contacts as the book knows them, by UID: file and content hash.
    private func liveContacts(_ book: URL) async throws -> [String: String] {
        try await AddressBook.withOpen(at: book, options: .init(scans: false)) { book in
            var result: [String: String] = [:]
            for record in await book.liveRecords() { result[record.uid] = record.file + " " + (record.hash?.hexDigits ?? "-") }
            return result
        }
    }

    @Test func anUnchangedBookIsScannedWithoutRewritingTheSnapshot() async throws {
        let book = try await settledBook(count: 5)
        let before = try snapshotState(book)
        for _ in 0..<2 {
            let (scan, count) = try await AddressBook.withOpen(at: book) { book in (await book.openingScan, await book.contactCount) }
            #expect(count == 5)
            #expect(scan?.events.isEmpty == true && scan?.filesSeen == 5 && scan?.filesRead == 0)
        }
        let after = try snapshotState(book)
        #expect(after.modified == before.modified && after.bytes == before.bytes)

        // A checkpoint recorded on such a book goes to the journal only; the next opening has it.
        try await AddressBook.withOpen(at: book) { book in try await book.recordCheckpoint("42", remote: "http://example.invalid/db") }
        #expect(try snapshotState(book).bytes == before.bytes)
        let (checkpoint, time) = try await AddressBook.withOpen(at: book) { book in
            (await book.checkpoint(remote: "http://example.invalid/db"), try await book.lastSyncTime(remote: "http://example.invalid/db"))
        }
        #expect(checkpoint == "42" && time != nil)
    }

    @Test func changesToAnUnchangedBooksFilesAreStillFound() async throws {
        let book = try await settledBook(count: 4)
        try book.write(cardText(uid: "u1", name: "Person 1", email: "one@example.com"), to: "u1.vcf")
        try FileManager.default.removeItem(at: book.appendingPathComponent("u2.vcf"))
        try book.write(cardText(uid: "new", name: "Newcomer"), to: "new.vcf")
        try FileManager.default.moveItem(at: book.appendingPathComponent("u3.vcf"), to: book.appendingPathComponent("moved.vcf"))
        let scan = try await AddressBook.withOpen(at: book) { book in await book.openingScan }
        let operations = Dictionary(uniqueKeysWithValues: (scan?.events ?? []).map { ($0.uid, $0.operation) })
        #expect(operations == ["u1": .update, "u2": .delete, "new": .add, "u3": .rename])
        #expect(Set(try await liveContacts(book).keys) == ["u0", "u1", "new", "u3"])
    }

    @Test func aStaleSnapshotIsRebuiltWithoutLosingOrDuplicatingContacts() async throws {
        let book = try await settledBook(count: 6)
        let stale = try snapshotState(book).bytes
        // Changes after the snapshot: one edited, one deleted, one added, one renamed.
        try book.write(cardText(uid: "u0", name: "Person 0", email: "zero@example.com"), to: "u0.vcf")
        try FileManager.default.removeItem(at: book.appendingPathComponent("u1.vcf"))
        try book.write(cardText(uid: "added", name: "Added"), to: "added.vcf")
        try FileManager.default.moveItem(at: book.appendingPathComponent("u2.vcf"), to: book.appendingPathComponent("renamed.vcf"))
        try await AddressBook.withOpen(at: book) { _ in }
        let expected = try await liveContacts(book)
        #expect(expected.count == 6)

        // The old snapshot put back (a crash before its replacement, a restored backup): the journal lines after it are replayed.
        try stale.write(to: book.appendingPathComponent(".cardsync/index.bin"))
        #expect(try await liveContacts(book) == expected)
        let rescan = try await AddressBook.withOpen(at: book) { book in await book.openingScan }
        #expect(rescan?.events.isEmpty == true, "\(rescan?.events ?? [])")
        #expect(try await liveContacts(book) == expected)

        // A snapshot of a journal that was replaced (longer than the journal, or another last line): rebuilt from the journal.
        let other = try await settledBook(count: 9)
        try snapshotState(other).bytes.write(to: book.appendingPathComponent(".cardsync/index.bin"))
        #expect(try await liveContacts(book) == expected)
        let check = try await AddressBook.withOpen(at: book) { book in try await book.check() }
        #expect(check.isConsistent, "\(check.problems)")
    }

    @Test func aCorruptSnapshotIsRebuiltWithoutLosingOrDuplicatingContacts() async throws {
        let book = try await settledBook(count: 6)
        let expected = try await liveContacts(book)
        let snapshot = book.appendingPathComponent(".cardsync/index.bin")
        let good = try Data(contentsOf: snapshot)
        // A byte flipped in the summary, one in the body, the file cut short, cut to nothing.
        var damaged: [Data] = []
        for position in [20, good.count / 2, good.count - 3] {
            var bytes = good
            bytes[position] ^= 0x5A
            damaged.append(bytes)
        }
        damaged.append(good.prefix(good.count - 100))
        damaged.append(Data())
        for bytes in damaged {
            try bytes.write(to: snapshot)
            let (scan, count) = try await AddressBook.withOpen(at: book) { book in (await book.openingScan, await book.contactCount) }
            #expect(count == 6)
            #expect(scan?.events.isEmpty == true, "\(scan?.events ?? [])")
            #expect(try await liveContacts(book) == expected)
            #expect(try Data(contentsOf: snapshot) != bytes, "the damaged snapshot is replaced")
        }
        let check = try await AddressBook.withOpen(at: book) { book in try await book.check() }
        #expect(check.isConsistent, "\(check.problems)")
    }
}
