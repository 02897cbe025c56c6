import ContactStore
import CouchClient
import Foundation
import SyncEngine
import Testing
import TestSupport

/// Conflicts are settled by when each edit was *made*, not when a sync noticed it, and an edit
/// is not lost to a deletion (issue 20). Book A's clock runs 4 minutes fast and book B's 3
/// minutes slow; the test moves a simulated true time and sets each edited file's modification
/// time, so every time below is exact.
@Suite struct EditTimeConflictTests {
    static let minute: Int64 = 60_000
    static let hour: Int64 = 60 * minute
    /// 2031-03-14T08:00:00Z: both books sync for the first time.
    static let start: Int64 = 1_931_241_600_000
    static let skewA: Int64 = 4 * minute
    static let skewB: Int64 = -3 * minute
    static let rev = "20260101T000000Z"

    /// Books A and B in step with the server: A syncs at 08:00 and again at 09:00 (its last sync
    /// before the edits below), B at 08:01.
    func twoBooksInStep(_ remote: TestRemote, _ timeline: Timeline, count: Int = 0) async throws -> (a: URL, b: URL) {
        let a = try makeBook("a")
        let b = try makeBook("b")
        if count > 0 {
            try fill(a, count: count)
        } else {
            try a.write(card("c0", "Ada Lovelace", email: "ada@example.com", rev: Self.rev), to: "c0.vcf")
            try fill(a, count: 3, prefix: "x")
        }
        try await sync(a, remote, clock: timeline.clock(skew: Self.skewA))
        timeline.move(to: Self.start + Self.minute)
        try await sync(b, remote, clock: timeline.clock(skew: Self.skewB))
        timeline.move(to: Self.start + Self.hour)
        // A file of A rewritten as it was: the scan of this sync reads it (finding nothing new)
        // and so records its time, which bounds how early A's next outside edit can be dated.
        // (Whether a scan finding every stamp unchanged is recorded depended on how fast the
        // first sync ran: stamps within 100 ms of a scan are not kept.)
        let touched = try #require(try FileManager.default.contentsOfDirectory(atPath: a.path).sorted().first { $0.hasSuffix(".vcf") })
        try Data(contentsOf: a.appendingPathComponent(touched)).write(to: a.appendingPathComponent(touched))
        try await sync(a, remote, clock: timeline.clock(skew: Self.skewA))
        return (a, b)
    }

    /// Edits `c0` in `book` (REV unchanged), its file modified at `modified`.
    func editAda(_ book: URL, note: String, modified: Int64) throws {
        try book.write(card("c0", "Ada Lovelace", email: "ada@example.com", note: note, rev: Self.rev), to: "c0.vcf")
        try book.setModified("c0.vcf", to: modified)
    }

    /// Brings back the version of `uid` whose text contains `text` from `book`'s journal;
    /// `false` when the journal has no such version.
    func restoreVersion(of uid: String, containing text: String, in book: URL) async throws -> Bool {
        try await AddressBook.withOpen(at: book) { opened -> Bool in
            for event in try await opened.history(of: uid).reversed() where event.hash != nil && event.operation != .synced {
                guard let stored = try await opened.storedCardText(event.hash!), stored.contains(text) else { continue }
                _ = try await opened.restore(uid: uid, sequence: event.sequence)
                return true
            }
            return false
        }
    }

    // MARK: - Scenario 1: an older edit synced after a newer one

    static func expectedWinner(_ policy: ConflictPolicy) -> SyncReport.Conflict.Winner {
        policy == .local ? .local : .remote
    }

