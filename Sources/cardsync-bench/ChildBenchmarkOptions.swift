import Foundation

/// The options of the modes that run the release `cardsync` binary as child processes
/// (`store`, `sync`, `diff`): `--count N`, `--runs N` and `--binary PATH` (default: the
/// `cardsync` beside this executable).
struct ChildBenchmarkOptions {
    var count = 100_000
    var runs = 3
    var binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("cardsync").path

    /// Parses `arguments`; an unknown option or a missing value ends the benchmark naming `mode`.
    init(_ arguments: [String], mode: String, count defaultCount: Int = 100_000, runs defaultRuns: Int = 3) {
        count = defaultCount
        runs = defaultRuns
        var rest = arguments
        while !rest.isEmpty {
            let flag = rest.removeFirst()
            guard let value = rest.first else { BenchmarkMain.fail("\(flag) needs a value") }
            rest.removeFirst()
            switch flag {
            case "--count": count = Int(value) ?? count
            case "--runs": runs = max(1, Int(value) ?? runs)
            case "--binary": binary = value
            default: BenchmarkMain.fail("\(mode): unknown option \(flag)")
            }
        }
    }
}
