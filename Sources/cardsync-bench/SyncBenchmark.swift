#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// `cardsync-bench sync [--count 100000] [--binary PATH]`: `cardsync sync` as users run it,
/// through the release binary, against `cardsync serve` in a child process on loopback.
///
/// A generated book is imported (not timed), then each step is one `cardsync sync` child
/// process, timed from spawn to exit, with its own peak RSS (from `wait4`) and the HTTP request
/// count it reports in its `--format json` output:
/// - `sync-first-push`: the first sync of the whole book (every contact pushed);
/// - `sync-no-change`: a sync right after (nothing changed on either side);
/// - `sync-1pct-changed`: a sync after 1% of the files were edited by another program;
/// - `sync-first-pull`: the first sync of a new, empty book (every contact pulled and written);
/// - `import-same-cards`: `cardsync import` of the same cards into a new book (the local part
///   of a first pull);
/// - `raw-changes-include-docs`: one `GET /contacts/_changes?include_docs=true&style=all_docs`
///   over a plain socket, the whole body read (the server's part);
/// - `sync-first-pull-ratio`: the pull's time over the slower of those two (issue 19: ≤ 1.5).
enum SyncBenchmark {
    static func run(_ arguments: [String]) throws {
        let parsed = ChildBenchmarkOptions(arguments, mode: "sync")
        let count = parsed.count
        let binary = parsed.binary
        let work = NSTemporaryDirectory() + "cardsync-sync-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let input = work + "/book.vcf"
        _ = try StoreBenchmark.command(binary, ["generate", "--count", "\(count)", "--seed", "1", "--version", "mixed", "-o", input])
        let book = work + "/a"
        _ = try StoreBenchmark.command(binary, ["init", book])
        _ = try StoreBenchmark.command(binary, ["import", input, "--into", book])

        let password = "bench-\(getpid())"
        setenv("CARDSYNC_PASSWORD", password, 1)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: binary)
        server.arguments = ["serve", "--data", work + "/server", "--port", "0", "--admin", "bench:\(password)"]
        let out = Pipe()
        server.standardOutput = out
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer { server.terminate(); server.waitUntilExit() }
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { BenchmarkMain.fail("cardsync serve did not start") }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: "127.0.0.1:"), let port = Int(text[range.upperBound...].prefix { $0.isNumber }) else {
            BenchmarkMain.fail("cannot read the port from: \(text)")
        }
        let remote = "http://bench@127.0.0.1:\(port)/contacts"

        let first = try sync(binary, book, remote, work)
        report("sync-first-push", count, first)
        let idle = try sync(binary, book, remote, work)
        report("sync-no-change", count, idle)

        // 1% of the files edited by another program.
        let files = try FileManager.default.contentsOfDirectory(atPath: book).filter { $0.hasSuffix(".vcf") }.sorted()
        let step = max(1, files.count / max(1, count / 100))
        var edited = 0
        for file in stride(from: 0, to: files.count, by: step).map({ files[$0] }) {
            let path = book + "/" + file
            guard var content = try? String(contentsOfFile: path, encoding: .utf8),
                  let end = content.range(of: "END:VCARD", options: .backwards) else { continue }
            content.insert(contentsOf: "NOTE:edited for the benchmark\r\n", at: end.lowerBound)
            try content.write(toFile: path, atomically: true, encoding: .utf8)
            edited += 1
        }
        let changed = try sync(binary, book, remote, work)
        report("sync-1pct-changed", edited, changed)

        let empty = work + "/b"
        _ = try StoreBenchmark.command(binary, ["init", empty])
        let pull = try sync(binary, empty, remote, work)
        report("sync-first-pull", count, pull)

        // The floors of the first pull, measured in the same run right after it: an `import` of
        // the same cards into a new book, and the raw `_changes?include_docs=true` read (one
        // request, the whole body read, no parsing). Taken after the pull because a child
        // process starts with this process's peak RSS (Linux copies it at fork), and this
        // process holds the whole raw body.
        let imported = work + "/c"
        _ = try StoreBenchmark.command(binary, ["init", imported])
        let (importSeconds, importRSS) = try StoreBenchmark.command(binary, ["import", input, "--into", imported])
        print("{\"workload\":\"import-same-cards\",\"n\":\(count),\"seconds\":\(BenchmarkMain.format(importSeconds)),"
            + "\"peakRSSMiB\":\(BenchmarkMain.format(importRSS)),\"rssScope\":\"cardsync import process\"}")
        try? FileManager.default.removeItem(atPath: imported)
        let client = try SocketClient(port: port, authorization: "Basic " + Data("bench:\(password)".utf8).base64EncodedString())
        let rawStart = DispatchTime.now().uptimeNanoseconds
        let feed = try client.send("GET", "/contacts/_changes?include_docs=true&style=all_docs", body: nil)
        let rawSeconds = Double(DispatchTime.now().uptimeNanoseconds - rawStart) / 1e9
        guard feed.status == 200 else { BenchmarkMain.fail("_changes?include_docs=true: \(feed.status)") }
        let rows = CouchBenchmark.occurrences(of: "\"id\":\"contact:", in: feed.body)
        print("{\"workload\":\"raw-changes-include-docs\",\"n\":\(rows),\"bytes\":\(feed.body.count),"
            + "\"seconds\":\(BenchmarkMain.format(rawSeconds)),\"requests\":1}")
        // Issue 19's bound: the pull within 1.5x the slower of its two floors.
        let floor = max(rawSeconds, importSeconds)
        print("{\"workload\":\"sync-first-pull-ratio\",\"n\":\(pull.pulled),\"pullSeconds\":\(BenchmarkMain.format(pull.seconds)),"
            + "\"floorSeconds\":\(BenchmarkMain.format(floor)),\"ratio\":\(BenchmarkMain.format(pull.seconds / max(floor, 1e-9))),"
            + "\"target\":1.5,\"requests\":\(pull.requests)}")
        fflush(nil)
    }

    struct Figures {
        var seconds: Double
        var peakRSS: Double
        var requests: Int
        var pushed: Int
        var pulled: Int
    }

    static func sync(_ binary: String, _ book: String, _ remote: String, _ work: String) throws -> Figures {
        let output = work + "/sync-output.json"
        let arguments = [binary, "sync", book, "--remote", remote, "--format", "json"]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        guard posix_spawn(&pid, binary, &actions, nil, argv, environ) == 0 else { BenchmarkMain.fail("cannot start \(binary)") }
        var status: Int32 = 0
        var usage = rusage()
        _ = wait4(pid, &status, 0, &usage)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        guard status == 0, let data = FileManager.default.contents(atPath: output),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            BenchmarkMain.fail("cardsync sync exited with status \(status)")
        }
        let summary = json["summary"] as? [String: Any] ?? [:]
        func total(_ key: String) -> Int {
            let counts = summary[key] as? [String: Any] ?? [:]
            return ["added", "updated", "deleted"].reduce(0) { $0 + ((counts[$1] as? Int) ?? 0) }
        }
        return Figures(seconds: seconds, peakRSS: Double(usage.ru_maxrss) / 1024, requests: json["requests"] as? Int ?? -1,
                       pushed: total("pushed"), pulled: total("pulled"))
    }

    static func report(_ workload: String, _ n: Int, _ figures: Figures) {
        print("{\"workload\":\"\(workload)\",\"n\":\(n),\"seconds\":\(BenchmarkMain.format(figures.seconds)),"
            + "\"requests\":\(figures.requests),\"pushed\":\(figures.pushed),\"pulled\":\(figures.pulled),"
            + "\"peakRSSMiB\":\(BenchmarkMain.format(figures.peakRSS)),\"rssScope\":\"cardsync sync process\"}")
        fflush(nil)
    }
}
