import ContactStore
import CouchClient
import Foundation
import JSONText
import SyncEngine
import Testing
import TestSupport

/// Where a sync resumes: the checkpoint on both sides, reading `_changes` in pages, and what
/// `newest` compares when no card has a `REV`.
@Suite struct CheckpointTests {
    @Test(arguments: Endpoint.all)
    func theServerHoldsTheCheckpointAndLosingItOnlyRereadsTheFeedFromTheStart(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            try fill(a, count: 6)
            let first = try await sync(a, remote)
            let checkpoint = try #require(first.checkpoint)
            let bookID = try await AddressBook.withOpen(at: a) { await $0.identifier }
            let localID = "cardsync-" + bookID
            let stored = try #require(try await remote.db.localDocument(id: localID), "no _local/\(localID) after a sync")
            #expect(stored["last_seq"].map(sequenceText) == checkpoint)
            #expect(stored["book"] == .string(bookID))

            // With the checkpoints in agreement, the next sync reads the feed from there.
            let requests = RequestLog()
            #expect(!(try await sync(a, remote, wrap: { RecordingTransport(base: $0, log: requests) })).hasChanges)
            #expect(try await requests.changesSince() == [CouchSequence(stored["last_seq"]!).description])

            let contents = try a.contents()
            let remoteBefore = try await remoteHashes(remote)
            // The server's checkpoint deleted: the feed is read from the start, and nothing changes.
            let current = try #require(try await remote.db.localDocument(id: localID))
            try await remote.db.putLocalDocument(id: localID, ["_rev": current["_rev"]!, "_deleted": true])
            #expect(try await remote.db.localDocument(id: localID) == nil)
            let fromStart = RequestLog()
            let afterDeletion = try await sync(a, remote, wrap: { RecordingTransport(base: $0, log: fromStart) })
            #expect(try await fromStart.changesSince() == [nil])
            #expect(!afterDeletion.hasChanges && afterDeletion.problems.isEmpty && afterDeletion.matched == 0)
            #expect(try a.contents() == contents)
            #expect(try await remoteHashes(remote) == remoteBefore)
            #expect(try await remote.db.localDocument(id: localID) != nil, "the checkpoint is saved on the server again")

            // The server's checkpoint disagreeing with the journal's: the same.
            var disagreeing = try #require(try await remote.db.localDocument(id: localID))
            disagreeing["last_seq"] = .string("1-bogus")
            try await remote.db.putLocalDocument(id: localID, disagreeing)
            let disagreed = RequestLog()
            let afterDisagreement = try await sync(a, remote, wrap: { RecordingTransport(base: $0, log: disagreed) })
            #expect(try await disagreed.changesSince() == [nil])
            #expect(!afterDisagreement.hasChanges && afterDisagreement.problems.isEmpty)
            #expect(try a.contents() == contents)
            #expect(try await remoteHashes(remote) == remoteBefore)
        }
    }

    @Test(arguments: Endpoint.all)
    func savingTheNewPositionUsesTheRevisionOfTheCheckpointReadWhenTheSyncBegan(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            try fill(a, count: 3)
            try await sync(a, remote)
            let localID = "cardsync-" + (try await AddressBook.withOpen(at: a) { await $0.identifier })

            // A sync that moves the checkpoint reads the server's copy once, as it begins, and
            // saves the new position over the revision it read then.
            try a.write(card("c1", "Person C1", note: "edited"), to: "c1.vcf")
            let requests = RequestLog()
            let report = try await sync(a, remote, wrap: { RecordingTransport(base: $0, log: requests) })
            #expect(report.pushedCounts == (0, 1, 0) && report.problems.isEmpty)
            #expect(await requests.methods(containing: "/_local/") == ["GET", "PUT"])
            let saved = try #require(try await remote.db.localDocument(id: localID))
            #expect(saved["last_seq"].map(sequenceText) == report.checkpoint)

            // Another writer changes the checkpoint document while the sync pushes: the revision
            // read at the start is refused (409), so it is read again and the position saved.
            try a.write(card("c2", "Person C2", note: "edited"), to: "c2.vcf")
            let raced = RequestLog()
            let racedReport = try await sync(a, remote, wrap: {
                RewritingCheckpointDuringPush(base: RecordingTransport(base: $0, log: raced), database: remote.db, id: localID)
            })
            #expect(racedReport.pushedCounts == (0, 1, 0) && racedReport.problems.isEmpty)
            #expect(await raced.methods(containing: "/_local/") == ["GET", "PUT", "GET", "PUT"])
            let resaved = try #require(try await remote.db.localDocument(id: localID))
            #expect(resaved["last_seq"].map(sequenceText) == racedReport.checkpoint)
            #expect(racedReport.checkpoint != report.checkpoint)

            // The next sync finds both checkpoints in agreement and reads the feed from there.
            let next = RequestLog()
            #expect(!(try await sync(a, remote, wrap: { RecordingTransport(base: $0, log: next) })).hasChanges)
            #expect(try await next.changesSince() == [racedReport.checkpoint])
        }
    }

    @Test(arguments: Endpoint.all)
    func aChangesFeedReadInSeveralPagesBringsEveryChange(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            try fill(a, count: 11)
            try await sync(a, remote)
            try a.remove("c4.vcf")
            try a.write(card("c5", "Person C5", note: "edited"), to: "c5.vcf")
            try await sync(a, remote)
            // b holds a contact of its own, so its first sync lists the feed before fetching
            // (a blank book's first pull reads the documents' stream alone).
            let b = try makeBook("b")
            try b.write(card("own", "Own Contact"), to: "own.vcf")
            let requests = RequestLog()
            let report = try await sync(b, remote, changesPageSize: 3, wrap: { RecordingTransport(base: $0, log: requests) })
            let pages = try await requests.changesSince()
            #expect(pages.count >= 4, "\(pages)")
            #expect(pages.first == .some(nil) && pages.dropFirst().allSatisfy { $0 != nil }, "each page continues where the last ended")
            #expect(report.pulledCounts == (10, 0, 0) && report.pushedCounts == (1, 0, 0) && report.problems.isEmpty)
            try await sync(a, remote)
            #expect(try await liveHashes(b) == (try await liveHashes(a)))
            #expect(!(try await sync(b, remote, changesPageSize: 3)).hasChanges)
        }
    }

    @Test(arguments: Endpoint.all)
    func newestWithoutREVComparesWhenEachSideChanged(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            let b = try makeBook("b")
            try fill(a, count: 3)
            try await sync(a, remote)
            try await sync(b, remote)
            // C0: edited in B first (B's journal records it when B is next opened), then in A and pushed.
            try b.write(card("c0", "Person C0", note: "older edit in B"), to: "c0.vcf")
            _ = try await liveHashes(b)
            try await Task.sleep(for: .milliseconds(50))
            try a.write(card("c0", "Person C0", note: "newer edit in A"), to: "c0.vcf")
            // C1: edited in A and pushed first, then in B.
            try a.write(card("c1", "Person C1", note: "older edit in A"), to: "c1.vcf")
            try await sync(a, remote)
            try await Task.sleep(for: .milliseconds(50))
            try b.write(card("c1", "Person C1", note: "newer edit in B"), to: "c1.vcf")

            let report = try await sync(b, remote, policy: .newest)
            let byName = Dictionary(uniqueKeysWithValues: report.conflicts.map { ($0.name, $0) })
            #expect(byName.count == 2)
            #expect(byName["Person C0"]?.winner == .remote && byName["Person C0"]?.reason == "edited on the server more recently")
            #expect(byName["Person C1"]?.winner == .local && byName["Person C1"]?.reason == "edited here more recently")
            #expect(try b.read("c0.vcf").contains("newer edit in A"))
            #expect(try b.read("c1.vcf").contains("newer edit in B"))
            try await sync(a, remote)
            #expect(try await liveHashes(a) == (try await liveHashes(b)))
        }
    }
}