    /// A's card was edited at 10:00 (its mtime says so) while A was offline; B edits the same card
    /// at 12:00 and syncs; A syncs at 12:05. Under `newest` B's newer edit wins on both sides.
    @Test(arguments: Endpoint.all, ConflictPolicy.allCases)
    func anEditMadeEarlierButSyncedLaterLosesToTheNewerEdit(endpoint: Endpoint, policy: ConflictPolicy) async throws {
        try await withRemote(endpoint) { remote in
            let timeline = Timeline(Self.start)
            let clockA = timeline.clock(skew: Self.skewA)
            let clockB = timeline.clock(skew: Self.skewB)
            let (a, b) = try await twoBooksInStep(remote, timeline)
            try editAda(a, note: "from A", modified: Self.start + 2 * Self.hour)
            timeline.move(to: Self.start + 4 * Self.hour)
            try editAda(b, note: "from B", modified: Self.start + 4 * Self.hour)
            let first = try await sync(b, remote, policy: policy, clock: clockB)
            #expect(first.conflicts.isEmpty && first.pushedCounts == (0, 1, 0))
            // B's file was modified at 12:00 true time, 11:57 by B's slow clock: dated 11:57, B's now.
            let remoteDocument = try await remote.db.document(id: "contact:c0")
            let bEdited = Self.start + 4 * Self.hour + Self.skewB
            #expect(remoteDocument["edited"]?.stringValue.flatMap(Self.milliseconds) == bEdited)

            timeline.move(to: Self.start + 4 * Self.hour + 5 * Self.minute)
            let plan = try await sync(a, remote, policy: policy, dryRun: true, clock: clockA)
            let planned = try #require(plan.conflicts.first)
            #expect(plan.conflicts.count == 1 && planned.name == "Ada Lovelace")
            #expect(planned.local?.edited == Self.start + 2 * Self.hour, "A's edit is dated by its file")
            #expect(planned.remote?.edited == bEdited)
            #expect(planned.local?.revision == Self.rev && planned.remote?.revision == Self.rev)
            #expect(planned.winner == Self.expectedWinner(policy))

            let done = try await sync(a, remote, policy: policy, clock: clockA)
            #expect(done.conflicts.map { [$0.name, $0.winner.rawValue] } == [["Ada Lovelace", Self.expectedWinner(policy).rawValue]])
            #expect(try await sync(b, remote, policy: policy, clock: clockB).conflicts.isEmpty)
            let winner = Self.expectedWinner(policy) == .local ? "from A" : "from B"
            let loser = winner == "from A" ? "from B" : "from A"
            for book in [a, b] { #expect(try book.read("c0.vcf").contains(winner), "\(book.path)") }
            #expect(try await remote.db.document(id: "contact:c0")["vcard"]?.stringValue?.contains(winner) == true)
            if policy == .keepBoth {
                let kept = try #require(done.conflicts.first?.keptAs)
                try await sync(b, remote, clock: clockB)
                for book in [a, b] {
                    #expect(try book.contents().values.contains { $0.contains(loser) && $0.contains("UID:\(kept)") }, "\(book.path)")
                }
            }
            #expect(try await liveHashes(a) == (try await liveHashes(b)))
            // The losing version is in A's journal and restorable.
            #expect(try await restoreVersion(of: "c0", containing: loser, in: a))
            #expect(try a.read("c0.vcf").contains(loser))
        }
    }

    /// How A's edit is dated, whatever its file's modification time says, and who wins then
    /// (`newest`; B's edit is dated 11:57, A syncs at 12:05 true time, 12:09 by its clock).
    struct ModificationTimeCase: Sendable, CustomTestStringConvertible {
        var label: String
        /// The modification time of A's file, from 08:00.
        var modified: Int64
        /// The time A's edit is dated, from 08:00.
        var dated: Int64
        var winner: SyncReport.Conflict.Winner
        var testDescription: String { label }
    }

    static let modificationTimeCases: [ModificationTimeCase] = [
        .init(label: "between the last sync and B's edit", modified: 2 * hour, dated: 2 * hour, winner: .remote),
        .init(label: "older than the last sync (an old file copied in): the last scan", modified: -24 * hour,
              dated: hour + skewA, winner: .remote),
        .init(label: "newer than B's edit", modified: 4 * hour + 2 * minute, dated: 4 * hour + 2 * minute, winner: .local),
        .init(label: "in the future: now", modified: 48 * hour, dated: 4 * hour + 5 * minute + skewA, winner: .local),
    ]

    @Test(arguments: modificationTimeCases)
    func anOutsideEditIsDatedByItsFileBetweenTheLastScanAndNow(_ example: ModificationTimeCase) async throws {
        try await withRemote(.serve) { remote in
            let timeline = Timeline(Self.start)
            let clockA = timeline.clock(skew: Self.skewA)
            let clockB = timeline.clock(skew: Self.skewB)
            let (a, b) = try await twoBooksInStep(remote, timeline)
            timeline.move(to: Self.start + 2 * Self.hour)
            try editAda(a, note: "from A", modified: Self.start + example.modified)
            timeline.move(to: Self.start + 4 * Self.hour)
            try editAda(b, note: "from B", modified: Self.start + 4 * Self.hour)
            try await sync(b, remote, clock: clockB)
            timeline.move(to: Self.start + 4 * Self.hour + 5 * Self.minute)

            let plan = try await sync(a, remote, dryRun: true, clock: clockA)
            let conflict = try #require(plan.conflicts.first)
            #expect(conflict.local?.edited == Self.start + example.dated)
            #expect(conflict.remote?.edited == Self.start + 4 * Self.hour + Self.skewB)
            #expect(conflict.winner == example.winner)
            #expect(conflict.reason == (example.winner == .local ? "edited here more recently" : "edited on the server more recently"))
            let done = try await sync(a, remote, clock: clockA)
            #expect(done.conflicts.map(\.winner) == [example.winner])
            try await sync(b, remote, clock: clockB)
            let winner = example.winner == .local ? "from A" : "from B"
            for book in [a, b] { #expect(try book.read("c0.vcf").contains(winner), "\(book.path)") }
            // The edit time travelled with the winning version: B holds A's dating when A won.
            let document = try await remote.db.document(id: "contact:c0")
            let expectedTime = example.winner == .local ? Self.start + example.dated : Self.start + 4 * Self.hour + Self.skewB
            #expect(document["edited"]?.stringValue.flatMap(Self.milliseconds) == expectedTime)
            let recordB = try await AddressBook.withOpen(at: b) { book in await book.record(for: "c0") }
            #expect(recordB?.editTime == expectedTime)
        }
    }

    /// REV still decides first when one side's edit changed it: A's older edit that set a newer
    /// REV wins over B's later edit that left REV alone.
    @Test func aChangedRevDecidesBeforeTheEditTimes() async throws {
        try await withRemote(.serve) { remote in
            let timeline = Timeline(Self.start)
            let (a, b) = try await twoBooksInStep(remote, timeline)
            try a.write(card("c0", "Ada Lovelace", email: "ada@example.com", note: "from A", rev: "20310314T100000Z"), to: "c0.vcf")
            try a.setModified("c0.vcf", to: Self.start + 2 * Self.hour)
            timeline.move(to: Self.start + 4 * Self.hour)
            try editAda(b, note: "from B", modified: Self.start + 4 * Self.hour)
            try await sync(b, remote, clock: timeline.clock(skew: Self.skewB))
            timeline.move(to: Self.start + 4 * Self.hour + 5 * Self.minute)
            let report = try await sync(a, remote, clock: timeline.clock(skew: Self.skewA))
            #expect(report.conflicts.map(\.winner) == [.local] && report.conflicts.first?.reason == "newer REV here")
            #expect(try a.read("c0.vcf").contains("from A"))
        }
    }

    // MARK: - Scenario 2: an edit against a deletion

    /// A edits c0…c5 at 10:00 and syncs; B, which has not pulled them, deletes c3…c8 at 11:00
    /// (later than the edits) and syncs. The edited c3, c4 and c5 come back on B with A's
    /// edits, reported as conflicts by name (`newest`, `remote`, `keep-both`); `local` lets B's
    /// deletion win and keeps A's edits in B's journal, restorable.
    @Test(arguments: Endpoint.all, ConflictPolicy.allCases)
    func editedContactsDeletedOnTheOtherSideComeBackWithTheEdit(endpoint: Endpoint, policy: ConflictPolicy) async throws {
        try await withRemote(endpoint) { remote in
            let timeline = Timeline(Self.start)
            let clockA = timeline.clock(skew: Self.skewA)
            let clockB = timeline.clock(skew: Self.skewB)
            let (a, b) = try await twoBooksInStep(remote, timeline, count: 10)
            timeline.move(to: Self.start + 2 * Self.hour)
            for index in 0...5 {
                try a.write(card("c\(index)", "Person C\(index)", email: "p\(index)@example.com", note: "edited in A"), to: "c\(index).vcf")
                try a.setModified("c\(index).vcf", to: Self.start + 2 * Self.hour)
            }
            #expect(try await sync(a, remote, policy: policy, clock: clockA).pushedCounts == (0, 6, 0))
            timeline.move(to: Self.start + 3 * Self.hour)
            for index in 3...8 { try b.remove("c\(index).vcf") }

            let plan = try await sync(b, remote, policy: policy, dryRun: true, clock: clockB)
            let done = try await sync(b, remote, policy: policy, clock: clockB)
            let editWins = policy != .local
            for report in [plan, done] {
                #expect(report.conflicts.map(\.name).sorted() == ["Person C3", "Person C4", "Person C5"])
                for conflict in report.conflicts {
                    #expect(conflict.winner == (editWins ? .remote : .local))
                    #expect(conflict.local?.isDeletion == true && conflict.local?.edited == Self.start + 3 * Self.hour + Self.skewB)
                    #expect(conflict.remote?.isDeletion == false && conflict.remote?.edited == Self.start + 2 * Self.hour)
                    #expect(conflict.keptAs == nil)
                    if policy == .newest || policy == .keepBoth {
                        #expect(conflict.reason == "edited on the server, deleted here: an edit wins over a deletion")
                    }
                }
                #expect(report.pushedCounts.deleted == (editWins ? 3 : 6))
            }
            try await sync(a, remote, policy: policy, clock: clockA)
            try await sync(b, remote, policy: policy, clock: clockB)
            let expectedFiles = (editWins ? [0, 1, 2, 3, 4, 5, 9] : [0, 1, 2, 9]).map { "c\($0).vcf" }
            for book in [a, b] { #expect(book.contactFiles == expectedFiles, "\(book.path)") }
            if editWins {
                for index in 3...5 { #expect(try b.read("c\(index).vcf").contains("edited in A")) }
            }
            #expect(try await liveHashes(a) == (try await liveHashes(b)))
            #expect(try await remoteHashes(remote) == (try await liveHashes(b)))
            if !editWins {
                // The edits that lost are in both journals and restorable.
                #expect(try await restoreVersion(of: "c4", containing: "edited in A", in: b))
                #expect(try b.read("c4.vcf").contains("edited in A"))
                #expect(try await restoreVersion(of: "c5", containing: "edited in A", in: a))
            }
        }
    }

    /// The other order: B's deletions reach the server first, A's edits (made before them) come
    /// later. The edit still wins under `newest`, `local` and `keep-both` and goes back to B.
    @Test(arguments: ConflictPolicy.allCases)
    func anEditSyncedAfterTheDeletionStillWins(policy: ConflictPolicy) async throws {
        try await withRemote(.serve) { remote in
            let timeline = Timeline(Self.start)
            let clockA = timeline.clock(skew: Self.skewA)
            let clockB = timeline.clock(skew: Self.skewB)
            let (a, b) = try await twoBooksInStep(remote, timeline, count: 6)
            timeline.move(to: Self.start + 2 * Self.hour)
            try a.write(card("c2", "Person C2", email: "p2@example.com", note: "edited in A"), to: "c2.vcf")
            try a.setModified("c2.vcf", to: Self.start + 2 * Self.hour)
            timeline.move(to: Self.start + 3 * Self.hour)
            for index in 2...3 { try b.remove("c\(index).vcf") }
            #expect(try await sync(b, remote, policy: policy, clock: clockB).pushedCounts == (0, 0, 2))
            timeline.move(to: Self.start + 4 * Self.hour)
            let report = try await sync(a, remote, policy: policy, clock: clockA)
            let editWins = policy != .remote
            #expect(report.conflicts.map(\.name) == ["Person C2"])
            #expect(report.conflicts.first?.winner == (editWins ? .local : .remote))
            #expect(report.conflicts.first?.remote?.isDeletion == true && report.conflicts.first?.local?.isDeletion == false)
            // Both times are shown: B's deletion (its tombstone says when) and A's edit.
            #expect(report.conflicts.first?.remote?.edited == Self.start + 3 * Self.hour + Self.skewB)
            #expect(report.conflicts.first?.local?.edited == Self.start + 2 * Self.hour)
            let back = try await sync(b, remote, policy: policy, clock: clockB)
            let expectedFiles = (editWins ? [0, 1, 2, 4, 5] : [0, 1, 4, 5]).map { "c\($0).vcf" }
            for book in [a, b] { #expect(book.contactFiles == expectedFiles, "\(book.path)") }
            #expect(try await liveHashes(a) == (try await remoteHashes(remote)))
            if editWins {
                #expect(back.pulled.map(\.name) == ["Person C2"])
                #expect(try b.read("c2.vcf").contains("edited in A"))
            } else {
                // The edit that lost is in A's journal and restorable.
                #expect(try await restoreVersion(of: "c2", containing: "edited in A", in: a))
            }
        }
    }

    /// A deletion made here after this book's own edit reached the server (its answer lost, so
    /// the sync state still names the version before) loses no edit made elsewhere: the
    /// deletion goes through instead of bringing the contact back.
    @Test func aDeletionAfterTheBooksOwnUnrecordedPushIsNotUndone() async throws {
        try await withRemote(.serve) { remote in
            let a = try makeBook("a")
            try fill(a, count: 3)
            try await sync(a, remote)
            try a.write(card("c1", "Person C1", note: "edited here"), to: "c1.vcf")
            let first = FirstTime()
            await #expect(throws: SyncError.self) {
                try await sync(a, remote, wrap: { LosingFirstBulkDocsAnswer(base: $0, first: first) },
                               retry: RetryPolicy(maximumAttempts: 1))
            }
            #expect(try await remote.db.document(id: "contact:c1")["vcard"]?.stringValue?.contains("edited here") == true)
            try a.remove("c1.vcf")
            let report = try await sync(a, remote)
            #expect(report.conflicts.map(\.reason) == ["deleted here after this book held the server's version"])
            #expect(!a.contactFiles.contains("c1.vcf"))
            #expect(try await remoteHashes(remote).keys.sorted() == ["c0", "c2"])
        }
    }

    /// Milliseconds since 1970 of a document time (`2031-03-14T08:00:00.000Z`).
    static func milliseconds(_ text: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
    }
}

/// Says `true` the first time it is asked.
actor FirstTime {
    private var asked = false
    func take() -> Bool {
        defer { asked = true }
        return !asked
    }
}

/// A transport that sends the first `_bulk_docs` and then loses its answer (a network error).
struct LosingFirstBulkDocsAnswer: CouchTransport {
    var base: any CouchTransport
    var first: FirstTime
    func send(_ request: CouchHTTPRequest, timeout: Duration) async throws -> CouchHTTPResponse {
        let response = try await base.send(request, timeout: timeout)
        if request.url.contains("/_bulk_docs"), await first.take() { throw InjectedNetworkError() }
        return response
    }
}
