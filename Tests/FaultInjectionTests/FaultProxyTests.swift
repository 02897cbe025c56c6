import CouchClient
import FaultInjection
import Foundation
import JSONText
import Testing

/// A client that fails at once, so each fault's effect is seen by the caller. The timeouts leave
/// room for a server slowed down by a sanitizer on a busy machine (700 ms was too short under
/// AddressSanitizer); stalls last longer than them.
private let noRetries = CouchClient.Configuration(requestTimeout: .seconds(3), retry: .none)

/// A client that fails at once but waits long: with no fault injected nothing stalls, and under
/// AddressSanitizer with the whole suite running in parallel one request took over 3 s.
private let patient = CouchClient.Configuration(requestTimeout: .seconds(60), retry: .none)

/// A client that retries quickly, as a sync would (short waits so the suite stays fast).
private let quickRetries = CouchClient.Configuration(
    requestTimeout: .seconds(3),
    retry: RetryPolicy(maximumAttempts: 12, initialDelay: .milliseconds(5), maximumDelay: .milliseconds(80),
                       maximumRetryAfter: .milliseconds(50))
)

@Suite("FaultProxy")
struct FaultProxyTests {
    @Test func refusesAnUpstreamOffTheLoopbackInterface() {
        #expect(throws: FaultProxyError.self) {
            _ = try FaultProxy.Configuration(upstream: "http://example.com:5984", faultRate: 0)
        }
        #expect(throws: FaultProxyError.self) {
            _ = try FaultProxy.Configuration(upstream: "https://127.0.0.1:6984", faultRate: 0)
        }
        #expect(throws: Never.self) {
            _ = try FaultProxy.Configuration(upstream: "http://localhost:5984/", faultRate: 0)
        }
    }

    @Test func forwardsEveryRequestUnchangedWhenTheFaultRateIsZero() async throws {
        try await withProxiedServer({ .init(upstreamPort: $0, faultRate: 0) }) { proxy, _ in
            try await withCouchClient(url: proxy.authenticatedURL, configuration: patient) { client in
                let database = client.database("plain")
                try await database.create(ignoringExisting: true)
                let saved = try await database.put(["_id": "alice", "name": "Alice Ávila"])
                let document = try await database.document(id: "alice")
                #expect(document["name"]?.stringValue == "Alice Ávila")
                #expect(document["_rev"]?.stringValue == saved.revision)
                let page = try await database.changes(ChangesRequest(includeDocuments: true))
                #expect(page.results.map(\.id) == ["alice"])
                #expect(try await database.info().documentCount == 1)
            }
            let statistics = proxy.statistics
            #expect(statistics.requests == 5)
            #expect(statistics.forwardedCleanly == 5)
            #expect(statistics.totalFaults == 0)
        }
    }

    /// With every request faulted by one kind, a `POST /db` (the server picks the id, so each
    /// arrival makes a new document) shows whether the request reached the server, how often,
    /// and what the client saw.
    @Test(arguments: FaultKind.allCases)
    func eachFaultKindDoesWhatItSays(kind: FaultKind) async throws {
        try await withProxiedServer({ .init(upstreamPort: $0, faultRate: 1, kinds: [kind], stallDuration: .seconds(4)) }) { proxy, direct in
            _ = try await withCouchClient(url: direct) { client in try await client.database("faults").create(ignoringExisting: true) }
            // Only a stall has to outlast the client's timeout; every other kind is judged by what
            // the client sees once the proxy is done, however slow a loaded CI machine makes that
            // (a duplicated request took over 3 s there under the full parallel suite).
            let outcome: Result<DocumentUpdate, CouchClientError> = try await withCouchClient(
                url: proxy.authenticatedURL, configuration: kind == .stall ? noRetries : patient
            ) { client in
                do {
                    return .success(try await client.database("faults").put(["name": "Bob"]))
                } catch let error as CouchClientError {
                    return .failure(error)
                }
            }
            let stored = try await withCouchClient(url: direct) { client in
                try await client.database("faults").info().documentCount
            }
            #expect(proxy.statistics.faults == [kind: 1])
            switch kind {
            case .resetBeforeForwarding, .stall:
                #expect(stored == 0)
                #expect(outcome.failureCode == .network || outcome.failureCode == .timeout)
            case .resetAfterForwarding, .truncatedResponse:
                #expect(stored == 1)
                #expect(outcome.failureCode == .network || outcome.failureCode == .timeout)
            case .slowBody:
                #expect(stored == 1)
                #expect(outcome.failureCode == nil)
            case .duplicatedRequest:
                #expect(stored == 2)
                #expect(outcome.failureCode == nil)
            case .internalServerError:
                #expect(stored == 0)
                #expect(outcome.failureStatus == 500)
            case .serviceUnavailable:
                #expect(stored == 0)
                #expect(outcome.failureStatus == 503)
            case .tooManyRequests:
                #expect(stored == 0)
                #expect(outcome.failureStatus == 429)
            }
        }
    }

    @Test func theSameSeedInjectsTheSameFaults() async throws {
        func faults(seed: UInt64) async throws -> [String] {
            try await withProxiedServer({ .init(upstreamPort: $0, faultRate: 0.5, kinds: [.internalServerError, .tooManyRequests],
                                                seed: seed) }) { proxy, _ in
                try await withCouchClient(url: proxy.authenticatedURL, configuration: noRetries) { client in
                    for _ in 0..<40 { _ = try? await client.serverInfo() }
                }
                return proxy.injectedFaults.map(\.description)
            }
        }
        let first = try await faults(seed: 99)
        #expect(first.count > 5)
        #expect(try await faults(seed: 99) == first)
        #expect(try await faults(seed: 100) != first)
    }

    @Test func writesThroughTwentyPercentFaultsLandExactlyOnce() async throws {
        let count = 120
        try await withProxiedServer({ .init(upstreamPort: $0, faultRate: 0.2, seed: 20, stallDuration: .milliseconds(3500)) }) { proxy, direct in
            _ = try await withCouchClient(url: direct) { client in try await client.database("contacts").create(ignoringExisting: true) }
            try await withCouchClient(url: proxy.authenticatedURL, configuration: quickRetries) { client in
                let database = client.database("contacts")
                for index in 0..<count {
                    try await database.writeOnce(["_id": .string("card-\(index)"), "n": .integer(index)], revision: nil)
                }
                // A second revision of each: an update whose first attempt may have landed.
                for index in 0..<count {
                    let current = try await database.document(id: "card-\(index)")
                    try await database.writeOnce(["_id": .string("card-\(index)"), "n": .integer(index), "edited": true],
                                                 revision: current["_rev"]?.stringValue)
                }
            }
            let statistics = proxy.statistics
            // One line for RELIABILITY.md's figures.
            let kinds = statistics.faults.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value)" }
            print("fault suite: \(statistics.requests) requests, \(statistics.totalFaults) faults (\(kinds.joined(separator: " ")))")
            #expect(statistics.totalFaults > count * 2 / 10, "faults: \(statistics.faults)")
            #expect(Set(statistics.faults.keys) == Set(FaultKind.allCases), "faults: \(statistics.faults)")

            try await withCouchClient(url: direct) { client in
                let database = client.database("contacts")
                #expect(try await database.info().documentCount == count)
                let rows = try await database.allDocuments(keys: (0..<count).map { "card-\($0)" }, includeDocuments: true)
                for (index, row) in rows.enumerated() {
                    #expect(row.document?["n"]?.intValue == index)
                    #expect(row.document?["edited"]?.boolValue == true)
                    #expect(row.revision?.hasPrefix("2-") == true, "card-\(index) is at \(row.revision ?? "none")")
                }
                let changes = try await database.changes(ChangesRequest(allRevisions: true))
                #expect(changes.results.count == count)
                #expect(changes.results.allSatisfy { $0.revisions.count == 1 }, "a write made a conflicting branch")
            }
        }
    }
}

