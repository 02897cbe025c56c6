import ContactStore
import Foundation
import SampleGenerator
import Testing
import TestSupport
import VCardKit

/// Import, export, restore, dedupe, compact through the library.
struct ImportExportTests {
    @Test func importSkipsExactAndReformattedDuplicates() async throws {
        let book = try makeBook()
        var bytes: [UInt8] = []
        let labels = AddressBookGenerator(options: GeneratorOptions(count: 600, seed: 11, duplicateRate: 0.1)).write(to: &bytes)
        let report = try await AddressBook.withOpen(at: book) { book in
            try await book.importContacts(from: [.bytes(bytes, name: "gen.vcf")])
        }
        #expect(report.added == labels.distinct)
        #expect(report.duplicates.count == labels.exact + labels.reformatted)
        #expect(book.contactFiles.count == labels.distinct)
        let again = try await AddressBook.withOpen(at: book) { book in try await book.importContacts(from: [.bytes(bytes, name: "gen.vcf")]) }
        #expect(again.added == 0)
        #expect(again.duplicates.count == labels.count)
    }

    @Test func importIsResumableAfterAnInterruption() async throws {
        let book = try makeBook()
        var bytes: [UInt8] = []
        let labels = AddressBookGenerator(options: GeneratorOptions(count: 300, seed: 5, duplicateRate: 0.1)).write(to: &bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        let cards = text.components(separatedBy: "END:VCARD\r\n").dropLast().map { $0 + "END:VCARD\r\n" }
        let firstHalf = cards.prefix(150).joined()
        _ = try await AddressBook.withOpen(at: book) { book in try await book.importContacts(from: [.bytes(Array(firstHalf.utf8), name: "part")]) }
        // Simulate a crash after a file was written but before its event: remove the last journal line.
        var lines = try journalLines(book)
        lines.removeLast()
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: book.journalURL)
        try? FileManager.default.removeItem(at: book.appendingPathComponent(".cardsync/index.bin"))
        _ = try await AddressBook.withOpen(at: book) { book in try await book.importContacts(from: [.bytes(bytes, name: "all")]) }
        #expect(book.contactFiles.count == labels.distinct)
        let check = try await AddressBook.withOpen(at: book) { book in try await book.check() }
        #expect(check.isConsistent, "\(check.problems)")
    }

    @Test func fileNamesAreSafeAndNeverOverwrite() async throws {
        let book = try makeBook()
        try book.write(cardText(uid: "taken", name: "Existing"), to: "clash.vcf")
        // A file the book cannot read is not tracked: its name is still never overwritten.
        try book.write("notes, not a vCard\n", to: "broken.vcf")
        let cards = cardText(uid: "../../etc/passwd", name: "Evil") + cardText(uid: "clash", name: "Clash")
            + cardText(uid: "broken", name: "Broken")
            + cardText(uid: String(repeating: "x", count: 300), name: "Long") + cardText(uid: ".hidden", name: "Hidden")
            + cardText(uid: "urn:uuid:1b4e28ba-2fa1-11d2-883f-0016d3cca427", name: "Urn")
        let report = try await AddressBook.withOpen(at: book) { book in try await book.importContacts(from: [.bytes(Array(cards.utf8), name: "x")]) }
        #expect(report.added == 6)
        let files = book.contactFiles
        #expect(files.count == 8)
        #expect(try book.read("broken.vcf") == "notes, not a vCard\n")
        #expect(files.contains("1b4e28ba-2fa1-11d2-883f-0016d3cca427.vcf"))
        #expect(try book.read("clash.vcf").contains("Existing"))
        #expect(files.allSatisfy { $0.utf8.count <= 200 && !$0.contains("/") })
        #expect(!FileManager.default.fileExists(atPath: book.deletingLastPathComponent().appendingPathComponent("etc").path))
    }

    @Test func importReadsJCardAndReassignsRepeatedUIDs() async throws {
        let book = try makeBook()
        let jcard = #"[["vcard",[["version",{},"text","4.0"],["uid",{},"text","j1"],["fn",{},"text","Jay Card"]]]]"#
        let twice = cardText(uid: "dup", name: "First") + cardText(uid: "dup", name: "Second")
        let report = try await AddressBook.withOpen(at: book) { book in
            try await book.importContacts(from: [.bytes(Array(jcard.utf8), name: "a.json"), .bytes(Array(twice.utf8), name: "b.vcf")])
        }
        #expect(report.added == 3)
        #expect(report.reassignedUIDs.map(\.original) == ["dup"])
        #expect(book.contactFiles.contains("j1.vcf"))
    }

    @Test func importUpdatesAContactWhoseUIDExistsAndRestoreBringsItBack() async throws {
        let book = try makeBook()
        try book.write(cardText(uid: "ada", name: "Ada Lovelace", email: "old@example.com"), to: "ada.vcf")
        try await AddressBook.withOpen(at: book) { _ in }
        let newer = cardText(uid: "ada", name: "Ada Lovelace", email: "new@example.com")
        let report = try await AddressBook.withOpen(at: book) { book in try await book.importContacts(from: [.bytes(Array(newer.utf8), name: "n")]) }
        #expect(report.updated == ["ada"])
        #expect(try book.read("ada.vcf").contains("new@example.com"))
        try await AddressBook.withOpen(at: book) { book in
            let event = try await book.restore(uid: "ada", sequence: 1)
            #expect(event.operation == .restore && event.restoredSequence == 1)
        }
        #expect(try book.read("ada.vcf").contains("old@example.com"))
    }

