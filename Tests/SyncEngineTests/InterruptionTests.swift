import ContactStore
import Foundation
import SyncEngine
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `cardsync sync` killed (kill -9) at random moments, and the server stopped mid-sync: the
/// next sync resumes from durable state and converges, without duplicates and without losing an edit.
@Suite(.serialized) struct InterruptionTests {
    @Test func syncKilledAtRandomMomentsConvergesEveryTime() async throws {
        let root = try TestPaths.makeTemporaryDirectory("kill-sync")
        let server = try ServeProcess(data: root.appendingPathComponent("server"))
        defer { server.stop() }
        let remoteURL = server.url + "/contacts"
        let a = root.appendingPathComponent("a")
        try AddressBook.create(at: a)
        try fill(a, count: 400)
        let seed = ProcessInfo.processInfo.environment["CARDSYNC_KILL_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64.max)
        var generator = SplitMix(seed: seed)
        var killed = 0
        for round in 0..<20 {
            // Edits between interrupted syncs: they must all arrive.
            for index in 0..<25 {
                let uid = "c\(Int(generator.next() % 400))"
                if FileManager.default.fileExists(atPath: a.appendingPathComponent("\(uid).vcf").path) {
                    try a.write(card(uid, "Person \(uid)", note: "round \(round) edit \(index)"), to: "\(uid).vcf")
                }
            }
            try a.write(card("new\(round)", "New \(round)"), to: "new\(round).vcf")
            if round % 4 == 3 { try? a.remove("c\(round).vcf") }
            let delay = Int(generator.next() % 250)
            let outcome = try runKilled(["sync", a.path, "--remote", remoteURL, "--batch-size", "5"], afterMilliseconds: delay)
            if outcome == .killed { killed += 1 }
        }
        let final = try CLIRunner.run(["sync", a.path, "--remote", remoteURL, "--format", "json"])
        #expect(final.status == 0, "\(final.standardError)")
        let check = try CLIRunner.run(["check", a.path])
        #expect(check.status == 0, "\(check.standardOutput)\(check.standardError)")
        // A fresh book pulls exactly what A holds: nothing lost, nothing duplicated.
        let b = root.appendingPathComponent("b")
        try AddressBook.create(at: b)
        let pulled = try CLIRunner.run(["sync", b.path, "--remote", remoteURL])
        #expect(pulled.status == 0, "\(pulled.standardError)")
        let expected = try await liveHashes(a)
        #expect(expected.count == 400 + 20 - 5, "seed \(seed)")
        #expect(try await liveHashes(b) == expected)
        #expect(try a.read("new19.vcf") == (try b.read("new19.vcf")))
        // Every file in A is what the test last wrote (no edit lost, none reverted by a pull).
        for file in a.contactFiles where file.hasPrefix("c") {
            #expect(try b.read(file) == (try a.read(file)))
        }
        print("kill -9 during sync (seed \(seed)): \(killed) of 20 runs killed mid-sync; converged with \(expected.count) contacts")
        #expect(killed >= 10, "most runs must be cut short for the test to mean something")
    }

    @Test func serverStoppedMidSyncThenRestartedConverges() async throws {
        let root = try TestPaths.makeTemporaryDirectory("stop-server")
        let data = root.appendingPathComponent("server")
        var server = try ServeProcess(data: data)
        let port = server.port
        let remoteURL = server.url + "/contacts"
        let a = root.appendingPathComponent("a")
        try AddressBook.create(at: a)
        try fill(a, count: 1500)
        let sync = try Process.launch(CLIRunner.executable, ["sync", a.path, "--remote", remoteURL, "--batch-size", "10"])
        usleep(400_000)
        server.kill()
        sync.waitUntilExit()
        // Interrupted (unavailable) or, if it was quick, finished: either way nothing is lost.
        #expect([0, 69, 75].contains(sync.terminationStatus), "exit \(sync.terminationStatus)")
        server = try ServeProcess(data: data, port: port)
        defer { server.stop() }
        let again = try CLIRunner.run(["sync", a.path, "--remote", remoteURL])
        #expect(again.status == 0, "\(again.standardError)")
        let b = root.appendingPathComponent("b")
        try AddressBook.create(at: b)
        #expect(try CLIRunner.run(["sync", b.path, "--remote", remoteURL]).status == 0)
        let expected = try await liveHashes(a)
        #expect(expected.count == 1500)
        #expect(try await liveHashes(b) == expected)
    }

    enum Outcome { case finished, killed }

    /// Runs `cardsync` and kill -9s it after `milliseconds` unless it finished first.
    func runKilled(_ arguments: [String], afterMilliseconds milliseconds: Int) throws -> Outcome {
        let process = try Process.launch(CLIRunner.executable, arguments)
        let deadline = Date().addingTimeInterval(Double(milliseconds) / 1000)
        while process.isRunning && Date() < deadline { usleep(2_000) }
        guard process.isRunning else { return .finished }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return .killed
    }
}

/// `cardsync serve` in a child process on a loopback port.
struct ServeProcess {
    let process: Process
    let port: Int
    var url: String { "http://admin:kill-test@127.0.0.1:\(port)" }

    init(data: URL, port requested: Int = 0, admin: String? = "admin:kill-test") throws {
        let process = Process()
        process.executableURL = CLIRunner.executable
        process.arguments = ["serve", "--data", data.path, "--port", String(requested)] + (admin.map { ["--admin", $0] } ?? [])
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The first line says where it listens.
        var line = Data()
        let handle = out.fileHandleForReading
        while !line.contains(0x0A) {
            let chunk = handle.availableData
            if chunk.isEmpty { throw ServeFailed() }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: "127.0.0.1:"), let port = Int(text[range.upperBound...].prefix { $0.isNumber }) else { throw ServeFailed() }
        self.process = process
        self.port = port
    }

    func kill() {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    struct ServeFailed: Error {}
}

extension Process {
    static func launch(_ executable: URL, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }
}

/// A small seeded generator (SplitMix64).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}
