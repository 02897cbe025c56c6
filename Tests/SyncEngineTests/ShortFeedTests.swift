import ContactStore
import CouchClient
import Foundation
import SyncEngine
import Testing
import TestSupport

/// After a checkpoint, a sync asks for the first changes with their documents: a short feed —
/// what usually changed between two syncs — brings everything the pull applies in the one
/// request that lists it. A longer feed keeps the documents it brought and the pull fetches
/// only the rest; a feed with a row too large to carry is listed and pulled as before; every
/// path leaves the same book.
@Suite struct ShortFeedTests {
    /// Books a and b with `count` contacts, both synced with `remote` and in step; then b edits
    /// c1 and c2, removes c3, adds n0 and syncs.
    private func booksWithChangesOnTheServer(_ remote: TestRemote, count: Int = 8,
                                             edits: Int = 2) async throws -> (a: URL, b: URL) {
        let a = try makeBook("a")
        try fill(a, count: count)
        try await sync(a, remote)
        let b = try makeBook("b")
        try await sync(b, remote)
        for index in 1...edits { try b.write(card("c\(index)", "Person C\(index)", note: "b's edit"), to: "c\(index).vcf") }
        try b.remove("c\(edits + 1).vcf")
        try b.write(card("n0", "New Person"), to: "n0.vcf")
        #expect(try await sync(b, remote).pushed.count == edits + 2)
        return (a, b)
    }

    /// The `since` of a `_changes` request.
    private func since(_ url: String) -> String? {
        URLComponents(string: url)?.queryItems?.first { $0.name == "since" }?.value
    }

    @Test(arguments: Endpoint.all)
    func aShortFeedBringsItsDocumentsAndThePullFetchesNothing(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let (a, b) = try await booksWithChangesOnTheServer(remote)
            let log = RequestLog()
            let report = try await sync(a, remote, wrap: { RecordingTransport(base: $0, log: log) })

            #expect(Set(report.pulled.map(\.uid)) == ["c1", "c2", "c3", "n0"] && report.problems.isEmpty, "\(report.pulled)")
            #expect(try a.read("c1.vcf").contains("b's edit"))
            #expect(!FileManager.default.fileExists(atPath: a.appendingPathComponent("c3.vcf").path))
            #expect(try await liveHashes(a) == (try await liveHashes(b)))
            let urls = await log.urls
            let feeds = urls.filter { $0.contains("/_changes") }
            #expect(feeds.count == 1 && feeds[0].contains("include_docs=true") && feeds[0].contains("limit=1024"), "\(urls)")
            #expect(!urls.contains { $0.contains("/_all_docs") }, "\(urls)")
            #expect(!(try await sync(a, remote)).hasChanges)
        }
    }

    @Test(arguments: Endpoint.all)
    func withoutTheLimitTheSameFeedIsListedThenFetched(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let (a, b) = try await booksWithChangesOnTheServer(remote)
            let log = RequestLog()
            let report = try await sync(a, remote, feedDocumentLimit: 0, wrap: { RecordingTransport(base: $0, log: log) })

            #expect(Set(report.pulled.map(\.uid)) == ["c1", "c2", "c3", "n0"] && report.problems.isEmpty, "\(report.pulled)")
            #expect(try await liveHashes(a) == (try await liveHashes(b)))
            let feeds = await log.urls.filter { $0.contains("/_changes") }
            #expect(feeds.count == 2 && !feeds[0].contains("include_docs") && feeds[1].contains("include_docs=true"), "\(feeds)")
        }
    }

    @Test(arguments: Endpoint.all)
    func aLongerFeedKeepsTheDocumentsItBroughtAndThePullFetchesOnlyTheRest(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let (a, b) = try await booksWithChangesOnTheServer(remote, count: 12, edits: 6)
            let log = RequestLog()
            let report = try await sync(a, remote, changesPageSize: 3, feedDocumentLimit: 4,
                                        wrap: { RecordingTransport(base: $0, log: log) })

            #expect(report.pulled.count == 8 && report.problems.isEmpty, "\(report.pulled)")
            #expect(try a.read("c6.vcf").contains("b's edit"))
            #expect(try await liveHashes(a) == (try await liveHashes(b)))
            let feeds = await log.urls.filter { $0.contains("/_changes") }
            // Four rows with documents, then the rest listed without them from the fourth row's
            // position (not again from the checkpoint), then the other four documents streamed
            // from there: the first four are not fetched again.
            #expect(feeds.count == 4, "\(feeds)")
            guard feeds.count == 4 else { return }
            #expect(feeds[0].contains("include_docs=true") && feeds[0].contains("limit=4"))
            #expect(feeds[1...2].allSatisfy { !$0.contains("include_docs") && $0.contains("limit=3") }, "\(feeds)")
            #expect(since(feeds[1]) != since(feeds[0]) && since(feeds[1]) != nil)
            #expect(feeds[3].contains("include_docs=true") && since(feeds[3]) == since(feeds[1]))
            #expect(!(try await sync(a, remote)).hasChanges)
        }
    }

    @Test(arguments: Endpoint.all)
    func documentsPastTheByteBudgetAreNotKeptButFetched(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let (a, b) = try await booksWithChangesOnTheServer(remote)
            let log = RequestLog()
            // A budget the first chunk of the response already passes: no document is kept.
            let report = try await sync(a, remote, feedDocumentBytes: 1, wrap: { RecordingTransport(base: $0, log: log) })

            #expect(Set(report.pulled.map(\.uid)) == ["c1", "c2", "c3", "n0"] && report.problems.isEmpty, "\(report.pulled)")
            #expect(try await liveHashes(a) == (try await liveHashes(b)))
            let feeds = await log.urls.filter { $0.contains("/_changes") }
            #expect(feeds.count == 2 && feeds.allSatisfy { $0.contains("include_docs=true") }, "\(feeds)")
            #expect(feeds.count == 2 && since(feeds[1]) == since(feeds[0]), "\(feeds)")
            #expect(!(try await sync(a, remote)).hasChanges)
        }
    }

    @Test(arguments: Endpoint.all)
    func aRowTooLargeToCarryIsListedAgainAndPulledAsBefore(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let (a, b) = try await booksWithChangesOnTheServer(remote)
            // A document above the 1 MB a short feed carries, below what the stream takes.
            let note = String(repeating: "long note ", count: 120_000)
            try b.write(card("c4", "Person C4", note: note), to: "c4.vcf")
            try await sync(b, remote)
            let log = RequestLog()
            let report = try await sync(a, remote, wrap: { RecordingTransport(base: $0, log: log) })

            #expect(Set(report.pulled.map(\.uid)) == ["c1", "c2", "c3", "c4", "n0"] && report.problems.isEmpty, "\(report.pulled)")
            #expect(try a.read("c4.vcf").contains(note))
            #expect(try await liveHashes(a) == (try await liveHashes(b)))
            let feeds = await log.urls.filter { $0.contains("/_changes") }
            // The short read passed the row over; the feed was listed again from the checkpoint.
            #expect(feeds.count == 3, "\(feeds)")
            guard feeds.count == 3 else { return }
            #expect(feeds[0].contains("include_docs=true") && !feeds[1].contains("include_docs"))
            #expect(since(feeds[1]) == since(feeds[0]) && since(feeds[2]) == since(feeds[0]))
            #expect(!(try await sync(a, remote)).hasChanges)
        }
    }
}
