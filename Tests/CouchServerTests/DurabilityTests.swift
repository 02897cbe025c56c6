@testable import CouchServer
import Foundation
import JSONText
import HummingbirdTesting
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A server in a child process: `cardsync serve` when the built binary has the command,
/// else this test bundle's ``ChildProcessServer`` entry point.
final class ChildServer: Sendable {
    let process: Process
    let port: Int

    /// Starts the server over `data`, its output in `log`, with `extraEnvironment` added to this
    /// process's environment.
    init(data: URL, log: URL, extraEnvironment: [String: String] = [:]) throws {
        let process = Process()
        var environment = ProcessInfo.processInfo.environment.merging(extraEnvironment) { _, extra in extra }
        if let cardsync = Self.cardsyncWithServe {
            process.executableURL = cardsync
            process.arguments = ["serve", "--data", data.path, "--port", "0"]
        } else {
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            process.arguments = ["--testing-library", "swift-testing", "--filter", "servesUntilKilled"]
            environment[ChildProcessServer.dataVariable] = data.path
        }
        process.environment = environment
        try #require(FileManager.default.createFile(atPath: log.path, contents: nil))
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        var port: Int?
        for _ in 0..<2400 {  // up to 120 s: a sanitized build on a loaded machine starts slowly
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on http://127.0.0.1:") {
                port = Int(text[range.upperBound...].prefix { $0.isNumber })
                break
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        guard let port else {
            process.terminate()
            throw CouchError(.storageFailure, reason: "the child server did not start")
        }
        self.port = port
    }

    /// `kill -9`.
    func kill() {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The built `cardsync` when it knows `serve`.
    static let cardsyncWithServe: URL? = {
        let executable = CLIRunner.executable
        guard FileManager.default.isExecutableFile(atPath: executable.path),
              let result = try? CLIRunner.run(["serve", "--help"]), result.status == 0,
              result.standardOutput.contains("--data")
        else { return nil }
        return executable
    }()
}

@Suite struct Durability {
    /// How many times the server is killed (the issue asks for 20; CI may raise it).
    static let rounds = Int(ProcessInfo.processInfo.environment["COUCHSERVER_KILL_ROUNDS"] ?? "") ?? 20
    /// How long the check after a restart may wait for a byte. HummingbirdTesting's default of 15 s
    /// was once exceeded under AddressSanitizer with every suite running beside this one (the test
    /// passes in 23 s alone there).
    static let verificationTimeout = Duration.seconds(180)

    @Test func killDashNineNeverLosesAnAcknowledgedWrite() async throws {
        let folder = try TestPaths.makeTemporaryDirectory("durability")
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("data")
        var acknowledged: [String] = []
        var generator = SystemRandomNumberGenerator()
        for round in 0...Self.rounds {
            let server = try ChildServer(data: data, log: folder.appendingPathComponent("child-\(round).log"))
            let expected = acknowledged
            // The check reads what is stored, however long a loaded machine (every suite at once
            // under a sanitizer) makes it take: a read timeout here would say nothing about durability.
            let verified = try await TestClient.withClient(host: "127.0.0.1", port: server.port,
                                                           configuration: .init(timeout: Self.verificationTimeout)) { raw in
                let client = CouchTestClient(raw, port: server.port)
                if round == 0 { _ = try await client.request(.put, "/db", credentials: .none) }
                // Everything acknowledged before the last kill is there.
                let keys: [JSONValue] = expected.map(JSONValue.string)
                let check = try await client.request(.post, "/db/_all_docs", json: .obj(["keys": .array(keys)]), credentials: .none)
                let missing = (check.json?["rows"]?.arrayValue ?? []).filter { $0["error"] != nil || $0["value"]?["deleted"] != nil }
                return (check.json?["rows"]?.arrayValue?.count ?? -1, missing.count)
            }
            #expect(verified.0 == acknowledged.count, "round \(round)")
            #expect(verified.1 == 0, "round \(round): \(verified.1) acknowledged documents missing")
            if round == Self.rounds {
                server.kill()
                break
            }
            // Stream batches until the server is killed at a random moment.
            let killAfter = Duration.milliseconds(Int.random(in: 30...250, using: &generator))
            let port = server.port
            let written = await server.writeUntilKilled(after: killAfter) { raw, done in
                let client = CouchTestClient(raw, port: port)
                var batch = 0
                while true {
                    let ids = (0..<25).map { "r\(round)-b\(batch)-\($0)" }
                    let docs: [JSONValue] = ids.map { .obj(["_id": .string($0), "fn": .string("Person \($0)")]) }
                    let result = try await client.request(.post, "/db/_bulk_docs", json: .obj(["docs": .array(docs)]), credentials: .none)
                    guard result.status == 201 else { return }
                    let saved = (result.json?.arrayValue ?? []).compactMap { row in row["ok"] != nil ? row["id"]?.stringValue : nil }
                    await done.append(saved)
                    batch += 1
                }
            }
            acknowledged.append(contentsOf: written)
        }
        #expect(acknowledged.count > 0)
        // The folder opens in-process without damaged lines (a torn, unacknowledged tail may be set aside).
        let database = try Database.open(named: "db", in: data.appendingPathComponent("databases/db"))
        #expect(database.recovery.skippedLineOffsets.isEmpty)
        let stored = await database.documentCount
        #expect(stored >= acknowledged.count)
    }
}

extension ChildServer {
    /// Runs `write` against this server and kills it (`SIGKILL`) after `delay`, whichever ends
    /// first; answers the ids `write` recorded as acknowledged before the server died.
    /// - Parameter write: writes through a client of this server, appending each id the server
    ///   acknowledged to the given list; an error (the connection dying with the server) ends it.
    func writeUntilKilled(after delay: Duration,
                          _ write: @escaping @Sendable (TestClient, AcknowledgedIDs) async throws -> Void) async -> [String] {
        let port = self.port
        return await withTaskGroup(of: [String]?.self) { group in
            group.addTask {
                let done = AcknowledgedIDs()
                do {
                    try await TestClient.withClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(5))) { raw in
                        try await write(raw, done)
                    }
                } catch {}
                return await done.ids
            }
            group.addTask {
                try? await Task.sleep(for: delay)
                self.kill()
                return nil
            }
            var result: [String] = []
            for await value in group { if let value { result = value } }
            return result
        }
    }
}

/// Ids whose write was acknowledged, collected while the writer runs.
actor AcknowledgedIDs {
    private(set) var ids: [String] = []

    func append(_ more: [String]) {
        ids.append(contentsOf: more)
    }
}
