import ContactStore
import Foundation
import Testing
import VCardKit

/// Edits of one contact's file (what `cardsync web` saves): journaled as user events, refused
/// when the file changed since the version the edit started from.
@Suite struct EditingTests {
    @Test func replacingAContactJournalsAnUpdateAndWritesTheBytesGiven() async throws {
        let url = try makeBook("editing")
        try url.write(cardText(uid: "ada", name: "Ada Lovelace"), to: "ada.vcf")
        try await AddressBook.withOpen(at: url) { book in
            let shown = try await book.contactFile(uid: "ada")
            let edited = Array(cardText(uid: "ada", name: "Ada Lovelace", email: "ada@example.org").utf8)
            let event = try #require(try await book.replaceContact(uid: "ada", with: edited, basedOn: shown.version))
            #expect(event.operation == .update)
            #expect(event.source == .user)
            #expect(Array(try Data(contentsOf: url.appendingPathComponent("ada.vcf"))) == edited)
            // The same bytes again: nothing to record.
            let again = try await book.contactFile(uid: "ada")
            #expect(try await book.replaceContact(uid: "ada", with: edited, basedOn: again.version) == nil)
        }
    }

    @Test func anEditOfAVersionChangedMeanwhileIsRefusedAndTheOutsideEditJournaled() async throws {
        let url = try makeBook("editing")
        try url.write(cardText(uid: "ada", name: "Ada Lovelace"), to: "ada.vcf")
        try await AddressBook.withOpen(at: url) { book in
            let shown = try await book.contactFile(uid: "ada")
            try url.write(cardText(uid: "ada", name: "Ada King"), to: "ada.vcf")
            let edited = Array(cardText(uid: "ada", name: "Ada Byron").utf8)
            await #expect(throws: ContactStoreError.self) {
                try await book.replaceContact(uid: "ada", with: edited, basedOn: shown.version)
            }
            #expect(try url.read("ada.vcf").contains("FN:Ada King"))
            let events = try await book.history(of: "ada")
            #expect(events.first?.source == .folder)
        }
    }

    @Test func anEditCannotChangeTheUID() async throws {
        let url = try makeBook("editing")
        try url.write(cardText(uid: "ada", name: "Ada Lovelace"), to: "ada.vcf")
        try await AddressBook.withOpen(at: url) { book in
            let shown = try await book.contactFile(uid: "ada")
            await #expect(throws: ContactStoreError.self) {
                try await book.replaceContact(uid: "ada", with: Array(cardText(uid: "grace", name: "Grace").utf8), basedOn: shown.version)
            }
            #expect(try url.read("ada.vcf").contains("FN:Ada Lovelace"))
        }
    }

    @Test func addAndDeleteAreJournaledAndDeleteCanBeUndone() async throws {
        let url = try makeBook("editing")
        try await AddressBook.withOpen(at: url) { book in
            let added = try await book.addContact(Array(cardText(uid: "grace", name: "Grace Hopper").utf8))
            #expect(added.operation == .add)
            #expect(url.contactFiles == ["grace.vcf"])
            let deleted = try await book.deleteContact(uid: "grace")
            #expect(deleted.operation == .delete)
            #expect(url.contactFiles.isEmpty)
            try await book.restore(uid: "grace")
            #expect(try url.read("grace.vcf").contains("FN:Grace Hopper"))
        }
    }
}
