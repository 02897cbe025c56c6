import ContactStore
import CouchClient
import Foundation
import SyncEngine
import Testing
import TestSupport

/// A sync's first requests — the server's copy of the book's checkpoint and the changes feed
/// since it — go out while the book is opened (its folder walked), and the sync does not make
/// them again. A change that reaches the server after the feed was read is settled or pulled
/// by the next sync: never skipped, never lost.
///
/// The time limit stops a prefetch that waits forever (for a checkpoint nobody provides). It is
/// not a speed bound: in a full run on two cores, under AddressSanitizer, these tests wait their
/// turn behind the rest (each took 550–558 s of a 593-s run on 2026-12-07).
@Suite(.timeLimit(.minutes(20))) struct PrefetchTests {
    /// Whether `condition` holds within ten seconds (polled).
    private func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    /// The feed reads among the logged requests.
    private func feedReads(_ requests: RequestLog) async -> [String] {
        await requests.urls.filter { $0.contains("/_changes") }
    }

    /// Books a (with `count` contacts) and b, both synced with `remote` and in step.
    private func twoBooksInStep(_ remote: TestRemote, count: Int) async throws -> (a: URL, b: URL) {
        let a = try makeBook("a")
        try fill(a, count: count)
        try await sync(a, remote)
        let b = try makeBook("b")
        try await sync(b, remote)
        return (a, b)
    }

    /// Opens `book` with a prefetch for `remote`, runs `beforeSync` once the book is open, then
    /// syncs with `options`; returns the sync's report. Without `tellingCheckpoint`, opening does
    /// not tell the prefetch the book's checkpoint.
    private func syncWithPrefetch(_ book: URL, _ remote: TestRemote, requests: RequestLog, options: SyncOptions = SyncOptions(),
                                  tellingCheckpoint: Bool = true,
                                  beforeSync: @escaping () async throws -> Void) async throws -> SyncReport {
        try await withDatabase(remote, wrap: { RecordingTransport(base: $0, log: requests) }) { database in
            try await RemotePrefetch.withRequests(forBookAt: book, database: database, remote: remote.key, options: options) { prefetch in
                var opening = AddressBook.OpenOptions()
                if tellingCheckpoint { opening.indexOpened = { prefetch.bookOpened($0) } }
                return try await AddressBook.withOpen(at: book, options: opening) { opened in
                    try await beforeSync()
                    return try await SyncEngine(book: opened, database: database, remote: remote.key, options: options,
                                                prefetch: prefetch).sync()
                }
            }
        }
    }

    @Test(arguments: Endpoint.all)
    func theCheckpointAndTheFeedAreReadWhileTheBookOpensAndNotAgain(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let (a, b) = try await twoBooksInStep(remote, count: 12)
            try b.write(card("c3", "Person C3", email: "moved@example.com"), to: "c3.vcf")
            #expect(try await sync(b, remote).pushed.map(\.uid) == ["c3"])

            let requests = RequestLog()
            let report = try await syncWithPrefetch(a, remote, requests: requests) {
                // The engine has not run yet: both reads were made while the book was opened.
                let read = try await eventually { await feedReads(requests).count == 1 }
                #expect(read, "the changes feed was not read while the book was opened")
                let early = await requests.urls
                #expect(early.count == 2 && early[0].contains("/_local/cardsync-"), "\(early)")
            }
            #expect(report.pulled.map(\.uid) == ["c3"] && report.problems.isEmpty)
            // Neither was read again by the engine: one checkpoint read (then its save), one feed
            // read, which brought the changed document: the pull fetched nothing.
            #expect(await requests.methods(containing: "/_local/") == ["GET", "PUT"])
            #expect(await feedReads(requests).count == 1)
            #expect(await feedReads(requests).allSatisfy { $0.contains("include_docs=true") })
            #expect(!(await requests.urls).contains { $0.contains("/_all_docs") })
            #expect(try a.read("c3.vcf").contains("moved@example.com"))
            #expect(try await liveHashes(a) == (try await remoteHashes(remote)))

            // With nothing to do, the sync's two requests are the prefetch's.
            let quiet = RequestLog()
            let noop = try await syncWithPrefetch(a, remote, requests: quiet) {
                let read = try await eventually { await feedReads(quiet).count == 1 }
                #expect(read)
            }
            #expect(!noop.hasChanges && noop.problems.isEmpty)
            let quietURLs = await quiet.urls
            #expect(quietURLs.count == 2, "\(quietURLs)")
        }
    }

    @Test(arguments: Endpoint.all)
    func aChangeThatReachesTheServerAfterTheFeedWasReadIsSettledOrPulledNotLost(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let (a, b) = try await twoBooksInStep(remote, count: 4)
            // a edits c1 in its folder; the sync's scan records it.
            try a.write(card("c1", "Person C1", note: "a's edit"), to: "c1.vcf")

            let requests = RequestLog()
            let report = try await syncWithPrefetch(a, remote, requests: requests) {
                let read = try await eventually { await feedReads(requests).count == 1 }
                #expect(read)
                // After a's feed was read, b changes c1 and c2 on the server.
                try b.write(card("c1", "Person C1", note: "b's edit"), to: "c1.vcf")
                try b.write(card("c2", "Person C2", note: "b's edit"), to: "c2.vcf")
                #expect(Set(try await sync(b, remote).pushed.map(\.uid)) == ["c1", "c2"])
            }
            // c1: a's push met b's revision (409) and the conflict was settled by the policy.
            #expect(report.conflicts.map(\.uid) == ["c1"], "\(report.conflicts)")
            #expect(report.problems.isEmpty)
            // c2: not in the feed a read; the next sync pulls it.
            #expect(!report.pulled.map(\.uid).contains("c2"))
            let next = try await sync(a, remote)
            #expect(next.pulled.map(\.uid).contains("c2"), "\(next.pulled)")
            #expect(try a.read("c2.vcf").contains("b's edit"))
            try await sync(b, remote)
            #expect(try await liveHashes(a) == (try await remoteHashes(remote)))
            #expect(try await liveHashes(b) == (try await liveHashes(a)))
            // Both versions of c1 are in a's journal.
            let kept = try await AddressBook.withOpen(at: a) { book -> [String] in
                var texts: [String] = []
                for event in try await book.history(of: "c1") where event.hash != nil && event.operation != .synced {
                    if let text = try await book.storedCardText(event.hash!) { texts.append(text) }
                }
                return texts
            }
            #expect(kept.contains { $0.contains("a's edit") } && kept.contains { $0.contains("b's edit") }, "\(kept)")
        }
    }

    @Test(arguments: Endpoint.all)
    func aBookThatNeverSyncedAndASyncThatStartsOverStartNoRequestsWhileOpening(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            try fill(a, count: 3)
            for reset in [false, true] {
                let requests = RequestLog()
                let report = try await syncWithPrefetch(a, remote, requests: requests, options: SyncOptions(reset: reset)) {
                    // Nothing was started: the engine decides what to read.
                    try await Task.sleep(for: .milliseconds(50))
                    let early = await requests.urls
                    #expect(early.isEmpty, "\(early)")
                }
                #expect(report.problems.isEmpty)
                #expect(reset || report.pushed.count == 3)
            }
            #expect(try await liveHashes(a) == (try await remoteHashes(remote)))
        }
    }

    @Test(arguments: Endpoint.all)
    func withoutTheOpeningsCheckpointTheFeedIsReadOnceWhenTheEngineAsks(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let (a, b) = try await twoBooksInStep(remote, count: 5)
            try b.write(card("c2", "Person C2", note: "from b"), to: "c2.vcf")
            try await sync(b, remote)

            let requests = RequestLog()
            let report = try await syncWithPrefetch(a, remote, requests: requests, tellingCheckpoint: false) {
                // The checkpoint is read, but the feed waits for the book's checkpoint.
                let read = try await eventually { await requests.methods(containing: "/_local/") == ["GET"] }
                #expect(read)
                try await Task.sleep(for: .milliseconds(50))
                #expect(await feedReads(requests).isEmpty)
            }
            #expect(report.pulled.map(\.uid) == ["c2"] && report.problems.isEmpty)
            #expect(await requests.methods(containing: "/_local/") == ["GET", "PUT"])
            #expect(await feedReads(requests).count == 1)
        }
    }

    @Test(arguments: Endpoint.all)
    func aBookThatSyncedOnlyWithAnotherDatabaseSyncsAsBeforeWithOneCheckpointReadMore(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            try fill(a, count: 3)
            try await sync(a, remote)
            // The same server, another database: a has an identifier, but no checkpoint with it.
            var other = remote
            other.database = remote.database + "_other"
            let requests = RequestLog()
            let report: SyncReport
            do {
                report = try await syncWithPrefetch(a, other, requests: requests) {}
            } catch {
                try? await other.db.delete()
                throw error
            }
            #expect(report.createdDatabase && report.pushed.count == 3 && report.problems.isEmpty)
            // The checkpoint read while opening found none; the engine read no feed from a checkpoint.
            #expect(await requests.methods(containing: "/_local/").first == "GET")
            #expect(try await requests.changesSince().allSatisfy { $0 == nil })
            #expect(try await liveHashes(a) == (try await remoteHashes(other)))
            try await other.db.delete()
        }
    }
}
