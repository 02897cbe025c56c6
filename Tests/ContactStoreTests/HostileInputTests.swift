import ContactStore
import Foundation
import Testing
import TestSupport

/// A UID chosen to break file handling, and what it is meant to try.
struct HostileUID: Sendable, CustomStringConvertible {
    var uid: String
    var attempt: String
    /// A card the reader refuses (a raw control character) is reported and not imported, since
    /// its contact file could not be read back.
    var isImported = true
    var description: String { attempt }
}

private let hostileUIDs: [HostileUID] = [
    HostileUID(uid: "../escaped", attempt: "parent folder"),
    HostileUID(uid: "../../../../../../tmp/cardsync-escaped", attempt: "deep parent folder"),
    HostileUID(uid: "/tmp/cardsync-absolute", attempt: "absolute path"),
    HostileUID(uid: "sub/folder/name", attempt: "sub-folder"),
    HostileUID(uid: "back\\slash", attempt: "backslash separator"),
    HostileUID(uid: "nul\u{0}byte", attempt: "NUL byte", isImported: false),
    HostileUID(uid: String(repeating: "a", count: 5000), attempt: "5000-byte name"),
    HostileUID(uid: String(repeating: "é", count: 200), attempt: "400-byte UTF-8 name"),
    HostileUID(uid: "CON", attempt: "Windows device CON"),
    HostileUID(uid: "nul", attempt: "Windows device nul"),
    HostileUID(uid: "Com1", attempt: "Windows device COM1"),
    HostileUID(uid: "lpt9.backup", attempt: "Windows device with extension"),
    HostileUID(uid: ".cardsync", attempt: "cardsync's own folder"),
    HostileUID(uid: ".", attempt: "current folder"),
    HostileUID(uid: "..", attempt: "parent folder alone"),
    HostileUID(uid: "", attempt: "empty UID"),
    HostileUID(uid: "trailing. ", attempt: "trailing dot and space"),
    HostileUID(uid: "line\r\nbreak", attempt: "line break"),
    HostileUID(uid: "\u{212A}elvin", attempt: "Kelvin sign that lower-cases to ASCII"),
]

/// Hostile UIDs and file names: nothing is written outside the address book and nothing
/// overwrites another contact.
struct HostileInputTests {
    @Test(arguments: hostileUIDs)
    func aHostileUIDStaysInsideTheBookAndOverwritesNothing(_ hostile: HostileUID) async throws {
        let book = try makeBook()
        let parent = book.deletingLastPathComponent()
        try book.write(cardText(uid: "keeper", name: "Keeper Contact"), to: "keeper.vcf")
        let parentBefore = try FileManager.default.contentsOfDirectory(atPath: parent.path).sorted()
        let card = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:\(hostile.uid.replacingOccurrences(of: "\r\n", with: "\\n"))\r\nFN:Hostile\r\nEND:VCARD\r\n"
        let report = try await AddressBook.withOpen(at: book) { book in
            try await book.importContacts(from: [.bytes(Array(card.utf8), name: "hostile.vcf")])
        }
        #expect(report.added == (hostile.isImported ? 1 : 0))
        if !hostile.isImported {
            #expect(report.diagnostics.contains { $0.code == "card-not-imported" && $0.location.source == "hostile.vcf" })
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path).sorted() == parentBefore)
        #expect(!FileManager.default.fileExists(atPath: "/tmp/cardsync-escaped.vcf"))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/cardsync-absolute.vcf"))
        let files = book.contactFiles
        #expect(files.count == (hostile.isImported ? 2 : 1))
        #expect(try book.read("keeper.vcf").contains("Keeper Contact"))
        for name in files {
            #expect(name.utf8.count <= 200)
            #expect(name.utf8.allSatisfy { $0 < 0x80 && $0 != 0x2F && $0 != 0x5C && $0 != 0 })
            let stem = name.split(separator: ".").first.map { $0.lowercased() } ?? ""
            #expect(!["con", "prn", "aux", "nul", "com1", "lpt9"].contains(stem))
        }
        let entries = try FileManager.default.contentsOfDirectory(atPath: book.path).filter { !$0.hasPrefix(".") }
        #expect(entries.count == files.count, "unexpected entries: \(entries)")
        let check = try await AddressBook.withOpen(at: book) { book in try await book.check() }
        #expect(check.isConsistent, "\(check.problems)")
    }

    /// Pairs of UIDs that are one name to a case-insensitive or normalising file system.
    @Test(arguments: [
        ("Alice", "alice"),
        ("ALICE-UID", "alice-uid"),
        ("caf\u{E9}", "cafe\u{301}"),
        ("\u{212B}ngstr\u{F6}m", "\u{C5}ngstr\u{F6}m"),
    ])
    func twinUIDsGetFilesThatDifferOnEveryDisk(first: String, second: String) async throws {
        let book = try makeBook()
        let cards = cardText(uid: first, name: "First Twin") + cardText(uid: second, name: "Second Twin")
        let report = try await AddressBook.withOpen(at: book) { book in
            try await book.importContacts(from: [.bytes(Array(cards.utf8), name: "twins.vcf")])
        }
        #expect(report.added == 2)
        let files = book.contactFiles
        #expect(files.count == 2)
        let folded = Set(files.map { $0.lowercased().precomposedStringWithCanonicalMapping })
        #expect(folded.count == 2, "\(files) collide on a case-insensitive or normalising disk")
        let texts = try files.map { try book.read($0) }
        #expect(texts.contains { $0.contains("First Twin") } && texts.contains { $0.contains("Second Twin") })
    }

    @Test func aContactFileOverTheSizeLimitIsReportedAndLeftAlone() async throws {
        let book = try makeBook()
        try book.write(cardText(uid: "small", name: "Small Contact"), to: "small.vcf")
        // A 17 MB card: over the 16 MB contact-file limit (two 8 MB cards).
        let huge = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:huge\r\nFN:Huge\r\nNOTE:" + String(repeating: "x", count: 17 * 1024 * 1024) + "\r\nEND:VCARD\r\n"
        try book.write(huge, to: "huge.vcf")
        let report = try await AddressBook.withOpen(at: book) { book in try await book.scan() }
        #expect(report.problems.map(\.code) == ["file-too-large"])
        #expect(report.problems.first?.file == "huge.vcf")
        #expect(try Data(contentsOf: book.appendingPathComponent("huge.vcf")).count == huge.utf8.count)
        let uids = try await AddressBook.withOpen(at: book) { book in await book.liveRecords().map(\.uid) }
        #expect(uids == ["small"])
    }
}
