import AsyncHTTPClient
import ContactStore
import CouchClient
import CouchServer
import Foundation
import JSONText
import Logging
import SyncEngine
import Testing
import TestSupport

/// Where the suite syncs: `cardsync serve` started in-process on a free loopback port (always),
/// and the CouchDB named by `CARDSYNC_TEST_COUCHDB_URL` (admin credentials in the URL) when set.
enum Endpoint: Sendable, CustomTestStringConvertible {
    case serve
    case external(String)

    static let externalVariable = "CARDSYNC_TEST_COUCHDB_URL"

    /// Every endpoint available here. Says once, on standard error, when the external one is skipped.
    static let all: [Endpoint] = {
        if let url = ProcessInfo.processInfo.environment[externalVariable], !url.isEmpty { return [.serve, .external(url)] }
        FileHandle.standardError.write(Data("note: \(externalVariable) is not set: the sync suite runs against cardsync serve only\n".utf8))
        return [.serve]
    }()

    var testDescription: String {
        switch self {
        case .serve: "cardsync serve"
        case .external(let url): RemoteLocation.redacted(url)
        }
    }
}

let adminName = "admin"
let adminPassword = "sync-test-pa55"

/// One test's database and an admin client for it.
struct TestRemote: Sendable {
    /// The server, with the admin's credentials.
    var serverURL: URL
    /// The database name.
    var database: String
    /// An admin client (for arranging and inspecting the server side).
    var client: CouchClient

    var db: CouchDatabase { client.database(database) }
    /// The remote's name in the journal: the URL without credentials.
    var key: String {
        var components = URLComponents(url: serverURL, resolvingAgainstBaseURL: false)!
        components.user = nil
        components.password = nil
        return (components.string ?? "") + "/" + database
    }

    /// The live contact documents, by UID.
    func contactDocuments() async throws -> [String: JSONObject] {
        var result: [String: JSONObject] = [:]
        var since: CouchSequence? = nil
        while true {
            let page = try await db.changes(ChangesRequest(since: since, limit: 1000, includeDocuments: true))
            for change in page.results where !change.isDeleted {
                if let uid = ContactDocument.uid(fromDocumentID: change.id), let doc = change.document { result[uid] = doc }
            }
            since = page.lastSequence
            if page.results.count < 1000 { break }
        }
        return result
    }
}

/// Runs `body` with a fresh database on `endpoint` (deleted afterwards on an external server).
/// `maximumDocumentSize` applies to `cardsync serve` only.
func withRemote<Value: Sendable>(_ endpoint: Endpoint, maximumDocumentSize: Int = 8_000_000,
                                 _ body: @Sendable (TestRemote) async throws -> Value) async throws -> Value {
    switch endpoint {
    case .serve:
        let folder = try TestPaths.makeTemporaryDirectory("sync-serve")
        defer { try? FileManager.default.removeItem(at: folder) }
        var logger = Logger(label: "sync.test.server")
        logger.logLevel = .critical
        let server = try CouchServer(configuration: CouchServerConfiguration(
            dataDirectory: folder, port: 0, admin: .init(name: adminName, password: adminPassword),
            maximumDocumentSize: maximumDocumentSize, passwordIterations: 1000),
            logger: logger)
        let ports = PortBox()
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run { port in await ports.set(port) } }
            let port = await ports.value()
            let url = URL(string: "http://\(adminName):\(adminPassword)@127.0.0.1:\(port)")!
            do {
                let value = try await withAdminClient(url) { client in
                    try await body(TestRemote(serverURL: url, database: "contacts", client: client))
                }
                group.cancelAll()
                try? await group.waitForAll()
                return value
            } catch {
                group.cancelAll()
                try? await group.waitForAll()
                throw error
            }
        }
    case .external(let text):
        let url = URL(string: text)!
        let database = "cardsync_test_" + UUID().uuidString.lowercased().prefix(12)
        return try await withAdminClient(url) { client in
            do {
                let value = try await body(TestRemote(serverURL: url, database: database, client: client))
                try? await client.database(database).delete()
                return value
            } catch {
                try? await client.database(database).delete()
                throw error
            }
        }
    }
}

private func withAdminClient<Value: Sendable>(_ url: URL, _ body: (CouchClient) async throws -> Value) async throws -> Value {
    try await withCouchClient(url: url, configuration: .init(requestTimeout: .seconds(30), retry: RetryPolicy(maximumAttempts: 3))) { client in
        try await body(client)
    }
}

