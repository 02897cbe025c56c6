import ContactStore
import Foundation
import Testing
import TestSupport

/// A pull that changes several contacts of one file (a file holding several cards, as other
/// programs write them) in one batch: each change leaves the file as the ones before it left
/// it, so no card that went elsewhere, or was deleted, stays behind, and the file goes when
/// its last card leaves.
@Suite struct SharedFilePullTests {
    /// A book whose `three.vcf` holds Ada, Bob and Cy.
    static func bookWithASharedFile(_ label: String) async throws -> URL {
        let book = try makeBook(label)
        try book.write(cardText(uid: "ada", name: "Ada Lovelace") + cardText(uid: "bob", name: "Bob Byron")
                       + cardText(uid: "cy", name: "Cy Young"), to: "three.vcf")
        try await AddressBook.withOpen(at: book) { _ in }
        return book
    }

    static func version(_ uid: String, _ name: String, email: String) throws -> RemoteChange {
        try remoteVersion(uid: uid, name: name, email: email, revision: "2-x")
    }

    /// The live contacts by UID with the file each is in, and what the next opening's scan finds.
    static func state(_ book: URL) async throws -> (files: [String: String], unchanged: Bool) {
        try await AddressBook.withOpen(at: book) { opened in
            let contacts = await opened.contactSummaries()
            return (Dictionary(uniqueKeysWithValues: contacts.map { ($0.uid, $0.file) }), await opened.openingScan?.isUnchanged == true)
        }
    }

    @Test func twoContactsOfOneFileUpdatedInOneBatchEachGoToTheirOwnFile() async throws {
        let book = try await Self.bookWithASharedFile("shared-two-updated")
        let report = try await AddressBook.withOpen(at: book) { opened in
            try await opened.applyRemote([try Self.version("ada", "Ada Lovelace", email: "ada@example.org"),
                                          try Self.version("bob", "Bob Byron", email: "bob@example.org")], remote: "test")
        }
        #expect(report.deferred.isEmpty, "\(report.deferred)")
        let three = try book.read("three.vcf")
        #expect(three.contains("UID:cy") && !three.contains("UID:ada") && !three.contains("UID:bob"), "only Cy stays: \(three)")
        let (files, unchanged) = try await Self.state(book)
        #expect(files["cy"] == "three.vcf")
        let adaFile = try #require(files["ada"]), bobFile = try #require(files["bob"])
        #expect(adaFile != "three.vcf" && bobFile != "three.vcf" && adaFile != bobFile)
        #expect(try book.read(adaFile).contains("EMAIL:ada@example.org"))
        #expect(try book.read(bobFile).contains("EMAIL:bob@example.org"))
        #expect(unchanged, "the folder holds what the journal says")
    }

    @Test func twoContactsOfOneFileDeletedInOneBatchBothLeaveIt() async throws {
        let book = try await Self.bookWithASharedFile("shared-two-deleted")
        try await AddressBook.withOpen(at: book) { opened in
            _ = try await opened.applyRemote([.deletion(uid: "ada", revision: "2-d"), .deletion(uid: "cy", revision: "2-d")], remote: "test")
        }
        let three = try book.read("three.vcf")
        #expect(three == cardText(uid: "bob", name: "Bob Byron"), "only Bob stays, as he was written")
        let (files, unchanged) = try await Self.state(book)
        #expect(files == ["bob": "three.vcf"])
        #expect(unchanged)
    }

    @Test func whenEveryContactOfAFileLeavesInOneBatchTheFileGoes() async throws {
        let book = try await Self.bookWithASharedFile("shared-all-leave")
        try await AddressBook.withOpen(at: book) { opened in
            _ = try await opened.applyRemote([.deletion(uid: "ada", revision: "2-d"),
                                              try Self.version("bob", "Bob Byron", email: "bob@example.org"),
                                              .deletion(uid: "cy", revision: "2-d")], remote: "test")
        }
        #expect(!book.contactFiles.contains("three.vcf"))
        let (files, unchanged) = try await Self.state(book)
        #expect(Set(files.keys) == ["bob"])
        #expect(try book.read(try #require(files["bob"])).contains("EMAIL:bob@example.org"))
        #expect(unchanged)
    }
}
