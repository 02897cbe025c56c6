@testable import ContactStore
import Foundation
import Synchronization
import Testing

/// What opening tells a caller as soon as the index is read (``AddressBook/OpenOptions/indexOpened``,
/// where a sync's first requests learn the book's checkpoint): once, with the checkpoint of each
/// remote, whether the index comes from a snapshot with a delta, a whole snapshot, or the journal.
@Suite struct IndexOpenedTests {
    /// What `indexOpened` was called with while `book` was opened.
    private func openings(_ book: URL) async throws -> [AddressBook.IndexOpening] {
        let seen = Mutex<[AddressBook.IndexOpening]>([])
        var options = AddressBook.OpenOptions()
        options.indexOpened = { opening in seen.withLock { $0.append(opening) } }
        try await AddressBook.withOpen(at: book, options: options) { _ in }
        return seen.withLock { $0 }
    }

    @Test func tellsEachRemotesCheckpointOnceHoweverTheIndexIsRead() async throws {
        let book = try makeBook()
        try book.write(cardText(uid: "u1", name: "One"), to: "u1.vcf")
        let first = try await openings(book)
        #expect(first.count == 1)
        #expect(first.first?.checkpoints == [:])

        try await AddressBook.withOpen(at: book) { book in
            try await book.recordCheckpoint("7-a", remote: "https://a.example/contacts")
            try await book.recordCheckpoint("9", remote: "https://b.example/contacts")
            try await book.recordCheckpoint("10", remote: "https://b.example/contacts")
        }
        let expected = ["https://a.example/contacts": "7-a", "https://b.example/contacts": "10"]
        for source in ["a snapshot and its delta", "a whole snapshot", "the journal"] {
            if source == "a whole snapshot" {
                try await AddressBook.withOpen(at: book) { book in try await book.saveSnapshot() }
            } else if source == "the journal" {
                for name in ["index.bin", "index.delta"] {
                    try? FileManager.default.removeItem(at: book.appendingPathComponent(".cardsync/" + name))
                }
            }
            let seen = try await openings(book)
            #expect(seen.count == 1, "\(source)")
            #expect(seen.first?.checkpoints == expected, "\(source)")
        }
    }

    @Test func aBooksStoredIdentifierIsReadWithoutOpeningIt() async throws {
        let book = try makeBook()
        #expect(AddressBook.storedIdentifier(ofBookAt: book) == nil, "a book that never synced has no identifier yet")
        let identifier = try await AddressBook.withOpen(at: book) { await $0.identifier }
        #expect(AddressBook.storedIdentifier(ofBookAt: book) == identifier)
        #expect(AddressBook.storedIdentifier(ofBookAt: book.appendingPathComponent("missing")) == nil)
    }
}