/// Syncs `book` with `remote` through the engine, over `transport` when given, the book opened
/// with `clock`; as `cardsync sync` runs it, the first requests go out while the book is opened
/// (``RemotePrefetch``) unless `prefetching` is false. `afterOpening` runs once the book is
/// open (its folder scanned) and before the engine starts: another program at work meanwhile.
@discardableResult
func sync(_ book: URL, _ remote: TestRemote, policy: ConflictPolicy = .newest, dryRun: Bool = false, force: Bool = false,
          dedupe: Bool = false, reset: Bool = false, batchSize: Int = 500, pullBatchSize: Int? = nil, changesPageSize: Int = 5000,
          maximumStreamedRowBytes: Int? = nil, feedDocumentLimit: Int? = nil, feedDocumentBytes: Int? = nil,
          wrap: (@Sendable (any CouchTransport) -> any CouchTransport)? = nil,
          retry: RetryPolicy = RetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(10)),
          clock: WallClock = .system, prefetching: Bool = true,
          progress: (@Sendable (SyncProgress) -> Void)? = nil,
          afterOpening: (@Sendable () throws -> Void)? = nil) async throws -> SyncReport {
    var options = SyncOptions(policy: policy, dryRun: dryRun, force: force, dedupe: dedupe, reset: reset, batchSize: batchSize,
                              pullBatchSize: pullBatchSize, changesPageSize: changesPageSize, progress: progress)
    if let maximumStreamedRowBytes { options.maximumStreamedRowBytes = maximumStreamedRowBytes }
    if let feedDocumentLimit { options.feedDocumentLimit = feedDocumentLimit }
    if let feedDocumentBytes { options.feedDocumentBytes = feedDocumentBytes }
    return try await withDatabase(remote, wrap: wrap, retry: retry) { database in
        func run(_ prefetch: RemotePrefetch?) async throws -> SyncReport {
            var opening = AddressBook.OpenOptions(clock: clock)
            if let prefetch { opening.indexOpened = { prefetch.bookOpened($0) } }
            return try await AddressBook.withOpen(at: book, options: opening) { opened in
                try afterOpening?()
                return try await SyncEngine(book: opened, database: database, remote: remote.key, options: options, prefetch: prefetch).sync()
            }
        }
        guard prefetching else { return try await run(nil) }
        return try await RemotePrefetch.withRequests(forBookAt: book, database: database, remote: remote.key, options: options) {
            try await run($0)
        }
    }
}

/// Runs `body` with `remote`'s database through a client of its own, over `transport` when given.
func withDatabase<Value: Sendable>(_ remote: TestRemote, wrap: (@Sendable (any CouchTransport) -> any CouchTransport)? = nil,
                                   retry: RetryPolicy = RetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(10)),
                                   _ body: (CouchDatabase) async throws -> Value) async throws -> Value {
    let httpClient = HTTPClient(eventLoopGroupProvider: .singleton)
    do {
        let base = HTTPClientTransport(client: httpClient)
        let transport = wrap?(base) ?? base
        let client = try CouchClient(url: remote.serverURL, transport: transport,
                                     configuration: .init(requestTimeout: .seconds(20), retry: retry))
        let value = try await body(client.database(remote.database))
        try await httpClient.shutdown()
        return value
    } catch {
        try? await httpClient.shutdown()
        throw error
    }
}

/// A new, empty address book in its own temporary folder.
func makeBook(_ label: String = "book") throws -> URL {
    let url = try TestPaths.makeTemporaryDirectory(label).appendingPathComponent("book")
    try AddressBook.create(at: url)
    return url
}

/// A small vCard 4.0 with CRLF line ends.
func card(_ uid: String?, _ name: String, email: String? = nil, note: String? = nil, rev: String? = nil) -> String {
    var lines = ["BEGIN:VCARD", "VERSION:4.0"]
    if let uid { lines.append("UID:\(uid)") }
    lines.append("FN:\(name)")
    if let email { lines.append("EMAIL:\(email)") }
    if let note { lines.append("NOTE:\(note)") }
    if let rev { lines.append("REV:\(rev)") }
    lines.append("END:VCARD")
    return lines.joined(separator: "\r\n") + "\r\n"
}

extension URL {
    func write(_ text: String, to name: String) throws {
        try Data(text.utf8).write(to: appendingPathComponent(name))
    }

    func read(_ name: String) throws -> String {
        try String(contentsOf: appendingPathComponent(name), encoding: .utf8)
    }

    func remove(_ name: String) throws {
        try FileManager.default.removeItem(at: appendingPathComponent(name))
    }

    /// The `.vcf` files of a folder, sorted.
    var contactFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".vcf") && !$0.hasPrefix(".") }.sorted()
    }

    /// The content of every contact file, by name.
    func contents() throws -> [String: String] {
        var result: [String: String] = [:]
        for file in contactFiles { result[file] = try read(file) }
        return result
    }
}

/// The live contacts of a book: UID → content hash (opening scans the folder first).
func liveHashes(_ book: URL) async throws -> [String: String] {
    try await AddressBook.withOpen(at: book) { opened in
        Dictionary(uniqueKeysWithValues: await opened.liveRecords().map { ($0.uid, $0.hash!.hexDigits) })
    }
}

/// The remote documents: UID → the content hash of the vCard text, as a pull reads it.
func remoteHashes(_ remote: TestRemote) async throws -> [String: String] {
    var result: [String: String] = [:]
    for (uid, document) in try await remote.contactDocuments() {
        result[uid] = try ContactDocument.decode(document).hash.hexDigits
    }
    return result
}

/// Fills a book with `count` contacts `c0`…, and returns their UIDs.
@discardableResult
func fill(_ book: URL, count: Int, prefix: String = "c") throws -> [String] {
    (0..<count).map { index in
        let uid = "\(prefix)\(index)"
        try? book.write(card(uid, "Person \(prefix.uppercased())\(index)", email: "p\(index)@example.com"), to: "\(uid).vcf")
        return uid
    }
}
