import ContactStore
import Foundation
import Testing
import TestSupport
import VCardKit

/// An import links each new contact's file into the folder whole, under a name no file holds,
/// and sets those names down first (`.cardsync/import-links.txt`): a file a power loss left
/// linked but not whole is set aside when the book opens, never taken for one of the user's.
@Suite struct ImportLinkTests {
    static let linksName = ".cardsync/import-links.txt"

    @Test func anImportLeavesNoLinkListBehind() async throws {
        let book = try makeBook("import-links-done")
        let bytes = Array((cardText(uid: "ada", name: "Ada Lovelace") + cardText(uid: "bob", name: "Bob Byron")).utf8)
        let report = try await AddressBook.withOpen(at: book) { try await $0.importContacts(from: [.bytes(bytes, name: "two.vcf")]) }
        #expect(report.added == 2)
        #expect(book.contactFiles.count == 2)
        #expect(!FileManager.default.fileExists(atPath: book.appendingPathComponent(Self.linksName).path))
    }

    /// A file the book cannot read (so does not track) holds the name an imported contact would
    /// take: it is left exactly as it was, and the contact gets a name of its own.
    @Test func anImportedContactNeverTakesTheNameOfAFileTheBookCannotRead() async throws {
        let book = try makeBook("import-name-taken")
        try book.write("notes, not a vCard\n", to: "bea.vcf")
        let bytes = Array(cardText(uid: "bea", name: "Bea Imported").utf8)
        let report = try await AddressBook.withOpen(at: book) { try await $0.importContacts(from: [.bytes(bytes, name: "bea-export.vcf")]) }
        #expect(report.added == 1)
        #expect(try book.read("bea.vcf") == "notes, not a vCard\n", "the file the book cannot read is untouched")
        let written = try #require(book.contactFiles.first { $0 != "bea.vcf" })
        #expect(try book.read(written).contains("FN:Bea Imported"))
    }

    @Test func filesAnInterruptedImportLinkedButDidNotFinishAreSetAsideAndWholeOnesAreScanned() async throws {
        let book = try makeBook("import-links-interrupted")
        let cutShort = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:cy\r\nFN:C"
        try book.write("", to: "ann.vcf")
        try book.write(cutShort, to: "cy.vcf")
        try book.write(cardText(uid: "bob", name: "Bob Byron"), to: "bob.vcf")
        try "ann.vcf\nbob.vcf\ncy.vcf\n".write(to: book.appendingPathComponent(Self.linksName), atomically: true, encoding: .utf8)
        let (notes, scan) = try await AddressBook.withOpen(at: book) { (await $0.openingNotes, await $0.openingScan) }
        #expect(book.contactFiles == ["bob.vcf"], "the files that are not whole are out of the folder")
        let aside = book.appendingPathComponent(".cardsync/half-written")
        #expect(try Data(contentsOf: aside.appendingPathComponent("ann.vcf")).isEmpty)
        #expect(try String(contentsOf: aside.appendingPathComponent("cy.vcf"), encoding: .utf8) == cutShort, "kept as they were")
        #expect(notes.filter { $0.contains("half written") }.count == 2, "\(notes)")
        #expect(scan?.events.map(\.uid) == ["bob"], "the whole file is recorded as found in the folder")
        #expect(scan?.problems.isEmpty == true, "\(scan?.problems ?? [])")
        #expect(!FileManager.default.fileExists(atPath: book.appendingPathComponent(Self.linksName).path))
    }

    /// Only the files the list names, and only those the book does not track, are looked at.
    @Test func aFileTheListDoesNotNameIsLeftAlone() async throws {
        let book = try makeBook("import-links-unnamed")
        try book.write("", to: "empty.vcf")
        try "other.vcf\n".write(to: book.appendingPathComponent(Self.linksName), atomically: true, encoding: .utf8)
        let scan = try await AddressBook.withOpen(at: book) { await $0.openingScan }
        #expect(book.contactFiles == ["empty.vcf"])
        #expect(scan?.problems.map(\.file) == ["empty.vcf"], "reported as the scan reports any file it cannot read")
    }
}
