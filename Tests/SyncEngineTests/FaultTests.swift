import ContactStore
import CouchClient
import FaultInjection
import Foundation
import SyncEngine
import Testing
import TestSupport

/// A bad network between the sync and the server: requests dropped before they arrive, answers
/// lost after the server applied the request, delays, 500/503/429 answers. Syncs retry, resume
/// and converge with nothing lost or duplicated.
@Suite struct FaultTests {
    @Test(arguments: Endpoint.all)
    func twoBooksConvergeThroughAFaultyNetwork(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("fault-a")
            let b = try makeBook("fault-b")
            try fill(a, count: 120)
            try fill(b, count: 80, prefix: "b")
            let faults = FaultInjector(seed: 20261122, rate: 0.2)
            let wrap: @Sendable (any CouchTransport) -> any CouchTransport = { FaultyTransport(base: $0, faults: faults) }
            let retry = RetryPolicy(maximumAttempts: 2, initialDelay: .milliseconds(1), maximumDelay: .milliseconds(5))
            /// Syncs until one run succeeds without problems (each failed run is an interrupted sync).
            func syncUntilClean(_ book: URL) async throws {
                for _ in 0..<60 {
                    if let report = try? await sync(book, remote, batchSize: 10, wrap: wrap, retry: retry), report.problems.isEmpty { return }
                }
                Issue.record("the sync of \(book.path) never completed through the faulty network")
            }
            for round in 0..<6 {
                try a.write(card("c\(round)", "Person C\(round)", note: "edit \(round) in A"), to: "c\(round).vcf")
                try b.write(card("b\(round + 10)", "Person B\(round + 10)", note: "edit \(round) in B"), to: "b\(round + 10).vcf")
                try? b.remove("b\(round + 40).vcf")
                try await syncUntilClean(a)
                try await syncUntilClean(b)
            }
            try await syncUntilClean(a)
            try await syncUntilClean(b)
            let expected = try await liveHashes(a)
            #expect(expected.count == 120 + 80 - 6)
            #expect(try await liveHashes(b) == expected)
            #expect(try await remoteHashes(remote) == expected)
            #expect(try a.read("c5.vcf").contains("edit 5 in A") && b.contactFiles.contains("c2.vcf"))
            let counts = await faults.counts
            // The seed gives every kind of fault more than once (the syncs make about a hundred requests).
            #expect(FaultInjector.Fault.allCases.allSatisfy { counts[$0.rawValue, default: 0] >= 2 }, "faults injected: \(counts)")
            print("fault suite: \(counts.values.reduce(0, +)) faults injected at rate 0.2: \(counts.sorted { $0.key < $1.key })")
        }
    }
}

/// The same through a real network hop: `FaultProxy` on loopback between the sync and
/// `cardsync serve`, with all nine of its faults (resets before and after forwarding, stalls,
/// slow and truncated bodies, 500/503/429, duplicated requests) at 20%.
@Suite struct FaultProxySyncTests {
    @Test func twoBooksConvergeThroughTheFaultProxyAtTwentyPercent() async throws {
        try await withRemote(.serve) { remote in
            let port = try #require(remote.serverURL.port)
            let configuration = FaultProxy.Configuration(upstreamPort: port, faultRate: 0.2, seed: 20261122, stallDuration: .seconds(1))
            try await withFaultProxy(configuration) { proxy in
                var proxied = remote
                proxied.serverURL = URL(string: "http://\(adminName):\(adminPassword)@127.0.0.1:\(proxy.port)")!
                let a = try makeBook("proxy-a")
                let b = try makeBook("proxy-b")
                try fill(a, count: 60)
                try fill(b, count: 40, prefix: "b")
                let retry = RetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(5), maximumDelay: .milliseconds(50),
                                        maximumRetryAfter: .seconds(1))
                func syncUntilClean(_ book: URL) async throws {
                    for _ in 0..<60 {
                        if let report = try? await sync(book, proxied, batchSize: 10, retry: retry), report.problems.isEmpty { return }
                    }
                    Issue.record("the sync of \(book.path) never completed through the fault proxy")
                }
                for round in 0..<5 {
                    try a.write(card("c\(round)", "Person C\(round)", note: "edit \(round) in A"), to: "c\(round).vcf")
                    try b.write(card("b\(round)", "Person B\(round)", note: "edit \(round) in B"), to: "b\(round).vcf")
                    try? a.remove("c\(round + 30).vcf")
                    try await syncUntilClean(a)
                    try await syncUntilClean(b)
                }
                try await syncUntilClean(a)
                let expected = try await liveHashes(a)
                #expect(expected.count == 60 + 40 - 5)
                #expect(try await liveHashes(b) == expected)
                #expect(try await remoteHashes(remote) == expected)
                let statistics = proxy.statistics
                #expect(statistics.totalFaults > 10)
                print("fault proxy sync: \(statistics.requests) requests, \(statistics.totalFaults) faults at rate 0.2: "
                      + statistics.faults.map { "\($0.key.rawValue) \($0.value)" }.sorted().joined(separator: ", "))
            }
        }
    }
}

/// Decides, from a seed, which requests fail and how.
actor FaultInjector {
    enum Fault: String, CaseIterable, Sendable { case dropBefore, lostAnswer, serverError, unavailable, tooMany, delay }
    private var state: UInt64
    private let rate: Double
    private(set) var counts: [String: Int] = [:]

    init(seed: UInt64, rate: Double) {
        state = seed
        self.rate = rate
    }

    private func next() -> Double {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Double(state >> 11) / Double(1 << 53)
    }

    func draw() -> Fault? {
        guard next() < rate else { return nil }
        let fault = Fault.allCases[Int(next() * Double(Fault.allCases.count)) % Fault.allCases.count]
        counts[fault.rawValue, default: 0] += 1
        return fault
    }
}

struct InjectedNetworkError: Error {}

/// A transport that injects the injector's faults.
struct FaultyTransport: CouchTransport {
    var base: any CouchTransport
    var faults: FaultInjector

    func send(_ request: CouchHTTPRequest, timeout: Duration) async throws -> CouchHTTPResponse {
        switch await faults.draw() {
        case nil: return try await base.send(request, timeout: timeout)
        case .dropBefore: throw InjectedNetworkError()
        case .lostAnswer:
            _ = try await base.send(request, timeout: timeout)
            throw InjectedNetworkError()
        case .serverError: return CouchHTTPResponse(status: 500, body: Array(#"{"error":"unknown_error","reason":"injected"}"#.utf8))
        case .unavailable: return CouchHTTPResponse(status: 503, body: Array(#"{"error":"unavailable","reason":"injected"}"#.utf8))
        case .tooMany:
            return CouchHTTPResponse(status: 429, headers: [.init(name: "Retry-After", value: "0")],
                                     body: Array(#"{"error":"too_many_requests","reason":"injected"}"#.utf8))
        case .delay:
            try await Task.sleep(for: .milliseconds(30))
            return try await base.send(request, timeout: timeout)
        }
    }
}
