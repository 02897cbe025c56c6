#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SampleGenerator
import VCardKit
import VCardXML

/// `cardsync-bench`: measures reading and writing vCards in a release build and prints one JSON
/// line per figure. Timing lives here, never in unit tests.
///
/// ```
/// swift run -c release cardsync-bench [--sizes 10000,100000] [--runs 5] [--work DIR]
/// cardsync-bench stream FILE      # internal: one streaming read + write 4.0, for peak RSS
/// cardsync-bench formats FILE RUNS # jCard and xCard write/read of FILE's cards, like the ez-vcard driver
/// cardsync-bench store [--count N]  # the address book through the cardsync binary: import, scan, check, log
/// cardsync-bench couch [--count N]  # cardsync serve: _bulk_docs and _changes
/// cardsync-bench diff [--count N]   # cardsync diff and duplicates on generated books
/// cardsync-bench hash [--count N]   # the content hash of every card of a generated book, one thread
/// cardsync-bench json [--count N]   # the JSON layer: a _changes feed, journal lines, jCard
/// cardsync-bench base64 [CORPUS]    # Base64 of the corpus photos: cardsync's and Foundation's
/// cardsync-bench web [--count N]    # cardsync web: first list page, a search, a save (server time)
/// ```
///
/// Workloads per size (generated with seed 1, mixed 3.0/4.0, 10% photos):
/// - `read`: the whole file, held in memory, parsed into cards (streaming parser, 1 MiB chunks);
/// - `write-same`, `write-3.0`, `write-4.0`: all parsed cards written out;
/// - `read+write-4.0`: streaming conversion of the file in memory;
/// - `stream-rss`: a child process streams the file from disk to 4.0 on disk; its peak RSS.
@main
struct BenchmarkMain {
    static func main() throws {
        defer { reportHighWaterMark() }
        var arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "store" {
            try StoreBenchmark.run(Array(arguments.dropFirst()))
            return
        }
        if arguments.first == "sync" {
            try SyncBenchmark.run(Array(arguments.dropFirst()))
            return
        }
        if arguments.first == "diff" {
            try DiffBenchmark.run(Array(arguments.dropFirst()))
            return
        }
        if arguments.first == "base64" {
            try Base64Benchmark.run(Array(arguments.dropFirst()))
            return
        }
        if arguments.first == "hash" {
            try HashBenchmark.run(Array(arguments.dropFirst()))
            return
        }
        if arguments.first == "json" {
            try JSONBenchmark.run(Array(arguments.dropFirst()))
            return
        }
        if arguments.first == "web" {
            try WebBenchmark.run(Array(arguments.dropFirst()))
            return
        }
        if arguments.first == "couch" {
            return CouchBenchmark.run(Array(arguments.dropFirst()))
        }
        if arguments.first == "stream", arguments.count >= 2 {
            try stream(path: arguments[1], output: arguments.count > 2 ? arguments[2] : "/dev/null")
            return
        }
        if arguments.first == "xcard-stream", arguments.count >= 2 {
            // Internal: streams an xCard file to vCard 4.0 on /dev/null, for the child's peak RSS.
            let writer = VCardWriter(target: .v4_0)
            var output: [UInt8] = []
            var written = 0
            let diagnostics = XCardReader.readFile(atPath: arguments[1]) { card in
                writer.write(card, into: &output)
                written += output.count
                output.removeAll(keepingCapacity: true)
            }
            if diagnostics.contains(where: { $0.severity == .error }) { fail("xcard-stream: \(diagnostics.prefix(3))") }
            return
        }
        if arguments.first == "formats", arguments.count >= 3 {
            try formats(path: arguments[1], runs: max(1, Int(arguments[2]) ?? 5))
            return
        }
        var sizes = [10_000, 100_000]
        var runs = 5
        var work: String?
        while !arguments.isEmpty {
            let flag = arguments.removeFirst()
            guard let value = arguments.first else { fail("\(flag) needs a value") }
            arguments.removeFirst()
            switch flag {
            case "--sizes": sizes = value.split(separator: ",").compactMap { Int($0) }
            case "--runs": runs = max(1, Int(value) ?? 5)
            case "--work": work = value
            default: fail("unknown option \(flag); usage: cardsync-bench [--sizes 10000,100000] [--runs 5] [--work DIR]")
            }
        }
        let directory = work ?? NSTemporaryDirectory() + "cardsync-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for size in sizes {
            try measure(size: size, runs: runs, directory: directory)
        }
        if work == nil { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// In a child started by ``childStream(arguments:)``: writes this process's peak RSS (kB).
    static func reportHighWaterMark() {
        guard let path = ProcessInfo.processInfo.environment["CARDSYNC_BENCH_HWM_FILE"],
              let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return }
        let kilobytes = line.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        try? kilobytes.write(toFile: path, atomically: true, encoding: .utf8)
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("cardsync-bench: \(message)\n".utf8))
        exit(64)
    }

    static func measure(size: Int, runs: Int, directory: String) throws {
        let generator = AddressBookGenerator(options: GeneratorOptions(count: size, seed: 1, version: .mixed, photoRate: 0.1))
        var input: [UInt8] = []
        generator.write(to: &input)
        let path = "\(directory)/mixed-\(size).vcf"
        try Data(input).write(to: URL(fileURLWithPath: path))
        let megabytes = Double(input.count) / 1e6

        var cards: [VCard] = []
        let read = median(runs) {
            cards = readAll(input)
        }
        report("read", size: size, bytes: input.count, seconds: read, megabytes: megabytes)
        for (name, target) in [("write-same", nil), ("write-3.0", VCardVersion.v3_0), ("write-4.0", .v4_0)] as [(String, VCardVersion?)] {
            var written = 0
            let seconds = median(runs) {
                var output: [UInt8] = []
                output.reserveCapacity(input.count + input.count / 4)
                let writer = VCardWriter(target: target)
                for card in cards { writer.write(card, into: &output) }
                written = output.count
            }
            report(name, size: size, bytes: written, seconds: seconds, megabytes: Double(written) / 1e6)
        }
        cards = []
        let convert = median(runs) {
            _ = convertStreaming(input)
        }
        report("read+write-4.0", size: size, bytes: input.count, seconds: convert, megabytes: megabytes)
        let (seconds, rss) = try childStream(arguments: ["stream", path, "/dev/null"])
        report("stream-rss", size: size, bytes: input.count, seconds: seconds, megabytes: megabytes, peakRSS: rss)

        // The same book as one xCard file, streamed back through libxml2 card by card.
        let xmlPath = "\(directory)/mixed-\(size).xml"
        guard let xmlFile = fopen(xmlPath, "wb") else { fail("cannot write \(xmlPath)") }
        let stream = XCardStreamWriter(indents: true)
        var xmlBytes = 0
        func put(_ bytes: [UInt8]) { xmlBytes += bytes.count; bytes.withUnsafeBytes { _ = fwrite($0.baseAddress, 1, $0.count, xmlFile) } }
        put(stream.begin())
        var parser = VCardParser(sourceName: path)
        var offset = 0
        while offset < input.count {
            let end = min(offset + (1 << 20), input.count)
            parser.feed(input[offset..<end])
            while let card = parser.nextCard() { put(stream.write(card)) }
            offset = end
        }
        parser.finish()
        while let card = parser.nextCard() { put(stream.write(card)) }
        put(stream.end())
        fclose(xmlFile)
        let (xmlSeconds, xmlRSS) = try childStream(arguments: ["xcard-stream", xmlPath])
        report("xcard-stream-rss", size: size, bytes: xmlBytes, seconds: xmlSeconds, megabytes: Double(xmlBytes) / 1e6, peakRSS: xmlRSS)
    }

    /// jCard and xCard throughput on the cards of a vCard file (the same file the ez-vcard
    /// driver reads): one JSON line with the median seconds of each workload.
    static func formats(path: String, runs: Int) throws {
        let input = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        let cards = readAll(input)
        let json = JCardWriter(unwrapsSingleCard: false).bytes(for: cards)
        let xml = XCardWriter().bytes(for: cards)
        var sink = 0
        let writeJSON = median(runs) { sink &+= JCardWriter(unwrapsSingleCard: false).bytes(for: cards).count }
        let readJSON = median(runs) { sink &+= (try? JCardReader.read(json))?.cards.count ?? 0 }
        let writeXML = median(runs) { sink &+= XCardWriter().bytes(for: cards).count }
        let readXML = median(runs) { sink &+= (try? XCardReader.read(xml))?.cards.count ?? 0 }
        print("{\"peer\":\"cardsync\",\"cards\":\(cards.count),\"jcardBytes\":\(json.count),\"xcardBytes\":\(xml.count),"
            + "\"writeJCard\":\(format(writeJSON)),\"readJCard\":\(format(readJSON)),\"writeXCard\":\(format(writeXML)),"
            + "\"readXCard\":\(format(readXML)),\"check\":\(sink % 7)}")
    }

    static func readAll(_ input: [UInt8]) -> [VCard] {
        var parser = VCardParser(sourceName: "bench")
        var cards: [VCard] = []
        var offset = 0
        while offset < input.count {
            let end = min(offset + (1 << 20), input.count)
            parser.feed(input[offset..<end])
            while let card = parser.nextCard() { cards.append(card) }
            offset = end
        }
        parser.finish()
        while let card = parser.nextCard() { cards.append(card) }
        return cards
    }

    static func convertStreaming(_ input: [UInt8]) -> Int {
        var parser = VCardParser(sourceName: "bench")
        let writer = VCardWriter(target: .v4_0)
        var output: [UInt8] = []
        output.reserveCapacity(1 << 21)
        var written = 0
        var offset = 0
        func drain() {
            while let card = parser.nextCard() { writer.write(card, into: &output) }
            written += output.count
            output.removeAll(keepingCapacity: true)
        }
        while offset < input.count {
            let end = min(offset + (1 << 20), input.count)
            parser.feed(input[offset..<end])
            drain()
            offset = end
        }
        parser.finish()
        drain()
        return written
    }

    /// Streams a file from disk to 4.0 in this process (the `stream` mode, run as a child).
    static func stream(path: String, output: String) throws {
        guard let input = fopen(path, "rb"), let out = fopen(output, "wb") else { fail("cannot open \(path) or \(output)") }
        defer { fclose(input); fclose(out) }
        var parser = VCardParser(sourceName: path)
        let writer = VCardWriter(target: .v4_0)
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        func drain() {
            while let card = parser.nextCard() { writer.write(card, into: &buffer) }
            buffer.withUnsafeBytes { _ = fwrite($0.baseAddress, 1, $0.count, out) }
            buffer.removeAll(keepingCapacity: true)
        }
        while true {
            let got = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, 1 << 20, input) }
            if got == 0 { break }
            parser.feed(chunk[0..<got])
            drain()
        }
        parser.finish()
        drain()
    }

    /// Runs this executable again with `arguments` and returns its wall time and its own peak
    /// RSS in MiB. The child reports its `VmHWM` itself (through `CARDSYNC_BENCH_HWM_FILE`):
    /// Linux starts a forked child's `ru_maxrss` at the parent's RSS, so `wait4` would report
    /// this (large) process's memory instead.
    static func childStream(arguments: [String]) throws -> (Double, Double) {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let hwmFile = NSTemporaryDirectory() + "cardsync-bench-hwm-\(getpid())"
        setenv("CARDSYNC_BENCH_HWM_FILE", hwmFile, 1)
        defer { unsetenv("CARDSYNC_BENCH_HWM_FILE"); unlink(hwmFile) }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        guard posix_spawn(&pid, executable, nil, nil, argv, environ) == 0 else { fail("cannot start \(executable)") }
        var status: Int32 = 0
        var usage = rusage()
        _ = wait4(pid, &status, 0, &usage)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if status != 0 { fail("child \(arguments) exited with status \(status)") }
        let reported = (try? String(contentsOfFile: hwmFile, encoding: .utf8)).flatMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        return (seconds, (reported ?? Double(usage.ru_maxrss)) / 1024)
    }

    static func median(_ runs: Int, _ body: () -> Void) -> Double {
        var times: [Double] = []
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            body()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        times.sort()
        return times[times.count / 2]
    }

    static func report(_ workload: String, size: Int, bytes: Int, seconds: Double, megabytes: Double, peakRSS: Double? = nil) {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let rss = peakRSS ?? Double(usage.ru_maxrss) / 1024
        let line = "{\"workload\":\"\(workload)\",\"n\":\(size),\"bytes\":\(bytes),\"seconds\":\(format(seconds)),"
            + "\"cardsPerSecond\":\(Int(Double(size) / seconds)),\"megabytesPerSecond\":\(format(megabytes / seconds)),"
            + "\"peakRSSMiB\":\(format(rss)),\"rssScope\":\"\(peakRSS == nil ? "process so far" : "child process")\"}"
        print(line)
        fflush(nil)
    }

    static func format(_ value: Double) -> String {
        String(format: "%.3f", value)
    }
}
