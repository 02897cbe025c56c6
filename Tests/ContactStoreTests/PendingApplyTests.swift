import ContactStore
import Foundation
import Testing
import TestSupport
import VCardKit

/// `.cardsync/pull-apply.jsonl`, the journal lines a pull sets down before moving its files into
/// place: removed once the journal holds them; at the next opening, what it vouches for is
/// recorded once, and a torn one is dropped. (The kill between the folder and the journal is in
/// SyncEngineTests' InterruptionTests, through `CARDSYNC_CRASH_AT`.)
@Suite struct PendingApplyTests {
    static let pendingName = ".cardsync/pull-apply.jsonl"

    /// A book holding Ada, then her second version pulled from a remote.
    static func bookWithAPull() async throws -> URL {
        let book = try makeBook("pending-apply")
        try book.write(cardText(uid: "ada", name: "Ada Lovelace"), to: "ada.vcf")
        let second = Array(cardText(uid: "ada", name: "Ada Lovelace", email: "ada@example.org").utf8)
        let card = try #require(try VCardReader.read(second).cards.first)
        try await AddressBook.withOpen(at: book) { opened in
            _ = try await opened.applyRemote([.version(RemoteVersion(uid: "ada", bytes: second, hash: ContentHash(of: card), name: "Ada Lovelace",
                                                                      isGeneratedUID: false, revision: "2-b"))], remote: "test")
        }
        return book
    }

    @Test func aPullRemovesItsPendingLinesOnceTheJournalHasThem() async throws {
        let book = try await Self.bookWithAPull()
        #expect(try book.read("ada.vcf").contains("EMAIL:ada@example.org"))
        #expect(!FileManager.default.fileExists(atPath: book.appendingPathComponent(Self.pendingName).path))
    }

    @Test func pendingLinesTheJournalAlreadyHasAreNotRecordedTwice() async throws {
        let book = try await Self.bookWithAPull()
        // Killed after the journal was written, before the pending lines were removed.
        let lines = try journalLines(book)
        try (lines.suffix(2).joined(separator: "\n") + "\n").write(to: book.appendingPathComponent(Self.pendingName), atomically: true, encoding: .utf8)
        let notes = try await AddressBook.withOpen(at: book) { await $0.openingNotes }
        #expect(try journalLines(book).count == lines.count)
        #expect(!notes.contains { $0.contains("before it was interrupted") })
        #expect(!FileManager.default.fileExists(atPath: book.appendingPathComponent(Self.pendingName).path))
    }

    @Test func tornPendingLinesAreDroppedAndNothingIsRecorded() async throws {
        let book = try await Self.bookWithAPull()
        let lines = try journalLines(book)
        try Data((lines.last ?? "").utf8.prefix(40)).write(to: book.appendingPathComponent(Self.pendingName))
        let scan = try await AddressBook.withOpen(at: book) { await $0.openingScan }
        #expect(scan?.isUnchanged == true)
        #expect(try journalLines(book).count == lines.count)
        #expect(!FileManager.default.fileExists(atPath: book.appendingPathComponent(Self.pendingName).path))
    }

    /// A pulled contact whose natural file name is taken by a file the book cannot read (so does
    /// not track) goes to a fresh name; the unreadable file is left exactly as it was, and the
    /// journal names the file the card is really in.
    @Test func aPulledContactNeverOverwritesAFileTheBookCannotRead() async throws {
        let book = try makeBook("pull-name-taken")
        try book.write("notes, not a vCard\n", to: "bea.vcf")
        let bytes = Array(cardText(uid: "bea", name: "Bea Pulled").utf8)
        let card = try #require(try VCardReader.read(bytes).cards.first)
        try await AddressBook.withOpen(at: book) { opened in
            _ = try await opened.applyRemote([.version(RemoteVersion(uid: "bea", bytes: bytes, hash: ContentHash(of: card), name: "Bea Pulled",
                                                                      isGeneratedUID: false, revision: "1-a"))], remote: "test")
        }
        #expect(try book.read("bea.vcf") == "notes, not a vCard\n", "the file the book cannot read is untouched")
        let written = try #require(book.contactFiles.first { $0 != "bea.vcf" })
        #expect(try book.read(written).contains("FN:Bea Pulled"))
        let added = try #require(try journalLines(book).first { $0.contains("\"op\":\"add\"") && $0.contains("\"uid\":\"bea\"") })
        #expect(added.contains("\"file\":\"\(written)\""), "the journal names the file the card is in")
        #expect(!FileManager.default.fileExists(atPath: book.appendingPathComponent(Self.pendingName).path))
    }

