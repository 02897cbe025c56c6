#if canImport(Glibc)
import Glibc
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `cardsync-bench web [--count 100000] [--runs 20] [--binary PATH]`: issue 15's figures through
/// the release `cardsync web` binary over a generated book (10% photos): the first list page,
/// a search and a save, each the server's own time from its `Server-Timing` header (what the
/// issue's targets are about) and the client's wall time; the start-up (the first, which reads
/// every card and writes the list cache, and a later one), the very first list page after
/// start, and the duplicates page (the first request, when the groups are ready, then kept).
enum WebBenchmark {
    static func run(_ arguments: [String]) throws {
        let parsed = ChildBenchmarkOptions(arguments, mode: "web", runs: 20)
        let count = parsed.count
        let binary = parsed.binary
        let work = NSTemporaryDirectory() + "cardsync-web-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let input = work + "/book.vcf"
        let book = work + "/book"
        _ = try StoreBenchmark.command(binary, ["generate", "--count", "\(count)", "--seed", "1", "--version", "mixed",
                                                "--photo-rate", "0.1", "-o", input])
        _ = try StoreBenchmark.command(binary, ["init", book])
        _ = try StoreBenchmark.command(binary, ["import", input, "--into", book])

        // The first start reads every card (and writes the list cache); the second is what a
        // user sees on every later start.
        do {
            let first = try startServer(binary, book)
            report("web-startup-first", count, [(first.seconds, first.seconds)])
            let cacheBytes = (try? FileManager.default.attributesOfItem(atPath: book + "/.cardsync/web-list.bin")[.size] as? Int) ?? nil
            print("{\"workload\":\"web-list-cache-size\",\"n\":\(count),\"megabytes\":\(String(format: "%.1f", Double(cacheBytes ?? 0) / 1e6))}")
            first.process.terminate()
            first.process.waitUntilExit()
        }
        let server = try startServer(binary, book)
        defer {
            server.process.terminate()
            server.process.waitUntilExit()
        }
        let base = "http://127.0.0.1:\(server.port)"
        report("web-startup", count, [(server.seconds, server.seconds)])
        report("web-first-list-page-cold", count, [try request(base + "/")])
        print("{\"workload\":\"web-server-memory-after-start\",\"n\":\(count),\"residentMiB\":\(residentMiB(server.process, "VmRSS"))}")
        report("web-first-list-page", count, try (0..<parsed.runs).map { _ in try request(base + "/") })
        let queries = ["smith", "garcía", "MÜLLER", "555 01", "example.org", "zzz-no-match"]
        report("web-search", count, try (0..<parsed.runs).map { run in
            try request(base + "/?q=" + queries[run % queries.count].addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        })
        // Saves: the first contact's title set to a new value each time, through the edit form.
        let list = try fetch(base + "/").body
        guard let uidRange = list.range(of: "/contact?uid=") else { BenchmarkMain.fail("no contact on the list page") }
        let uid = String(list[uidRange.upperBound...].prefix { $0 != "\"" })
        report("web-save", count, try (0..<parsed.runs).map { run in
            let edit = try fetch(base + "/contact/edit?uid=" + uid).body
            func hidden(_ name: String) -> String {
                guard let range = edit.range(of: "name=\"\(name)\" value=\"") else { return "" }
                return String(edit[range.upperBound...].prefix { $0 != "\"" })
            }
            let existing = titleField(edit, run)
            let fields = [("csrf", hidden("csrf")), ("uid", uid.removingPercentEncoding ?? uid), ("version", hidden("version"))]
                + (existing.isEmpty ? [("new.TITLE.0", "Benchmark title \(run)")] : existing)
            let body = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" }.joined(separator: "&")
            let answer = try request(base + "/contact/save", body: body)
            return answer
        })
        // Duplicates: the first request starts the search and answers "still computing" when it
        // takes longer than the server waits; later requests get the kept groups.
        report("web-duplicates-first-request", count, [try request(base + "/duplicates")])
        let searchStarted = DispatchTime.now().uptimeNanoseconds
        while try fetch(base + "/duplicates").body.contains("Still looking for duplicates") {
            if Double(DispatchTime.now().uptimeNanoseconds - searchStarted) / 1e9 > 600 { BenchmarkMain.fail("no duplicate groups after 10 minutes") }
            Thread.sleep(forTimeInterval: 0.2)
        }
        let ready = Double(DispatchTime.now().uptimeNanoseconds - searchStarted) / 1e9
        report("web-duplicates-ready-after", count, [(ready, ready)])
        report("web-duplicates", count, try (0..<parsed.runs).map { _ in try request(base + "/duplicates") })
        print("{\"workload\":\"web-server-memory\",\"n\":\(count),\"residentMiB\":\(residentMiB(server.process, "VmRSS")),"
            + "\"peakResidentMiB\":\(residentMiB(server.process, "VmHWM"))}")
        fflush(nil)
    }

    /// A memory figure of the server from `/proc/PID/status` (`VmRSS` now, `VmHWM` the peak), in MiB.
    private static func residentMiB(_ process: Process, _ field: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return -1 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1024) / 1024
    }

