import ContactStore
import Foundation
import Testing

/// Room made in the index before a first pull (`reserveCapacity(forAdding:remote:)`, from the
/// remote's `doc_count`): it changes how fast the index fills, never what it holds, whatever the
/// count said.
@Suite struct ReservedCapacityTests {
    static let remote = "http://example.invalid/contacts"

    /// `count` contacts as a remote gives them, revision `1-r<i>`.
    static func versions(_ count: Int) throws -> [RemoteChange] {
        try (0..<count).map { index in
            try remoteVersion(uid: "p\(index)", name: "Person \(index)", email: "p\(index)@example.org", revision: "1-r\(index)")
        }
    }

    /// What the book holds: each live contact's file and content, and its sync state.
    static func contents(_ book: AddressBook) async -> [String] {
        let states = await book.syncStates(remote: remote)
        return await book.liveRecords().map { record in
            let state = states[record.uid].map { "\($0.revision) \($0.hash?.hexDigits ?? "-")" } ?? "no state"
            return "\(record.uid) \(record.file) \(record.hash?.hexDigits ?? "-") \(state)"
        }.sorted()
    }

    /// A blank book that pulls `changes` in batches of 7 after reserving room for `reserved`
    /// (`nil`: none): what it holds then, after reopening on its snapshot, and rebuilt from its
    /// journal alone.
    static func pulled(_ changes: [RemoteChange], reserving reserved: Int?) async throws -> [[String]] {
        let folder = try makeBook("reserved")
        let applied = try await AddressBook.withOpen(at: folder) { book in
            #expect(await book.isBlank(remote: remote))
            if let reserved { await book.reserveCapacity(forAdding: reserved, remote: remote) }
            for start in stride(from: 0, to: changes.count, by: 7) {
                _ = try await book.applyRemote(Array(changes[start..<min(start + 7, changes.count)]), remote: remote)
            }
            return await contents(book)
        }
        let reopened = try await AddressBook.withOpen(at: folder) { await contents($0) }
        try FileManager.default.removeItem(at: folder.appendingPathComponent(".cardsync/index.bin"))
        let rebuilt = try await AddressBook.withOpen(at: folder) { await contents($0) }
        return [applied, reopened, rebuilt]
    }

    @Test(arguments: [40, 3, 0, 1_000_000, Int.max])
    func aPullHoldsTheSameWhateverRoomWasMadeForIt(reserved: Int) async throws {
        let changes = try Self.versions(40)
        let expected = try await Self.pulled(changes, reserving: nil)
        #expect(expected[0].count == 40 && expected[0].allSatisfy { !$0.hasSuffix("no state") })
        #expect(expected[1] == expected[0] && expected[2] == expected[0])
        #expect(try await Self.pulled(changes, reserving: reserved) == expected)
    }

    /// Room made for a remote that then sends nothing leaves no trace of it: the book is still
    /// blank for it, before and after reopening.
    @Test func roomMadeForARemoteThatSentNothingLeavesTheBookBlank() async throws {
        let folder = try makeBook("reserved-nothing")
        try await AddressBook.withOpen(at: folder) { book in
            await book.reserveCapacity(forAdding: 500, remote: Self.remote)
            #expect(await book.isBlank(remote: Self.remote))
            #expect(await book.syncedCount(remote: Self.remote) == 0)
        }
        let blank = try await AddressBook.withOpen(at: folder) { await $0.isBlank(remote: Self.remote) }
        #expect(blank)
    }
}
