import ContactStore
import CouchClient
import Foundation
import SyncEngine
import Testing
import TestSupport

/// A sync costs what changed: with nothing to do it makes two requests and leaves the index
/// snapshot alone, and the sync after a push does not read its own writes back — unless
/// another client wrote in between, whose change is then not skipped.
@Suite struct IncrementalSyncTests {
    private func snapshotState(_ book: URL) throws -> (modified: Date, bytes: Data) {
        let url = book.appendingPathComponent(".cardsync/index.bin")
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return (try #require(attributes[.modificationDate] as? Date), try Data(contentsOf: url))
    }

    @Test(arguments: Endpoint.all)
    func aSyncWithNothingToDoMakesTwoRequestsAndLeavesTheIndexSnapshotAlone(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            try fill(a, count: 12)
            // Files older than two seconds: their stamps are trusted, so an unchanged file is not read again.
            try await Task.sleep(for: .milliseconds(2100))
            let push = try await sync(a, remote)
            #expect(push.pushed.count == 12)
            let before = try snapshotState(a)
            for _ in 0..<2 {
                let requests = RequestLog()
                let report = try await sync(a, remote, wrap: { RecordingTransport(base: $0, log: requests) })
                #expect(!report.hasChanges && report.problems.isEmpty && report.localCount == 12)
                let urls = await requests.urls
                #expect(urls.count <= 2, "\(urls)")
            }
            let after = try snapshotState(a)
            #expect(after.modified == before.modified && after.bytes == before.bytes, "a sync with nothing to do rewrote the index snapshot")
        }
    }

    @Test(arguments: Endpoint.all)
    func theSyncAfterAPushDoesNotReadItsOwnWritesBack(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            try fill(a, count: 30)
            let push = try await sync(a, remote, batchSize: 7)
            #expect(push.pushed.count == 30)
            // The checkpoint moved past the 30 writes the server acknowledged.
            let end = try await remote.db.info().updateSequence
            #expect(push.checkpoint == sequenceText(end.value))

            let requests = RequestLog()
            let next = try await sync(a, remote, wrap: { RecordingTransport(base: $0, log: requests) })
            #expect(!next.hasChanges && next.problems.isEmpty)
            let urls = await requests.urls
            #expect(!urls.contains { $0.contains("/_all_docs") }, "documents fetched again: \(urls)")
            #expect(try await requests.changesSince() == [CouchSequence(end.value).description])
            #expect(urls.count <= 2, "\(urls)")
        }
    }

    @Test(arguments: Endpoint.all)
    func aChangeAnotherClientMakesDuringThePushIsNotSkipped(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            try fill(a, count: 10)
            let b = try makeBook("b")
            try b.write(card("foreign", "Foreign Person"), to: "foreign.vcf")
            // While a pushes (before its first _bulk_docs reaches the server), b syncs its contact.
            let interleave = Interleaving { try await sync(b, remote) }
            let push = try await sync(a, remote, wrap: { InterleavingTransport(base: $0, interleaving: interleave) })
            #expect(await interleave.done)
            #expect(push.pushed.count == 10)

            let next = try await sync(a, remote)
            #expect(next.pulled.map(\.uid) == ["foreign"], "the change made during the push was skipped: \(next.pulled)")
            #expect(try a.contents()["foreign.vcf"] != nil)
            #expect(try await liveHashes(a) == (try await remoteHashes(remote)))
            #expect(!(try await sync(a, remote)).hasChanges)
        }
    }
}

/// Something to run once, just before the first `_bulk_docs` request.
actor Interleaving {
    private let action: @Sendable () async throws -> Void
    private(set) var done = false

    init(_ action: @escaping @Sendable () async throws -> Void) { self.action = action }

    func runOnce() async throws {
        guard !done else { return }
        done = true
        try await action()
    }
}

/// A transport that runs an ``Interleaving`` before forwarding the first `_bulk_docs` request.
struct InterleavingTransport: CouchTransport {
    var base: any CouchTransport
    var interleaving: Interleaving
    func send(_ request: CouchHTTPRequest, timeout: Duration) async throws -> CouchHTTPResponse {
        if request.method == "POST" && request.url.contains("/_bulk_docs") { try await interleaving.runOnce() }
        return try await base.send(request, timeout: timeout)
    }
}
