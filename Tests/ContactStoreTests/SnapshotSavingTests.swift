@testable import ContactStore
import Foundation
import Testing

/// Saving the index snapshot: after its summary, its last two parts are made at once (one on
/// each core) and put together into one file; or, to use the least memory (an import), made one
/// after the other. Either way the file holds every table, and it is used, not rebuilt, when the
/// book opens again.
@Suite struct SnapshotSavingTests {
    static let remote = "http://example.invalid/contacts"

    /// A book of `count` contacts pulled from a remote (so every table of the snapshot, the
    /// sync states' too, has entries), closed: its snapshot saved whole.
    static func savedBook(count: Int, onOneCore: Bool = false) async throws -> URL {
        let folder = try makeBook("snapshot-parts")
        var options = AddressBook.OpenOptions()
        options.savesIndexOnOneCore = onOneCore
        let changes = try (0..<count).map { index in try remoteVersion(uid: "p\(index)", name: "Person \(index)", revision: "1-r\(index)") }
        try await AddressBook.withOpen(at: folder, options: options) { book in _ = try await book.applyRemote(changes, remote: remote) }
        return folder
    }

    @Test(arguments: [false, true])
    func theSavedSnapshotHoldsEveryPartInOrderAndNothingIsLeftBeside(onOneCore: Bool) async throws {
        let folder = try await Self.savedBook(count: 300, onOneCore: onOneCore)
        let meta = folder.appendingPathComponent(".cardsync")
        let bytes = try [UInt8](Data(contentsOf: meta.appendingPathComponent("index.bin")))
        let decoded = IndexSnapshot.decode(bytes)
        let saved = try #require(decoded, "the saved snapshot does not decode")
        #expect(saved.records.count == 300 && saved.uidsByFile.count == 300 && saved.liveCount == 300)
        #expect(saved.uidsByHash.count == 300 && saved.cardOffsets.count == 300)
        #expect(saved.syncStates[Self.remote]?.count == 300 && saved.syncedCounts[Self.remote] == 300)
        #expect(saved.syncStates[Self.remote]?["p299"]?.revision == "1-r299")
        // The same bytes as the whole snapshot encoded in one piece from what was saved.
        let encodedInOnePiece = IndexSnapshot.encode(saved) == bytes
        #expect(encodedInOnePiece, "the saved snapshot differs from the one encoded in one piece")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: meta.path).filter { $0.hasSuffix(POSIX.temporarySuffix) }
        #expect(leftovers.isEmpty)
    }

    /// A save killed halfway leaves its two temporary files; the next opening removes them.
    @Test func partsOfAnInterruptedSaveAreRemovedWhenTheBookOpens() async throws {
        let folder = try await Self.savedBook(count: 5)
        let meta = folder.appendingPathComponent(".cardsync")
        for name in [".index.bin.cardsync-tmp", ".index.bin.part.cardsync-tmp"] {
            try Data("half written".utf8).write(to: meta.appendingPathComponent(name))
        }
        let count = try await AddressBook.withOpen(at: folder) { await $0.contactCount }
        #expect(count == 5)
        let left = try FileManager.default.contentsOfDirectory(atPath: meta.path).filter { $0.hasSuffix(POSIX.temporarySuffix) }
        #expect(left.isEmpty)
    }

    @Test(arguments: [false, true])
    func aBookOpensOnTheSnapshotItSavedWithoutRebuildingIt(onOneCore: Bool) async throws {
        let folder = try await Self.savedBook(count: 50, onOneCore: onOneCore)
        let (records, synced) = try await AddressBook.withOpen(at: folder, options: .init(scans: false)) { book in
            // Read from the snapshot's tables, not rebuilt from the journal.
            (await book.index.records.hasBase, await book.syncedCount(remote: Self.remote))
        }
        #expect(records)
        #expect(synced == 50)
    }
}