    /// What a pull of Bea, a contact new to the book, leaves when it is killed while writing
    /// her file (new files are written under their own names, after the pending lines): the
    /// pending lines (Bea's add and sync state, as a pull of her into a copy of the book
    /// journaled them) and the file as far as it got.
    static func bookKilledWhileWritingANewFile(_ label: String, leaving content: String) async throws -> (book: URL, file: String) {
        let pulled = try makeBook(label + "-pulled")
        let killed = try makeBook(label + "-killed")
        for book in [pulled, killed] {
            try book.write(cardText(uid: "ada", name: "Ada Lovelace"), to: "ada.vcf")
            try await AddressBook.withOpen(at: book) { _ in }
        }
        let bytes = Array(cardText(uid: "bea", name: "Bea Pulled").utf8)
        let card = try #require(try VCardReader.read(bytes).cards.first)
        try await AddressBook.withOpen(at: pulled) { opened in
            _ = try await opened.applyRemote([.version(RemoteVersion(uid: "bea", bytes: bytes, hash: ContentHash(of: card), name: "Bea Pulled",
                                                                      isGeneratedUID: false, revision: "1-a"))], remote: "test")
        }
        let file = try #require(pulled.contactFiles.first { $0 != "ada.vcf" })
        let pending = try journalLines(pulled).suffix(2)
        #expect(pending.first?.contains("\"op\":\"add\"") == true && pending.last?.contains("\"op\":\"sync\"") == true, "\(pending)")
        try (pending.joined(separator: "\n") + "\n").write(to: killed.appendingPathComponent(pendingName), atomically: true, encoding: .utf8)
        try killed.write(content, to: file)
        return (killed, file)
    }

    @Test(arguments: ["", "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:bea\r\nFN:Bea Pu"])
    func aNewFileLeftHalfWrittenIsSetAsideAndNothingIsRecorded(content: String) async throws {
        let (book, file) = try await Self.bookKilledWhileWritingANewFile("half-written", leaving: content)
        let lines = try journalLines(book)
        let (notes, scan) = try await AddressBook.withOpen(at: book) { (await $0.openingNotes, await $0.openingScan) }
        #expect(!book.contactFiles.contains(file), "the half-written file is out of the folder")
        let kept = book.appendingPathComponent(".cardsync/half-written/\(file)")
        #expect(try Data(contentsOf: kept) == Data(content.utf8), "and kept, as it was, beside the journal")
        #expect(notes.contains { $0.contains("set aside \(file)") && $0.contains("half written") }, "\(notes)")
        #expect(scan?.isUnchanged == true, "the scan does not take it for a file of the user's")
        #expect(scan?.problems.isEmpty == true, "nor reports it: \(scan?.problems ?? [])")
        #expect(try journalLines(book) == lines, "nothing is recorded: the next sync pulls Bea again")
        #expect(!FileManager.default.fileExists(atPath: book.appendingPathComponent(Self.pendingName).path))
    }

    @Test func aNewFileWrittenWholeIsRecordedAsPulled() async throws {
        let (book, file) = try await Self.bookKilledWhileWritingANewFile("written-whole", leaving: cardText(uid: "bea", name: "Bea Pulled"))
        let notes = try await AddressBook.withOpen(at: book) { await $0.openingNotes }
        #expect(try book.read(file).contains("FN:Bea Pulled"))
        #expect(notes.contains { $0.contains("recorded 1 change a sync had made in the folder") }, "\(notes)")
        let recorded = try journalLines(book).suffix(2)
        #expect(recorded.allSatisfy { $0.contains("\"uid\":\"bea\"") }, "Bea's version and sync state are in the journal")
        #expect(!FileManager.default.fileExists(atPath: book.appendingPathComponent(".cardsync/half-written").path))
    }

    /// The user put another card in the new file after the kill: a whole card is the user's,
    /// never set aside; the scan records it as theirs.
    @Test func aWholeCardInTheNewFileIsTheUsersAndStaysInTheFolder() async throws {
        let (book, file) = try await Self.bookKilledWhileWritingANewFile("users-card", leaving: cardText(uid: "cy", name: "Cy Written"))
        let scan = try await AddressBook.withOpen(at: book) { await $0.openingScan }
        #expect(try book.read(file).contains("FN:Cy Written"))
        #expect(scan?.events.map(\.uid) == ["cy"], "the scan records the user's card")
        #expect(!FileManager.default.fileExists(atPath: book.appendingPathComponent(".cardsync/half-written").path))
        #expect(!(try journalLines(book).contains { $0.contains("\"uid\":\"bea\"") }), "Bea is left for the next sync")
    }
}
