import ContactStore
import CouchClient
import Foundation
import JSONText
import SyncEngine
import Testing
import TestSupport

/// A server is not trusted with file names: contacts pulled with hostile UIDs land inside the
/// address book, each in a file of its own, and travel back unchanged.
@Suite struct HostileRemoteTests {
    static let hostileUIDs = [
        "../../escape", "../escape-too", "/etc/cardsync-absolute", "..", ".", ".cardsync", ".cardsync/journal.jsonl",
        "CON", "nul.txt", "COM1", "lpt9.x", String(repeating: "long-", count: 100),
        "Alice", "alice", "ALICE", "line\u{2028}break", "tab\there",
    ]

    @Test(arguments: Endpoint.all)
    func contactsWithHostileUIDsArePulledIntoTheirOwnFilesInsideTheBook(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let documents: [JSONObject] = Self.hostileUIDs.enumerated().map { index, uid in
                ["_id": .string(ContactDocument.documentID(forUID: uid)), "vcard": .string(card(uid, "Hostile \(index)"))]
            }
            try await remote.db.create(ignoringExisting: true)
            let written = try await remote.db.bulkDocuments(documents)
            #expect(written.allSatisfy { $0.error == nil }, "\(written.filter { $0.error != nil })")

            let b = try makeBook("hostile")
            let home = b.deletingLastPathComponent()
            let report = try await sync(b, remote)
            #expect(report.problems.isEmpty, "\(report.problems)")
            #expect(report.pulledCounts.added == Self.hostileUIDs.count)

            // Nothing was written beside the book or above it.
            #expect(try FileManager.default.contentsOfDirectory(atPath: home.path) == ["book"])
            #expect(!FileManager.default.fileExists(atPath: home.deletingLastPathComponent().appendingPathComponent("escape.vcf").path))
            #expect(!FileManager.default.fileExists(atPath: "/etc/cardsync-absolute.vcf"))
            // One file per contact (none overwrote another, twins included), all inside the book.
            #expect(b.contactFiles.count == Self.hostileUIDs.count, "\(b.contactFiles)")
            #expect(b.contactFiles.allSatisfy { !$0.contains("/") && !$0.hasPrefix(".") && $0.utf8.count <= 255 })
            let hashes = try await liveHashes(b)
            #expect(Set(hashes.keys) == Set(Self.hostileUIDs))
            let check = try await AddressBook.withOpen(at: b) { book in try await book.check() }
            #expect(check.isConsistent, "\(check)")

            // And back: another book pushes nothing new, a further sync changes nothing.
            #expect(!(try await sync(b, remote)).hasChanges)
            #expect(try await remoteHashes(remote) == hashes)
        }
    }
}

