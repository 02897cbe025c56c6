#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// `cardsync-bench store [--count 100000] [--runs 3] [--binary PATH]`: the address book as users
/// run it, through the release `cardsync` binary: `generate` a book (10% exact and reformatted
/// duplicates, 10% photos), `init`, `import` it (wall time and the importing process's peak RSS),
/// then open + `scan` with no changes, `check`, and `log` over the whole journal. Each command
/// is a child process of this small one, so its peak RSS (from `wait4`) is its own.
enum StoreBenchmark {
    static func run(_ arguments: [String]) throws {
        let parsed = ChildBenchmarkOptions(arguments, mode: "store")
        let count = parsed.count
        let runs = parsed.runs
        let binary = parsed.binary
        let work = NSTemporaryDirectory() + "cardsync-store-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let input = work + "/book.vcf"
        _ = try command(binary, ["generate", "--count", "\(count)", "--seed", "1", "--version", "mixed",
                                 "--photo-rate", "0.1", "--duplicate-rate", "0.1", "-o", input])
        let inputBytes = (try? FileManager.default.attributesOfItem(atPath: input)[.size] as? Int) ?? 0

        var imports: [(Double, Double)] = []
        var book = ""
        for run in 0..<runs {
            book = work + "/book-\(run)"
            _ = try command(binary, ["init", book])
            imports.append(try command(binary, ["import", input, "--into", book]))
            if run + 1 < runs { try? FileManager.default.removeItem(atPath: book) }
        }
        report("store-import", count, inputBytes, imports)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: book).filter { $0.hasSuffix(".vcf") }.count) ?? 0
        report("store-scan-unchanged", files, 0, try (0..<runs).map { _ in try command(binary, ["scan", book]) })
        report("store-check", files, 0, try (0..<runs).map { _ in try command(binary, ["check", book]) })
        report("store-log-whole-journal", files, 0, try (0..<runs).map { _ in try command(binary, ["log", book, "--format", "json"]) })
    }

    /// Runs `binary arguments` with output to /dev/null; returns wall seconds and peak RSS (MiB).
    static func command(_ binary: String, _ arguments: [String], allowedStatuses: Set<Int32> = [0]) throws -> (Double, Double) {
        let argv = ([binary] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        guard posix_spawn(&pid, binary, &actions, nil, argv, environ) == 0 else { BenchmarkMain.fail("cannot start \(binary)") }
        var status: Int32 = 0
        var usage = rusage()
        _ = wait4(pid, &status, 0, &usage)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let exitStatus = (status >> 8) & 0xFF
        if status & 0x7F != 0 || !allowedStatuses.contains(exitStatus) { BenchmarkMain.fail("cardsync \(arguments.first ?? "") exited with status \(status)") }
        return (seconds, Double(usage.ru_maxrss) / 1024)
    }

    static func report(_ workload: String, _ n: Int, _ bytes: Int, _ samples: [(Double, Double)]) {
        let seconds = samples.map(\.0).sorted()[samples.count / 2]
        let rss = samples.map(\.1).max() ?? 0
        print("{\"workload\":\"\(workload)\",\"n\":\(n),\"bytes\":\(bytes),\"seconds\":\(BenchmarkMain.format(seconds)),"
            + "\"perSecond\":\(Int(Double(n) / max(seconds, 1e-9))),\"runs\":\(samples.count),"
            + "\"allSeconds\":[\(samples.map { BenchmarkMain.format($0.0) }.joined(separator: ","))],"
            + "\"peakRSSMiB\":\(BenchmarkMain.format(rss)),\"rssScope\":\"cardsync process\"}")
        fflush(nil)
    }
}