    @Test func restoreBringsBackADeletedContact() async throws {
        let book = try makeBook()
        try book.write(cardText(uid: "ada", name: "Ada"), to: "ada.vcf")
        try await AddressBook.withOpen(at: book) { _ in }
        try FileManager.default.removeItem(at: book.appendingPathComponent("ada.vcf"))
        try await AddressBook.withOpen(at: book) { book in
            #expect(await book.record(for: "ada")?.isDeleted == true)
            try await book.restore(uid: "ada")
            #expect(await book.contactCount == 1)
        }
        #expect(try book.read("ada.vcf").contains("UID:ada"))
        let check = try await AddressBook.withOpen(at: book) { book in try await book.check() }
        #expect(check.isConsistent, "\(check.problems)")
    }

    @Test func dedupeRemovesExtraCopiesRestorably() async throws {
        let book = try makeBook()
        try book.write(cardText(uid: "a1", name: "Same Person", email: "s@example.com"), to: "a1.vcf")
        try book.write(cardText(uid: "a2", name: "Same Person", email: "s@example.com", version: "3.0"), to: "a2.vcf")
        try book.write(cardText(uid: "b", name: "Other"), to: "b.vcf")
        try await AddressBook.withOpen(at: book) { book in
            let groups = await book.duplicateGroups()
            #expect(groups.map { $0.map(\.uid) } == [["a1", "a2"]])
            let (events, problems) = try await book.removeDuplicates()
            #expect(problems.isEmpty)
            #expect(events.map(\.uid) == ["a2"])
            #expect(events[0].duplicateOf == "a1")
            try await book.restore(uid: "a2")
        }
        #expect(book.contactFiles == ["a1.vcf", "a2.vcf", "b.vcf"])
        #expect(try book.read("a2.vcf").contains("UID:a2"))
    }

    /// The groups touching some contacts are the book's groups that hold one of them, whether
    /// few contacts are named (looked up one by one) or many (the groups gone through).
    @Test(arguments: [["b"], ["a2"], ["c1"], ["a1", "c2"], ["b", "d", "e", "f"], ["a1", "a2", "b", "c1", "c2", "d", "e", "f", "gone"]])
    func duplicateGroupsTouchingContactsAreTheGroupsHoldingThem(touched: [String]) async throws {
        let book = try makeBook()
        try book.write(cardText(uid: "a1", name: "Same Person", email: "s@example.com"), to: "a1.vcf")
        try book.write(cardText(uid: "a2", name: "Same Person", email: "s@example.com", version: "3.0"), to: "a2.vcf")
        try book.write(cardText(uid: "c1", name: "Twin"), to: "c1.vcf")
        try book.write(cardText(uid: "c2", name: "Twin"), to: "c2.vcf")
        for uid in ["b", "d", "e", "f"] { try book.write(cardText(uid: uid, name: "Person \(uid)"), to: "\(uid).vcf") }
        try await AddressBook.withOpen(at: book) { book in
            let expected = await book.duplicateGroups().filter { $0.contains { touched.contains($0.uid) } }
            #expect(await book.duplicateGroups(touching: Set(touched)).map { $0.map(\.uid) } == expected.map { $0.map(\.uid) })
        }
    }

    @Test func exportWritesEveryFormat() async throws {
        let book = try makeBook()
        let original = cardText(uid: "a", name: "A Person", email: "a@example.com")
        try book.write(original, to: "a.vcf")
        try book.write(cardText(uid: "b", name: "B Person", version: "3.0"), to: "b.vcf")
        let out = try TestPaths.makeTemporaryDirectory("export")
        try await AddressBook.withOpen(at: book) { book in
            for format in ExportFormat.allCases {
                let report = try await book.exportContacts(as: format, to: .file(out.appendingPathComponent("all.\(format.rawValue)").path))
                #expect(report.contacts == 2)
            }
            let split = try await book.exportContacts(as: .vcard4, to: .split(out.appendingPathComponent("split").path))
            #expect(split.files.count == 2)
        }
        let v4 = try out.read("all.vcard4")
        #expect(v4.hasPrefix(original))
        #expect(try VCardReader.read(try out.read("all.vcard3")).cards.allSatisfy { $0.version == .v3_0 })
        #expect(try JCardReader.read(Array(try Data(contentsOf: out.appendingPathComponent("all.jcard"))), sourceName: "j").cards.count == 2)
        #expect(try out.read("all.xcard").contains("<vcards"))
        #expect(try out.read("split/a.vcf") == original)
    }

    @Test func compactKeepsTheLastVersionsAndTheirText() async throws {
        let book = try makeBook()
        for version in 1...4 {
            try book.write(cardText(uid: "a", name: "A", email: "v\(version)@example.com"), to: "a.vcf")
            try await AddressBook.withOpen(at: book) { _ in }
            try await Task.sleep(for: .milliseconds(5))
        }
        try FileManager.default.removeItem(at: book.appendingPathComponent("a.vcf"))
        let report = try await AddressBook.withOpen(at: book) { book in try await book.compact(keepingVersions: 2) }
        #expect(report.linesBefore == 5)
        #expect(report.linesAfter == 3)
        try await AddressBook.withOpen(at: book) { book in
            try await book.restore(uid: "a")
            let check = try await book.check()
            #expect(check.isConsistent, "\(check.problems)")
        }
        #expect(try book.read("a.vcf").contains("v4@example.com"))
    }
}
