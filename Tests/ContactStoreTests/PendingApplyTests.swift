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
}
