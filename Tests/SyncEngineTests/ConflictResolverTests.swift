import Testing
@testable import SyncEngine
import VCardKit

/// The order in which `newest` and `keep-both` decide between a version and a deletion.
@Suite struct ConflictResolverTests {
    let card = try! VCardReader.read("BEGIN:VCARD\r\nVERSION:4.0\r\nUID:ada\r\nFN:Ada\r\nEND:VCARD\r\n").cards[0]

    @Test(arguments: [ConflictPolicy.newest, .keepBoth])
    func anEditHereBeatsADeletionOnTheServer(_ policy: ConflictPolicy) {
        let resolver = ConflictResolver(policy: policy)
        let (winner, _) = resolver.winner(local: ConflictSide(card: card, edited: 2_000), remote: ConflictSide(card: nil, edited: 3_000))
        #expect(winner == .local)
    }

    /// A pull cut short after writing a file and before recording it leaves the server's version
    /// in the folder as if edited here; when the server then deletes that very version, nothing
    /// was edited here and the deletion stands.
    @Test(arguments: [ConflictPolicy.newest, .keepBoth])
    func theVeryVersionTheServerDeletedDoesNotComeBack(_ policy: ConflictPolicy) {
        let resolver = ConflictResolver(policy: policy)
        var local = ConflictSide(card: card, edited: 2_000)
        local.isTheVersionDeletedThere = true
        let (winner, reason) = resolver.winner(local: local, remote: ConflictSide(card: nil, edited: 3_000))
        #expect(winner == .remote, "\(reason)")
    }

    @Test func localKeepsTheVersionHereEvenWhenItIsTheDeletedOne() {
        var local = ConflictSide(card: card, edited: 2_000)
        local.isTheVersionDeletedThere = true
        #expect(ConflictResolver(policy: .local).winner(local: local, remote: ConflictSide(card: nil, edited: 3_000)).0 == .local)
    }
}
