import AsyncHTTPClient
import ContactStore
import CouchClient
import Foundation
import JSONText
import SyncEngine
import Synchronization
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The pull reads the documents of a large pull from one `_changes?include_docs=true` response
/// as it arrives: a feed split anywhere reads the same, a broken connection resumes from the last
/// row read, and small pages or one response leave the same book.
@Suite struct StreamedPullTests {
    @Test(arguments: Endpoint.all)
    func aFeedSplitAtEveryBytePositionReadsAsTheWholeResponse(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            try fill(a, count: 3)
            try await sync(a, remote)
            // An edit with characters of two, three and four bytes, and a deletion, so the feed has both kinds of row.
            try a.write(card("c1", "Person C1", note: "Zoë, 東京, 🙂, \"quoted\" \\ back"), to: "c1.vcf")
            try a.remove("c2.vcf")
            try await sync(a, remote)

            let bytes = try await rawBody(remote, path: "/_changes?include_docs=true&style=all_docs&conflicts=true")
            let request = ChangesRequest(includeDocuments: true, allRevisions: true, conflicts: true)
            // The same bytes parsed as one document, the way a page is read.
            let whole = try await ReplayTransport.client([bytes]).database(remote.database).changes(request)
            #expect(whole.results.count == 3 && whole.results.contains { $0.isDeleted })
            #expect(whole.results.allSatisfy { $0.document != nil })

            func streamed(_ chunks: [[UInt8]]) async throws -> ([Change], CouchSequence?) {
                let feed = try ReplayTransport.client(chunks).database(remote.database).changesFeed(request)
                var rows: [Change] = []
                while let row = try await feed.next() { rows.append(row) }
                return (rows, await feed.lastSequence)
            }
            for split in 0...bytes.count {
                let (rows, last) = try await streamed([Array(bytes[..<split]), Array(bytes[split...])])
                #expect(rows == whole.results, "split at byte \(split)")
                #expect(last == whole.lastSequence, "split at byte \(split)")
            }
            let (rows, last) = try await streamed(bytes.map { [$0] })
            #expect(rows == whole.results && last == whole.lastSequence, "one byte per chunk")
        }
    }

    @Test func aFeedThatIsNotJSONFailsWithInvalidResponse() async throws {
        let bytes = Array(#"{"results":[{"seq":1,"id":"contact:a","changes":[{"rev":"1-a"}]},{"seq":2,"id":"#.utf8)
        let feed = try ReplayTransport.client([bytes]).database("contacts").changesFeed(ChangesRequest())
        #expect(try await feed.next()?.id == "contact:a")
        let error = await #expect(throws: CouchClientError.self) { try await feed.next() }
        #expect(error?.code == .invalidResponse)
    }

    @Test(arguments: Endpoint.all)
    func aConnectionCutInsideTheStreamResumesFromTheLastRowRead(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            try fill(a, count: 40)
            try await sync(a, remote)

            let b = try makeBook("b")
            let log = RequestLog()
            let report = try await sync(b, remote, batchSize: 4, wrap: { CuttingTransport(base: $0, cutAfter: 6000, log: log) })
            #expect(report.pulled.count == 40 && report.problems.isEmpty)
            #expect(try await liveHashes(b) == (try await liveHashes(a)))
            #expect(try b.contents().values.sorted() == (try a.contents().values.sorted()))
            let streams = await log.urls.filter { $0.contains("include_docs=true") }
            #expect(streams.count == 2, "\(streams)")
            // The second request starts after the last row read, not from the beginning.
            let resumedSince = try #require(streams.last.flatMap { URLComponents(string: $0)?.queryItems?.first { $0.name == "since" }?.value })
            #expect(!resumedSince.isEmpty)
            let urls = await log.urls
            #expect(!urls.contains { $0.contains("/_all_docs") }, "\(urls)")
        }
    }

    @Test(arguments: Endpoint.all)
    func smallPagesAndOneResponseLeaveTheSameBook(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            try fill(a, count: 30)
            try await sync(a, remote)
            for index in 0..<5 { try a.write(card("c\(index)", "Person C\(index)", note: "edited"), to: "c\(index).vcf") }
            for index in 5..<8 { try a.remove("c\(index).vcf") }
            try fill(a, count: 4, prefix: "n")
            try await sync(a, remote)

            let paged = try makeBook("paged")
            let pagedLog = RequestLog()
            let pagedReport = try await sync(paged, remote, batchSize: 3, changesPageSize: 4,
                                             wrap: { RecordingTransport(base: $0, log: pagedLog) })
            let whole = try makeBook("whole")
            let wholeLog = RequestLog()
            let wholeReport = try await sync(whole, remote, wrap: { RecordingTransport(base: $0, log: wholeLog) })

            #expect(pagedReport.pulled.count == 31 && wholeReport.pulled.count == 31)
            #expect(pagedReport.problems.isEmpty && wholeReport.problems.isEmpty)
            let expected = try await liveHashes(a)
            #expect(try await liveHashes(paged) == expected)
            #expect(try await liveHashes(whole) == expected)
            #expect(try paged.contents().values.sorted() == (try a.contents().values.sorted()))
            #expect(try whole.contents() == (try paged.contents()))
            // Both read the documents from the streamed feed, none by key.
            for urls in [await pagedLog.urls, await wholeLog.urls] {
                #expect(urls.filter { $0.contains("include_docs=true") }.count == 1, "\(urls)")
                #expect(!urls.contains { $0.contains("/_all_docs") }, "\(urls)")
            }
            // Each synced again finds nothing to do.
            #expect(!(try await sync(paged, remote)).hasChanges)
            #expect(!(try await sync(whole, remote)).hasChanges)
        }
    }

    /// A first pull into a book that holds nothing takes every document from one streamed
    /// response read from the start: the feed's ids are not listed first, and nothing is
    /// fetched by key. The checkpoint it records leaves the next sync nothing to do.
    @Test(arguments: Endpoint.all)
    func aFirstPullIntoABlankBookReadsTheFeedOnceWithTheDocuments(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            try fill(a, count: 25)
            try await sync(a, remote)
            for index in 0..<3 { try a.write(card("c\(index)", "Person C\(index)", note: "edited"), to: "c\(index).vcf") }
            for index in 3..<5 { try a.remove("c\(index).vcf") }
            try await sync(a, remote)

            let b = try makeBook("b")
            let log = RequestLog()
            let report = try await sync(b, remote, batchSize: 4, wrap: { RecordingTransport(base: $0, log: log) })
            #expect(report.pulled.count == 23 && report.problems.isEmpty)
            #expect(try await liveHashes(b) == (try await liveHashes(a)))
            #expect(try b.contents() == (try a.contents()))
            let urls = await log.urls
            let feeds = urls.filter { $0.contains("/_changes") }
            #expect(feeds.count == 1 && feeds.allSatisfy { $0.contains("include_docs=true") }, "\(urls)")
            #expect(!urls.contains { $0.contains("/_all_docs") }, "\(urls)")
            #expect(!(try await sync(b, remote)).hasChanges)
            #expect(!(try await sync(a, remote)).hasChanges)
        }
    }

    /// A streamed pull applies `pullBatchSize` documents together (`batchSize`, the size of a
    /// request, when it is not given): each batch is reported once it is durable.
    @Test(arguments: Endpoint.all)
    func aStreamedPullAppliesItsOwnBatchSize(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            try fill(a, count: 7)
            try await sync(a, remote)

            func pulledBatches(batchSize: Int, pullBatchSize: Int?) async throws -> [Int] {
                let b = try makeBook("b")
                let steps = Mutex<[Int]>([])
                let report = try await sync(b, remote, batchSize: batchSize, pullBatchSize: pullBatchSize, progress: { step in
                    if step.phase == .pulling { steps.withLock { $0.append(step.done) } }
                })
                #expect(report.pulled.count == 7 && report.problems.isEmpty)
                #expect(try b.contents() == (try a.contents()))
                return steps.withLock { $0 }
            }
            #expect(try await pulledBatches(batchSize: 2, pullBatchSize: 3) == [3, 6, 7])
            #expect(try await pulledBatches(batchSize: 2, pullBatchSize: nil) == [2, 4, 6, 7])
        }
    }

    /// A document too large for a row of the stream is passed over by the stream; the first
    /// pull into a blank book then lists the feed and fetches what the stream did not give.
    @Test(arguments: Endpoint.all)
    func aFirstPullIntoABlankBookFetchesRowsTooLargeForTheStreamByKey(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            try fill(a, count: 8)
            try a.write(card("big", "Person Big", note: String(repeating: "long note ", count: 2000)), to: "big.vcf")
            try await sync(a, remote)

            let b = try makeBook("b")
            let log = RequestLog()
            let report = try await sync(b, remote, batchSize: 3, maximumStreamedRowBytes: 8 << 10,
                                        wrap: { RecordingTransport(base: $0, log: log) })
            #expect(report.pulled.count == 9 && report.problems.isEmpty)
            #expect(try await liveHashes(b) == (try await liveHashes(a)))
            #expect(try b.contents() == (try a.contents()))
            let urls = await log.urls
            #expect(urls.filter { $0.contains("/_all_docs") }.count == 1, "\(urls)")
            #expect(!(try await sync(b, remote)).hasChanges)
        }
    }
}