extension CouchDatabase {
    /// Saves `fields` as the revision after `revision` (a new document when `nil`), as a sync
    /// must: retried until the outcome is known, and a conflict whose stored document already
    /// holds `fields` at the next generation counts as this write having landed earlier.
    func writeOnce(_ fields: JSONObject, revision: String?) async throws {
        let id = fields["_id"]!.stringValue!
        let generation = (revision.flatMap { Int($0.split(separator: "-")[0]) } ?? 0) + 1
        var document = fields
        if let revision { document["_rev"] = .string(revision) }
        for _ in 0..<20 {
            do {
                try await put(document)
                return
            } catch let error as CouchClientError where error.code == .conflict {
                guard let stored = try? await self.document(id: id) else { continue }
                let storedGeneration = stored["_rev"]?.stringValue.flatMap { Int($0.split(separator: "-")[0]) }
                var content = stored
                content["_rev"] = nil
                if storedGeneration == generation && content == fields { return }
                throw error
            } catch let error as CouchClientError where error.isTransient {
                continue
            }
        }
        throw CouchClientError(.network, reason: "no outcome after 20 rounds of retries", documentID: id)
    }
}

extension Result where Failure == CouchClientError {
    var failureCode: CouchClientError.Code? {
        if case .failure(let error) = self { error.code } else { nil }
    }

    var failureStatus: Int? {
        if case .failure(let error) = self { error.status } else { nil }
    }
}
