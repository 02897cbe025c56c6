import ContactStore
import Foundation
import Testing
import TestSupport

/// The journal: line format, crash safety, damage, the index snapshot.
struct JournalTests {
    @Test func everyLineValidatesAgainstTheSchema() async throws {
        let book = try makeBook()
        try book.write(cardText(uid: "a", name: "A \"quoted\" name\twith tab", email: "a@example.com"), to: "a.vcf")
        try book.write(cardText(uid: nil, name: "Ünïcødé 名前"), to: "b.vcf")
        try await AddressBook.withOpen(at: book) { _ in }
        try FileManager.default.moveItem(at: book.appendingPathComponent("a.vcf"), to: book.appendingPathComponent("c.vcf"))
        try await AddressBook.withOpen(at: book) { _ in }
        try FileManager.default.removeItem(at: book.appendingPathComponent("c.vcf"))
        try await AddressBook.withOpen(at: book) { book in _ = try await book.restore(uid: "a") }
        let lines = try journalLines(book)
        #expect(lines.count == 5)
        guard SchemaValidator.isAvailable else { return }
        for line in lines {
            let problems = try SchemaValidator.problems(validating: Data(line.utf8), against: "journal-event.schema.json")
            #expect(problems.isEmpty, "\(line): \(problems)")
        }
    }

    @Test func linesHaveSortedKeysIncreasingSequenceAndCardTextOnce() async throws {
        let book = try makeBook()
        try book.write(cardText(uid: "a", name: "Same"), to: "a.vcf")
        try book.write(cardText(uid: "b", name: "Same"), to: "b.vcf")
        try await AddressBook.withOpen(at: book) { _ in }
        let objects = try journalLines(book).map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(objects.map { $0["seq"] as! Int } == [1, 2])
        #expect(objects.filter { $0["card"] != nil }.count == 1)
        for line in try journalLines(book) {
            let keys = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            let positions = keys.keys.sorted().map { line.range(of: "\"\($0)\":")!.lowerBound }
            #expect(positions == positions.sorted())
        }
    }

    @Test func tornLastLineIsSetAsideAndTheJournalStaysUsable() async throws {
        let book = try makeBook()
        try book.write(cardText(uid: "a", name: "A"), to: "a.vcf")
        try await AddressBook.withOpen(at: book) { _ in }
        let handle = try FileHandle(forWritingTo: book.journalURL)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{\"card\":\"BEGIN:VCA".utf8))
        try handle.close()
        try book.write(cardText(uid: "b", name: "B"), to: "b.vcf")
        let notes = try await AddressBook.withOpen(at: book) { book in await book.openingNotes }
        #expect(notes.contains { $0.contains("journal.jsonl.corrupt") })
        #expect(try String(contentsOf: book.appendingPathComponent(".cardsync/journal.jsonl.corrupt"), encoding: .utf8).hasPrefix("{\"card\":\"BEGIN:VCA"))
        #expect(try journalLines(book).count == 2)
        let check = try await AddressBook.withOpen(at: book) { book in try await book.check() }
        #expect(check.isConsistent, "\(check.problems)")
    }

    @Test func damageInTheMiddleNamesTheLineAndTheRepairCommand() async throws {
        let book = try makeBook()
        for name in ["a", "b", "c"] { try book.write(cardText(uid: name, name: name.uppercased()), to: "\(name).vcf") }
        try await AddressBook.withOpen(at: book) { _ in }
        var lines = try journalLines(book)
        lines[1] = lines[1].replacingOccurrences(of: "\"uid\":\"", with: "\"uid\":\"x")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: book.journalURL)
        try FileManager.default.removeItem(at: book.appendingPathComponent(".cardsync/index.bin"))
        await #expect {
            try await AddressBook.withOpen(at: book) { _ in }
        } throws: { error in
            let error = error as? ContactStoreError
            return error?.code == .journalDamaged && error?.line == 2 && error!.message.contains("cardsync check") && error!.message.contains("--repair")
        }
        let repair = try AddressBook.repairJournal(at: book)
        #expect(repair.damagedLines == [2])
        let check = try await AddressBook.withOpen(at: book) { book in try await book.check() }
        #expect(check.isConsistent, "\(check.problems)")
        #expect(try journalLines(book).count == 3)
    }

    @Test func staleOrMissingSnapshotIsRebuilt() async throws {
        let book = try makeBook()
        try book.write(cardText(uid: "a", name: "A"), to: "a.vcf")
        try await AddressBook.withOpen(at: book) { _ in }
        let snapshot = book.appendingPathComponent(".cardsync/index.bin")
        let saved = try Data(contentsOf: snapshot)
        try book.write(cardText(uid: "b", name: "B"), to: "b.vcf")
        try await AddressBook.withOpen(at: book) { _ in }
        try saved.write(to: snapshot)
        #expect(try await AddressBook.withOpen(at: book, options: .init(scans: false)) { book in await book.contactCount } == 2)
        try Data("garbage".utf8).write(to: snapshot)
        #expect(try await AddressBook.withOpen(at: book, options: .init(scans: false)) { book in await book.contactCount } == 2)
        try FileManager.default.removeItem(at: snapshot)
        let notes = try await AddressBook.withOpen(at: book, options: .init(scans: false)) { book in await book.openingNotes }
        #expect(notes.contains { $0.contains("rebuilt") })
    }

    @Test func leftoverTemporaryFilesAreRemovedAndNeverContacts() async throws {
        let book = try makeBook()
        try book.write("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:half", to: ".x.vcf.cardsync-tmp")
        let count = try await AddressBook.withOpen(at: book) { book in await book.contactCount }
        #expect(count == 0)
        #expect(!FileManager.default.fileExists(atPath: book.appendingPathComponent(".x.vcf.cardsync-tmp").path))
    }
}