extension InterruptionTests {
    @Test func firstPullKilledInsideItsBatchesLosesAndDuplicatesNothing() async throws {
        let root = try TestPaths.makeTemporaryDirectory("kill-first-pull")
        let server = try ServeProcess(data: root.appendingPathComponent("server"))
        defer { server.stop() }
        let remoteURL = server.url + "/contacts"
        let a = root.appendingPathComponent("a")
        try AddressBook.create(at: a)
        try fill(a, count: 400)
        #expect(try CLIRunner.run(["sync", a.path, "--remote", remoteURL]).status == 0)
        let seed = ProcessInfo.processInfo.environment["CARDSYNC_KILL_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64.max)
        var generator = SeededGenerator(seed: seed)
        let expected = try await liveHashes(a)
        let serverCards = try a.contents().values.sorted()
        var killedWhilePulling = 0
        var window: UInt64 = 200
        for round in 0..<12 where killedWhilePulling < 3 {
            // A new, empty book pulls all 400 from one streamed feed, 5 per durable batch, and
            // is killed at a random moment after its first batch, once or twice.
            let b = root.appendingPathComponent("b\(round)")
            try AddressBook.create(at: b)
            var cutShort = false
            for _ in 0..<2 {
                let before = try b.contents()
                let outcome = try runKilled(["sync", b.path, "--remote", remoteURL, "--batch-size", "5"],
                                            afterGrowthOf: b.appendingPathComponent(".cardsync/journal.jsonl"),
                                            plusMilliseconds: Int(generator.next() % window))
                let after = try b.contents()
                if outcome == .killed && after != before && after.count < 400 { cutShort = true }
                let check = try CLIRunner.run(["check", b.path])
                #expect(check.status == 0, "round \(round), seed \(seed): \(check.standardOutput)\(check.standardError)")
                // What is in the folder is exactly server cards, each once.
                #expect(Set(after.values).isSubset(of: Set(serverCards)) && Set(after.values).count == after.count, "seed \(seed)")
            }
            if cutShort { killedWhilePulling += 1 } else { window = max(4, window / 2) }
            let final = try CLIRunner.run(["sync", b.path, "--remote", remoteURL])
            #expect(final.status == 0, "\(final.standardError)")
            #expect(try b.contents().values.sorted() == serverCards, "round \(round), seed \(seed)")
            #expect(try await liveHashes(b) == expected, "round \(round), seed \(seed)")
        }
        print("kill -9 during a first pull (seed \(seed)): \(killedWhilePulling) books cut short while pulling")
        #expect(killedWhilePulling >= 2, "most books must be cut short while pulling for the test to mean something (seed \(seed))")
    }
}

/// The body of `GET /{db}{path}` exactly as the server sends it.
func rawBody(_ remote: TestRemote, path: String) async throws -> [UInt8] {
    var components = try #require(URLComponents(url: remote.serverURL, resolvingAgainstBaseURL: false))
    let credentials = "\(components.user ?? ""):\(components.password ?? "")"
    components.user = nil
    components.password = nil
    let url = try #require(components.string).trimmingCharacters(in: CharacterSet(charactersIn: "/")) + "/" + remote.database + path
    let httpClient = HTTPClient(eventLoopGroupProvider: .singleton)
    do {
        let response = try await HTTPClientTransport(client: httpClient).send(
            CouchHTTPRequest(method: "GET", url: url, headers: [.init(name: "Authorization", value: "Basic " + Data(credentials.utf8).base64EncodedString())]),
            timeout: .seconds(20))
        try await httpClient.shutdown()
        #expect(response.status == 200)
        return response.body
    } catch {
        try? await httpClient.shutdown()
        throw error
    }
}

/// Answers every request with the same recorded body, handed over in the chunks given (the
/// bytes come from a real server; the chunks are where the network would have split them).
struct ReplayTransport: CouchTransport {
    var chunks: [[UInt8]]