/// The text of a feed position as `SyncReport.checkpoint` gives it.
func sequenceText(_ value: JSONValue) -> String {
    if case .string(let text) = value { return text }
    return String(decoding: value.serialized(), as: UTF8.self)
}

/// The URLs a sync requested, in order.
actor RequestLog {
    private(set) var urls: [String] = []
    /// The method of each request in ``urls``.
    private(set) var methods: [String] = []
    func append(_ url: String, method: String) {
        urls.append(url)
        methods.append(method)
    }

    /// The methods of the requests whose URL contains `fragment`, in order.
    func methods(containing fragment: String) -> [String] {
        zip(methods, urls).filter { $0.1.contains(fragment) }.map(\.0)
    }

    /// The `since` of each `_changes` request (`nil` when it read from the start).
    func changesSince() throws -> [String?] {
        try urls.filter { $0.contains("/_changes") }.map { url in
            let components = try #require(URLComponents(string: url))
            return components.queryItems?.first { $0.name == "since" }?.value
        }
    }
}

/// A transport that logs every request's URL.
struct RecordingTransport: CouchTransport {
    var base: any CouchTransport
    var log: RequestLog
    func send(_ request: CouchHTTPRequest, timeout: Duration) async throws -> CouchHTTPResponse {
        await log.append(request.url, method: request.method)
        return try await base.send(request, timeout: timeout)
    }
}