    /// Starts `cardsync web` on `book` and waits for its "listening" line: the process, its
    /// port and how long it took to start.
    private static func startServer(_ binary: String, _ book: String) throws -> (process: Process, port: Int, seconds: Double) {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: binary)
        server.arguments = ["web", book, "--port", "0"]
        let output = Pipe()
        server.standardOutput = output
        server.standardError = FileHandle.nullDevice
        let started = Date()
        try server.run()
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { BenchmarkMain.fail("cardsync web ended before listening") }
            line.append(chunk)
        }
        let seconds = Date().timeIntervalSince(started)
        guard let text = String(data: line, encoding: .utf8), let range = text.range(of: "http://127.0.0.1:"),
              let port = Int(text[range.upperBound...].prefix { $0.isNumber }) else { BenchmarkMain.fail("no port in \(line)") }
        return (server, port, seconds)
    }

    /// The existing title field (if the card has one) set to a new value.
    private static func titleField(_ edit: String, _ run: Int) -> [(String, String)] {
        guard let legend = edit.range(of: "<legend>Title</legend>"),
              let end = edit[legend.upperBound...].range(of: "</fieldset>"),
              let name = edit[legend.upperBound..<end.lowerBound].range(of: "name=\"p") else { return [] }
        let field = "p" + String(edit[name.upperBound...].prefix { $0 != "\"" })
        return [(field, "Benchmark title \(run)")]
    }

    /// Server time (from `Server-Timing: app;dur=MS`) and client wall time of one request.
    static func request(_ url: String, body: String? = nil) throws -> (Double, Double) {
        let start = DispatchTime.now().uptimeNanoseconds
        let answer = try fetch(url, body: body)
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        guard answer.status == 200 || answer.status == 303 else { BenchmarkMain.fail("\(url): status \(answer.status)") }
        guard let timing = answer.serverTiming else { BenchmarkMain.fail("\(url): no Server-Timing header") }
        return (timing / 1000, wall)
    }

    struct Answer {
        var status: Int
        var body: String
        var serverTiming: Double?
    }

    final class NoRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
            completionHandler(nil)
        }
    }

    static let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)

    static func fetch(_ url: String, body: String? = nil) throws -> Answer {
        var request = URLRequest(url: URL(string: url)!)
        if let body {
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.utf8)
        }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Answer?
        session.dataTask(with: request) { data, response, _ in
            if let response = response as? HTTPURLResponse {
                let timing = (response.value(forHTTPHeaderField: "Server-Timing")?.split(separator: "=").last).flatMap { Double($0) }
                result = Answer(status: response.statusCode, body: String(decoding: data ?? Data(), as: UTF8.self), serverTiming: timing)
            }
            done.signal()
        }.resume()
        done.wait()
        guard let result else { BenchmarkMain.fail("\(url): no answer") }
        return result
    }

    static func report(_ workload: String, _ n: Int, _ samples: [(Double, Double)]) {
        let server = samples.map(\.0).sorted()
        let wall = samples.map(\.1).sorted()
        print("{\"workload\":\"\(workload)\",\"n\":\(n),\"serverSeconds\":\(BenchmarkMain.format(server[server.count / 2])),"
            + "\"serverSecondsMax\":\(BenchmarkMain.format(server.last ?? 0)),"
            + "\"wallSeconds\":\(BenchmarkMain.format(wall[wall.count / 2])),\"runs\":\(samples.count)}")
        fflush(nil)
    }
}