    static func client(_ chunks: [[UInt8]]) throws -> CouchClient {
        try CouchClient(url: URL(string: "http://127.0.0.1:9")!, transport: ReplayTransport(chunks: chunks))
    }

    func send(_ request: CouchHTTPRequest, timeout: Duration) async throws -> CouchHTTPResponse {
        CouchHTTPResponse(status: 200, body: chunks.flatMap { $0 })
    }

    func stream(_ request: CouchHTTPRequest, timeout: Duration) async throws -> CouchHTTPStreamingResponse {
        var remaining = chunks[...]
        return CouchHTTPStreamingResponse(status: 200, body: CouchHTTPBody { remaining.popFirst() })
    }
}

/// Passes requests through, but cuts the first streamed `_changes?include_docs=true` response
/// after `cutAfter` bytes of its body, as a broken connection would.
struct CuttingTransport: CouchTransport {
    var base: any CouchTransport
    var cutAfter: Int
    var log: RequestLog

    func send(_ request: CouchHTTPRequest, timeout: Duration) async throws -> CouchHTTPResponse {
        await log.append(request.url, method: request.method)
        return try await base.send(request, timeout: timeout)
    }

    func stream(_ request: CouchHTTPRequest, timeout: Duration) async throws -> CouchHTTPStreamingResponse {
        await log.append(request.url, method: request.method)
        let response = try await base.stream(request, timeout: timeout)
        let streams = await log.urls.filter { $0.contains("include_docs=true") }.count
        guard request.url.contains("include_docs=true"), streams == 1 else { return response }
        var passed = 0
        let cutAfter = self.cutAfter
        let url = request.url
        return CouchHTTPStreamingResponse(status: response.status, headers: response.headers, body: CouchHTTPBody {
            guard passed < cutAfter else { throw CouchClientError(.network, url: url, underlying: "connection cut by the test") }
            guard let chunk = try await response.body.next() else { return nil }
            let part = chunk.prefix(cutAfter - passed)
            passed += part.count
            return Array(part)
        })
    }
}