/// A transport that, before passing on the first `_bulk_docs` request, saves the `_local`
/// document `id` again through `database` (another client), as a second writer would.
actor RewritingCheckpointDuringPush: CouchTransport {
    let base: any CouchTransport
    let database: CouchDatabase
    let id: String
    private var rewritten = false

    init(base: any CouchTransport, database: CouchDatabase, id: String) {
        self.base = base
        self.database = database
        self.id = id
    }

    func send(_ request: CouchHTTPRequest, timeout: Duration) async throws -> CouchHTTPResponse {
        if !rewritten, request.method == "POST", request.url.contains("/_bulk_docs") {
            rewritten = true
            var document = try #require(try await database.localDocument(id: id))
            document["rewrittenBy"] = .string("another writer")
            try await database.putLocalDocument(id: id, document)
        }
        return try await base.send(request, timeout: timeout)
    }
}

/// A database that does not exist and cannot be created with the credentials given.
@Suite struct MissingDatabaseTests {
    @Test func aMissingDatabaseTheCredentialsCannotCreateIsAClearErrorAndChangesNothing() async throws {
        try await withRemote(.serve) { remote in
            let a = try makeBook("a")
            try fill(a, count: 3)
            let before = try a.contents()
            // As CouchDB answers a member that is no admin: the database is missing, creating it is forbidden.
            do {
                try await sync(a, remote, wrap: { RefusingDatabaseCreation(base: $0) })
                Issue.record("expected the sync to fail")
            } catch let error as SyncError {
                #expect(error.code == .missingDatabase)
                #expect(error.message.contains("does not exist and these credentials cannot create it (403 forbidden)"), "\(error.message)")
                #expect(error.message.contains("create it on the server or give an admin's credentials"))
            }
            #expect(try a.contents() == before)
            await #expect(throws: CouchClientError.self) { _ = try await remote.db.info() }
            let journal = try String(contentsOf: a.appendingPathComponent(".cardsync/journal.jsonl"), encoding: .utf8)
            #expect(!journal.contains("\"op\":\"sync\"") && !journal.contains("\"op\":\"checkpoint\""))
        }
    }
}

/// A transport that answers `PUT /db` (create the database) with 403, as CouchDB does for a non-admin.
struct RefusingDatabaseCreation: CouchTransport {
    var base: any CouchTransport
    func send(_ request: CouchHTTPRequest, timeout: Duration) async throws -> CouchHTTPResponse {
        if request.method == "PUT", let path = URLComponents(string: request.url)?.path, path.split(separator: "/").count == 1 {
            return CouchHTTPResponse(status: 403, headers: [], body: Array(#"{"error":"forbidden","reason":"You are not a server admin."}"#.utf8))
        }
        return try await base.send(request, timeout: timeout)
    }
}
