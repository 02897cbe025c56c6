#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// `cardsync-bench diff [--count 100000] [--runs 3] [--binary PATH]`: issue 7's workloads
/// through the release `cardsync` binary, each command a child process (wall time and its own
/// peak RSS):
/// - `diff`: `generate --diff-pair` with `--change-rate 0.002` (0.2% of the cards each removed,
///   edited, reformatted only, given a new UID, and added: 1% changes), then
///   `cardsync diff OLD NEW --format json`;
/// - `duplicates-file` and `duplicates-folder`: a book with 5% exact or reformatted duplicates and
///   5% near duplicates (plus 1.25% look-alikes), as one file and as a folder of one file per
///   card, then `cardsync duplicates PATH --format json`.
enum DiffBenchmark {
    static func run(_ arguments: [String]) throws {
        let parsed = ChildBenchmarkOptions(arguments, mode: "diff")
        let count = parsed.count
        let runs = parsed.runs
        let binary = parsed.binary
        let work = NSTemporaryDirectory() + "cardsync-diff-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }

        let prefix = work + "/pair"
        _ = try StoreBenchmark.command(binary, ["generate", "--diff-pair", prefix, "--count", "\(count)", "--seed", "1",
                                                "--version", "mixed", "--photo-rate", "0.1", "--change-rate", "0.002"])
        let pairBytes = size(prefix + ".old.vcf") + size(prefix + ".new.vcf")
        StoreBenchmark.report("diff", count, pairBytes, try (0..<runs).map { _ in
            try StoreBenchmark.command(binary, ["diff", prefix + ".old.vcf", prefix + ".new.vcf", "--format", "json"], allowedStatuses: [0, 1])
        })

        let book = work + "/book.vcf"
        let folder = work + "/book"
        let options = ["--count", "\(count)", "--seed", "1", "--version", "mixed", "--photo-rate", "0.1",
                       "--duplicate-rate", "0.05", "--near-duplicate-rate", "0.05"]
        _ = try StoreBenchmark.command(binary, ["generate"] + options + ["-o", book])
        _ = try StoreBenchmark.command(binary, ["generate"] + options + ["--dir", folder])
        StoreBenchmark.report("duplicates-file", count, size(book), try (0..<runs).map { _ in
            try StoreBenchmark.command(binary, ["duplicates", book, "--format", "json"])
        })
        StoreBenchmark.report("duplicates-folder", count, size(book), try (0..<runs).map { _ in
            try StoreBenchmark.command(binary, ["duplicates", folder, "--format", "json"])
        })
    }

    static func size(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
}
