import ContactStore
import CouchClient
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
        var generator = SeededGenerator(seed: seed)
        var killed = 0
        // A run that finished before its kill halves the window the kill is drawn from, so that
        // a fast machine is still cut short in most runs.
        var window: UInt64 = 250
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
            let delay = Int(generator.next() % window)
            let outcome = try runKilled(["sync", a.path, "--remote", remoteURL, "--batch-size", "5"], afterMilliseconds: delay)
            if outcome == .killed { killed += 1 } else { window = max(8, window / 2) }
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

    @Test func syncKilledWhilePullingManyRemoteChangesLeavesTheFolderExactlyTheServers() async throws {
        let root = try TestPaths.makeTemporaryDirectory("kill-pull")
        let server = try ServeProcess(data: root.appendingPathComponent("server"))
        defer { server.stop() }
        let remoteURL = server.url + "/contacts"
        let a = root.appendingPathComponent("a")
        let b = root.appendingPathComponent("b")
        try AddressBook.create(at: a)
        try AddressBook.create(at: b)
        try fill(a, count: 300)
        #expect(try CLIRunner.run(["sync", a.path, "--remote", remoteURL]).status == 0)
        #expect(try CLIRunner.run(["sync", b.path, "--remote", remoteURL]).status == 0)
        let seed = ProcessInfo.processInfo.environment["CARDSYNC_KILL_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64.max)
        var generator = SeededGenerator(seed: seed)
        var killed = 0
        var killedWhilePulling = 0
        var rounds = 0
        // The kill comes a random moment after the pull's first journal write, within `window`
        // ms; a round that finished first halves the window, so that a fast machine is still cut
        // short while pulling. Rounds go on until six were, twenty at most.
        var window: UInt64 = 150
        for round in 0..<20 where killedWhilePulling < 6 {
            rounds += 1
            // The other book adds, edits and deletes many contacts and pushes them all.
            for index in 0..<40 { try a.write(card("r\(round)n\(index)", "Round \(round) New \(index)"), to: "r\(round)n\(index).vcf") }
            for index in 0..<60 {
                let uid = "c\(Int(generator.next() % 300))"
                if FileManager.default.fileExists(atPath: a.appendingPathComponent("\(uid).vcf").path) {
                    try a.write(card(uid, "Person \(uid)", note: "round \(round) edit \(index)"), to: "\(uid).vcf")
                }
            }
            for _ in 0..<15 {
                let victim = a.contactFiles[Int(generator.next() % UInt64(a.contactFiles.count))]
                try a.remove(victim)
            }
            let pushed = try CLIRunner.run(["sync", a.path, "--remote", remoteURL])
            #expect(pushed.status == 0, "\(pushed.standardError)")
            // This book pulls them, killed at a random moment once the first batch is applied.
            let before = try b.contents()
            let delay = Int(generator.next() % window)
            var cutShortWhilePulling = false
            if try runKilled(["sync", b.path, "--remote", remoteURL, "--batch-size", "5"],
                             afterGrowthOf: b.appendingPathComponent(".cardsync/journal.jsonl"), plusMilliseconds: delay) == .killed {
                killed += 1
                // Killed after the folder took some of the changes: cut short while pulling.
                cutShortWhilePulling = try b.contents() != before
                if cutShortWhilePulling { killedWhilePulling += 1 }
            }
            if !cutShortWhilePulling { window = max(4, window / 2) }
            let check = try CLIRunner.run(["check", b.path])
            #expect(check.status == 0, "round \(round), seed \(seed): \(check.standardOutput)\(check.standardError)")
        }
        let final = try CLIRunner.run(["sync", b.path, "--remote", remoteURL])
        #expect(final.status == 0, "\(final.standardError)")
        // The folder holds exactly the server's cards, byte for byte: none lost, none twice.
        let documents = try await withCouchClient(url: URL(string: server.url)!) { client in
            try await TestRemote(serverURL: URL(string: server.url)!, database: "contacts", client: client).contactDocuments()
        }
        let serverCards = documents.values.compactMap { $0["vcard"]?.stringValue }.sorted()
        #expect(serverCards.count == documents.count)
        #expect(try b.contents().values.sorted() == serverCards, "seed \(seed)")
        #expect(try await liveHashes(b) == (try await liveHashes(a)), "seed \(seed)")
        let again = try CLIRunner.run(["sync", b.path, "--remote", remoteURL])
        #expect(again.status == 0 && again.standardOutput.contains("pulled: 0 added, 0 updated, 0 deleted")
                && again.standardOutput.contains("pushed: 0 added, 0 updated, 0 deleted"), "\(again.standardOutput)")
        print("kill -9 during pull (seed \(seed)): \(killed) of \(rounds) runs killed, \(killedWhilePulling) of them while pulling; "
              + "converged with \(serverCards.count) contacts")
        #expect(killedWhilePulling >= 5, "most runs must be cut short while pulling for the test to mean something (seed \(seed))")
    }

    /// What a pull killed after moving a pulled version into the folder and before recording it
    /// in the journal leaves behind (the pull writes the folder first): the file holds the
    /// server's version, the journal the one before. The next run must not take that file for
    /// an edit made in the folder: when the other side then deletes the contact, an edit would
    /// win over the deletion and bring the contact back on the server.
    ///
    /// Found by `syncKilledWhilePullingManyRemoteChangesLeavesTheFolderExactlyTheServers` (2 of 25
    /// runs on 2026-11-26: a deleted contact came back). A pull killed after moving the server's
    /// version into the folder but before journaling it left a file the next scan took for an
    /// edit made in the folder, and that "edit" then won over the other side's deletion. The
    /// kill is placed exactly there (`CARDSYNC_CRASH_AT`); the next opening records the version
    /// as pulled, so the deletion reaches this book and nothing comes back.
    @Test func aPullKilledBetweenTheFolderAndTheJournalIsRecordedAsPulledNotAsAnEdit() async throws {
        let books = try KilledPull("kill-pull-unrecorded", alsoWriting: card("y", "Person Y"))
        defer { books.server.stop() }
        #expect(try books.b.read(books.file).contains("NOTE:second"), "the server's second version is in b's file")
        #expect(!(try String(contentsOf: books.b.appendingPathComponent(".cardsync/journal.jsonl"), encoding: .utf8)).contains("second"),
                "and not in b's journal")
        let pending = try String(contentsOf: books.b.appendingPathComponent(".cardsync/pull-apply.jsonl"), encoding: .utf8)
        #expect(pending.contains("\"uid\":\"x\""), "the pending lines name the pulled version")
        #expect(!pending.contains("second"), "without its text, which is the file itself")
        // The other side edits the contact again, then deletes it, before b syncs.
        try books.a.write(card("x", "Person X", note: "third"), to: "x.vcf")
        #expect(try books.sync(books.a).status == 0)
        try books.a.remove("x.vcf")
        #expect(try books.sync(books.a).status == 0)
        let resumed = try books.sync(books.b)
        #expect(resumed.status == 0, "\(resumed.standardError)")
        #expect(resumed.standardError.contains("recorded 1 change a sync had made in the folder before it was interrupted"), "\(resumed.standardError)")
        #expect(try books.sync(books.a).status == 0)
        #expect(!books.b.contactFiles.contains(books.file), "the contact the other side deleted is deleted in b")
        #expect(!books.a.contactFiles.contains("x.vcf"), "and does not come back to a")
        let journal = try String(contentsOf: books.b.appendingPathComponent(".cardsync/journal.jsonl"), encoding: .utf8)
        #expect(journal.contains("NOTE:second"), "b's journal keeps the pulled version's text, read back from its file")
        #expect(!FileManager.default.fileExists(atPath: books.b.appendingPathComponent(".cardsync/pull-apply.jsonl").path))
    }

    /// The same kill, then the user edits the file before the next run: the edit is the user's,
    /// kept and pushed; the server's version stays on the server's side (the checkpoint did not
    /// move past it), and nothing is lost on either side.
    @Test func anEditMadeAfterAKilledPullIsKeptAsTheUsersEdit() async throws {
        let books = try KilledPull("kill-pull-then-edit")
        defer { books.server.stop() }
        try books.b.write(card("x", "Person X", note: "mine, typed after the crash"), to: books.file)
        let resumed = try books.sync(books.b)
        #expect(resumed.status == 0, "\(resumed.standardError)")
        #expect(!resumed.standardError.contains("recorded 1 change"))
        #expect(try books.b.read(books.file).contains("NOTE:mine, typed after the crash"), "the user's edit is kept in the folder")
        #expect(try books.sync(books.a).status == 0)
        #expect(try books.a.read("x.vcf").contains("NOTE:mine, typed after the crash"), "and reaches the other side")
        let journal = try String(contentsOf: books.b.appendingPathComponent(".cardsync/journal.jsonl"), encoding: .utf8)
        #expect(journal.contains("NOTE:mine, typed after the crash"), "b's journal keeps the user's version")
        #expect(try String(contentsOf: books.a.appendingPathComponent(".cardsync/journal.jsonl"), encoding: .utf8).contains("NOTE:second"),
                "and the server's second version is kept where it was made")
    }

    /// Books a and b synced through a new `cardsync serve` holding contact x; then x's second
    /// version synced from a, and pulled by b with a kill placed after the pull's files moved
    /// into place and before its journal lines were written.
    struct KilledPull {
        let server: ServeProcess
        let a: URL
        let b: URL
        /// b's file of contact x.
        let file: String

        init(_ label: String, alsoWriting other: String? = nil) throws {
            let root = try TestPaths.makeTemporaryDirectory(label)
            server = try ServeProcess(data: root.appendingPathComponent("server"))
            a = root.appendingPathComponent("a")
            b = root.appendingPathComponent("b")
            try AddressBook.create(at: a)
            try AddressBook.create(at: b)
            try a.write(card("x", "Person X", note: "first"), to: "x.vcf")
            if let other { try a.write(other, to: "other.vcf") }
            #expect(try CLIRunner.run(["sync", a.path, "--remote", server.url + "/contacts"]).status == 0)
            #expect(try CLIRunner.run(["sync", b.path, "--remote", server.url + "/contacts"]).status == 0)
            let b = b
            file = try #require(b.contactFiles.first { try b.read($0).contains("UID:x") })
            try a.write(card("x", "Person X", note: "second"), to: "x.vcf")
            #expect(try CLIRunner.run(["sync", a.path, "--remote", server.url + "/contacts"]).status == 0)
            let killed = try CLIRunner.run(["sync", b.path, "--remote", server.url + "/contacts"],
                                           environment: ["CARDSYNC_CRASH_AT": "pull-applied-to-folder"])
            #expect(killed.status != 0, "the pull was killed where asked")
        }

        func sync(_ book: URL) throws -> CLIRunner.Result {
            try CLIRunner.run(["sync", book.path, "--remote", server.url + "/contacts"])
        }
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
        _ = try await liveHashes(a)  // the folder's contacts recorded, so the journal grows next when pushed ones are
        let journal = a.appendingPathComponent(".cardsync/journal.jsonl")
        let initial = try Data(contentsOf: journal).count
        func recordsAPush() -> Bool {
            guard let handle = try? FileHandle(forReadingFrom: journal) else { return false }
            defer { try? handle.close() }
            try? handle.seek(toOffset: UInt64(initial))
            let added = (try? handle.readToEnd()) ?? Data()
            return String(decoding: added, as: UTF8.self).contains("\"op\":\"sync\"")
        }
        let sync = try Process.launch(CLIRunner.executable, ["sync", a.path, "--remote", remoteURL, "--batch-size", "10", "--attempts", "2"])
        // Stop the server as soon as the first pushed batch is recorded, well before the last.
        while sync.isRunning && !recordsAPush() { usleep(1_000) }
        server.kill()
        sync.waitUntilExit()
        #expect(sync.terminationStatus == 69, "an interrupted sync says the remote is unavailable (exit \(sync.terminationStatus))")
        server = try ServeProcess(data: data, port: port)
        defer { server.stop() }
        let arrived = try await withCouchClient(url: URL(string: server.url)!) { client in
            try await client.database("contacts").info().documentCount
        }
        #expect((1..<1500).contains(arrived), "the server must stop mid-sync, not after it (\(arrived) arrived)")
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

    /// Runs `cardsync` and kill -9s it `milliseconds` after `file` first grew (the sync recorded
    /// something), unless it finished first; gives up waiting for growth after 60 s.
    func runKilled(_ arguments: [String], afterGrowthOf file: URL, plusMilliseconds milliseconds: Int) throws -> Outcome {
        func size() -> Int { ((try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int) ?? 0 }
        let initial = size()
        let process = try Process.launch(CLIRunner.executable, arguments)
        let patience = Date().addingTimeInterval(60)
        while process.isRunning && size() == initial && Date() < patience { usleep(1_000) }
        let deadline = Date().addingTimeInterval(Double(milliseconds) / 1000)
        while process.isRunning && Date() < deadline { usleep(1_000) }
        guard process.isRunning else { return .finished }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return .killed
    }

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

    init(data: URL, port requested: Int = 0, admin: String? = "admin:kill-test", extraArguments: [String] = []) throws {
        let process = Process()
        process.executableURL = CLIRunner.executable
        process.arguments = ["serve", "--data", data.path, "--port", String(requested)] + (admin.map { ["--admin", $0] } ?? [])
            + extraArguments
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
