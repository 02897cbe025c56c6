#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `cardsync-bench couch`: the CouchDB-compatible endpoint as users run it.
///
/// ```
/// cardsync-bench couch [--count 100000] [--batch 500] [--runs 3] [--binary PATH] [--client socket|urlsession]
/// ```
///
/// Each run starts `cardsync serve --data <fresh temp folder> --port 0 --admin bench:<password>`
/// as a child process, waits for its `listening on http://127.0.0.1:PORT` line, and then, over
/// HTTP/1.1 with basic auth on 127.0.0.1 only:
/// - `couch-bulk_docs`: `PUT /{db}`, then `count` contact documents (Schemas/couch-contact.schema.json,
///   ~300-byte vCard) in `POST /{db}/_bulk_docs` batches of `batch`; the request bodies are
///   built before the clock starts;
/// - `couch-changes`: one `GET /{db}/_changes?since=0` (normal feed) reading every change;
/// - `couch-changes-paged`: `GET /{db}/_changes?since=<last_seq>&limit=1000` until a page is empty.
///
/// Then the server gets SIGTERM and the folder is removed. Peak RSS is the server's `VmHWM`
/// (from `/proc/<pid>/status`): after the writes for `couch-bulk_docs`, at the end for the reads.
/// One JSON line per figure, the median of the runs (RSS: the largest).
enum CouchBenchmark {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    struct Options {
        var count = 100_000
        var batch = 500
        var runs = 3
        var binary: String?
        var client = "socket"
        var pageLimit = 1000
    }

    static func run(_ arguments: [String]) {
        var options = Options()
        var arguments = arguments
        let usage = "usage: cardsync-bench couch [--count 100000] [--batch 500] [--runs 3] [--binary PATH] [--client socket|urlsession]"
        while !arguments.isEmpty {
            let flag = arguments.removeFirst()
            guard let value = arguments.first else { BenchmarkMain.fail("\(flag) needs a value; \(usage)") }
            arguments.removeFirst()
            switch flag {
            case "--count": options.count = max(1, Int(value) ?? options.count)
            case "--batch": options.batch = max(1, Int(value) ?? options.batch)
            case "--runs": options.runs = max(1, Int(value) ?? options.runs)
            case "--binary": options.binary = value
            case "--client":
                guard value == "socket" || value == "urlsession" else { BenchmarkMain.fail("--client socket|urlsession") }
                options.client = value
            case "--page-limit": options.pageLimit = max(1, Int(value) ?? options.pageLimit)
            default: BenchmarkMain.fail("unknown option \(flag); \(usage)")
            }
        }
        let binary = options.binary ?? URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("cardsync").path
        guard access(binary, X_OK) == 0 else { BenchmarkMain.fail("cannot run \(binary); give --binary PATH-TO-cardsync") }

        let documents = ContactDocuments(count: options.count, seed: 1)
        let bodies = stride(from: 0, to: options.count, by: options.batch).map { start in
            documents.bulkBody(start..<min(start + options.batch, options.count))
        }
        let requestBytes = bodies.reduce(0) { $0 + $1.count }

        var results: [RunResult] = []
        for _ in 0..<options.runs {
            do {
                results.append(try measureOnce(binary: binary, bodies: bodies, options: options))
            } catch {
                BenchmarkMain.fail("couch: \(error)")
            }
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let bulk = median(results.map(\.bulkSeconds))
        let changes = median(results.map(\.changesSeconds))
        let paged = median(results.map(\.pagedSeconds))
        let n = options.count
        let client = options.client
        emit("{\"workload\":\"couch-bulk_docs\",\"n\":\(n),\"batch\":\(options.batch),\"requests\":\(bodies.count),"
            + "\"requestBytes\":\(requestBytes),\"seconds\":\(BenchmarkMain.format(bulk)),\"docsPerSecond\":\(Int(Double(n) / bulk)),"
            + "\"runs\":\(options.runs),\"allSeconds\":[\(results.map { BenchmarkMain.format($0.bulkSeconds) }.joined(separator: ","))],"
            + "\"peakRSSMiB\":\(BenchmarkMain.format(results.map(\.rssAfterBulk).max() ?? 0)),\"rssScope\":\"server process\",\"client\":\"\(client)\"}")
        emit("{\"workload\":\"couch-changes\",\"n\":\(n),\"responseBytes\":\(results[0].changesBytes),"
            + "\"seconds\":\(BenchmarkMain.format(changes)),\"changesPerSecond\":\(Int(Double(n) / changes)),"
            + "\"runs\":\(options.runs),\"allSeconds\":[\(results.map { BenchmarkMain.format($0.changesSeconds) }.joined(separator: ","))],"
            + "\"peakRSSMiB\":\(BenchmarkMain.format(results.map(\.rssAtEnd).max() ?? 0)),\"rssScope\":\"server process\",\"client\":\"\(client)\"}")
        emit("{\"workload\":\"couch-changes-paged\",\"n\":\(n),\"limit\":\(options.pageLimit),\"requests\":\(results[0].pages),"
            + "\"seconds\":\(BenchmarkMain.format(paged)),\"changesPerSecond\":\(Int(Double(n) / paged)),"
            + "\"runs\":\(options.runs),\"allSeconds\":[\(results.map { BenchmarkMain.format($0.pagedSeconds) }.joined(separator: ","))],"
            + "\"peakRSSMiB\":\(BenchmarkMain.format(results.map(\.rssAtEnd).max() ?? 0)),\"rssScope\":\"server process\",\"client\":\"\(client)\"}")
    }

    static func emit(_ line: String) {
        print(line)
        fflush(nil)
    }

    struct RunResult {
        var bulkSeconds: Double
        var changesSeconds: Double
        var changesBytes: Int
        var pagedSeconds: Double
        var pages: Int
        var rssAfterBulk: Double
        var rssAtEnd: Double
    }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
    static func seconds(since start: UInt64) -> Double { Double(now() - start) / 1e9 }

    static func measureOnce(binary: String, bodies: [[UInt8]], options: Options) throws -> RunResult {
        let root = NSTemporaryDirectory() + "cardsync-bench-couch-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let password = "bench-\(UInt64.random(in: 0...UInt64.max))"
        let server = try ServerProcess(binary: binary, data: root + "/data", log: root + "/server.log",
                                       admin: "bench:\(password)")
        defer { server.stop() }
        let authorization = "Basic " + Data("bench:\(password)".utf8).base64EncodedString()
        let client: any HTTPClient = options.client == "urlsession"
            ? URLSessionClient(port: server.port, authorization: authorization)
            : try SocketClient(port: server.port, authorization: authorization)

        let created = try client.send("PUT", "/bench", body: nil)
        guard created.status == 201 else { throw Failure("PUT /bench: \(created.status) \(String(decoding: created.body, as: UTF8.self))") }

        // 1. _bulk_docs, batch by batch.
        var saved = 0
        let bulkStart = now()
        for body in bodies {
            let answer = try client.send("POST", "/bench/_bulk_docs", body: body)
            guard answer.status == 201 else {
                throw Failure("_bulk_docs: \(answer.status) \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
            }
            saved += occurrences(of: #""ok":true"#, in: answer.body)
        }
        let bulkSeconds = seconds(since: bulkStart)
        guard saved == options.count else { throw Failure("_bulk_docs saved \(saved) of \(options.count) documents") }
        let rssAfterBulk = server.peakRSSMiB()

        // 2. One normal feed of every change.
        let changesStart = now()
        let feed = try client.send("GET", "/bench/_changes?since=0", body: nil)
        let changesSeconds = seconds(since: changesStart)
        guard feed.status == 200 else { throw Failure("_changes: \(feed.status)") }
        let rows = occurrences(of: #"{"seq":"#, in: feed.body)
        guard rows == options.count else { throw Failure("_changes returned \(rows) rows, expected \(options.count)") }

        // 3. Paged with limit, following last_seq, until an empty page (bounded).
        var since = "0"
        var pagedRows = 0
        var pages = 0
        let maximumPages = options.count / options.pageLimit + 3
        let pagedStart = now()
        while pages < maximumPages {
            let page = try client.send("GET", "/bench/_changes?since=\(since)&limit=\(options.pageLimit)", body: nil)
            pages += 1
            guard page.status == 200 else { throw Failure("_changes page \(pages): \(page.status)") }
            let count = occurrences(of: #"{"seq":"#, in: page.body)
            guard let last = lastSequence(in: page.body) else { throw Failure("_changes page \(pages) has no last_seq") }
            pagedRows += count
            since = last
            if count == 0 { break }
        }
        let pagedSeconds = seconds(since: pagedStart)
        guard pagedRows == options.count else { throw Failure("paged _changes returned \(pagedRows) rows in \(pages) pages") }
        let rssAtEnd = server.peakRSSMiB()
        return RunResult(bulkSeconds: bulkSeconds, changesSeconds: changesSeconds, changesBytes: feed.body.count,
                         pagedSeconds: pagedSeconds, pages: pages, rssAfterBulk: rssAfterBulk, rssAtEnd: rssAtEnd)
    }

    static func occurrences(of needle: String, in haystack: [UInt8]) -> Int {
        let pattern = Array(needle.utf8)
        var count = 0
        haystack.withUnsafeBufferPointer { bytes in
            var index = 0
            let last = bytes.count - pattern.count
            while index <= last {
                if bytes[index] == pattern[0] {
                    var matches = true
                    for offset in 1..<pattern.count where bytes[index + offset] != pattern[offset] {
                        matches = false
                        break
                    }
                    if matches { count += 1; index += pattern.count; continue }
                }
                index += 1
            }
        }
        return count
    }

    /// The `last_seq` string of a `_changes` answer (after the results, so searched from the end).
    static func lastSequence(in body: [UInt8]) -> String? {
        let key = Array(#""last_seq":""#.utf8)
        guard body.count > key.count else { return nil }
        var index = body.count - key.count
        while index >= 0 {
            if body[index] == key[0], Array(body[index..<(index + key.count)]) == key {
                let start = index + key.count
                guard let end = body[start...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
                return String(decoding: body[start..<end], as: UTF8.self)
            }
            index -= 1
        }
        return nil
    }
}

// MARK: - Documents

/// Seeded contact documents in the shape of Schemas/couch-contact.schema.json.
struct ContactDocuments {
    let count: Int
    let seed: UInt64

    private static let given = ["Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "John", "Margaret",
                                "Niklaus", "Radia", "Ken", "Dennis", "Sophie", "Tim", "Katherine", "Linus", "Hedy"]
    private static let family = ["Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen", "McCarthy",
                                 "Hamilton", "Wirth", "Perlman", "Thompson", "Ritchie", "Wilson", "Berners-Lee", "Johnson"]
    private static let organizations = ["Example Corp", "Analytical Engines Ltd", "Bletchley Park", "Acme GmbH"]

    /// One `_bulk_docs` request body: `{"docs":[...]}`.
    func bulkBody(_ range: Range<Int>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(range.count * 800)
        out.append(contentsOf: #"{"docs":["#.utf8)
        for index in range {
            if index != range.lowerBound { out.append(UInt8(ascii: ",")) }
            document(index, into: &out)
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }

    func document(_ index: Int, into out: inout [UInt8]) {
        var random = SplitMix64(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(index))
        let uuid = Self.uuid(&random)
        let first = Self.given[Int(random.next() % UInt64(Self.given.count))]
        let last = Self.family[Int(random.next() % UInt64(Self.family.count))]
        let organization = Self.organizations[Int(random.next() % UInt64(Self.organizations.count))]
        let fn = "\(first) \(last)"
        let workMail = "\(first.lowercased()).\(last.lowercased())@example.org"
        let homeMail = "\(first.lowercased().prefix(1))\(last.lowercased())\(random.next() % 1000)@example.net"
        let cell = "+1-555-\(100 + random.next() % 900)-\(1000 + random.next() % 9000)"
        let work = "+1-555-\(100 + random.next() % 900)-\(1000 + random.next() % 9000)"
        let vcard = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:\(uuid)\r\nFN:\(fn)\r\nN:\(last);\(first);;;\r\n"
            + "ORG:\(organization)\r\nEMAIL;TYPE=work:\(workMail)\r\nEMAIL;TYPE=home:\(homeMail)\r\n"
            + "TEL;VALUE=uri;TYPE=cell:tel:\(cell)\r\nTEL;VALUE=uri;TYPE=work:tel:\(work)\r\n"
            + "REV:20260101T000000Z\r\nEND:VCARD\r\n"
        var hash = ""
        for _ in 0..<4 { hash += Self.hex(random.next(), digits: 16) }
        out.append(contentsOf: #"{"_id":"contact:"#.utf8)
        out.append(contentsOf: uuid.utf8)
        out.append(contentsOf: #"","type":"contact","schemaVersion":1,"uid":""#.utf8)
        out.append(contentsOf: uuid.utf8)
        out.append(contentsOf: #"","vcard":""#.utf8)
        for byte in vcard.utf8 {
            switch byte {
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(byte)
            default: out.append(byte)
            }
        }
        out.append(contentsOf: #"","hash":""#.utf8)
        out.append(contentsOf: hash.utf8)
        out.append(contentsOf: #"","fn":""#.utf8)
        out.append(contentsOf: fn.utf8)
        out.append(contentsOf: #"","emails":[""#.utf8)
        out.append(contentsOf: "\(workMail)\",\"\(homeMail)".utf8)
        out.append(contentsOf: #""],"phones":[""#.utf8)
        out.append(contentsOf: "\(cell)\",\"\(work)".utf8)
        out.append(contentsOf: #""],"updated":"2026-01-01T00:00:00Z"}"#.utf8)
    }

    static func uuid(_ random: inout SplitMix64) -> String {
        let high = (random.next() & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let low = (random.next() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        let text = hex(high, digits: 16) + hex(low, digits: 16)
        let characters = Array(text)
        return String(characters[0..<8]) + "-" + String(characters[8..<12]) + "-" + String(characters[12..<16]) + "-"
            + String(characters[16..<20]) + "-" + String(characters[20..<32])
    }

    static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}

struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: - The server process

/// `cardsync serve` as a child process: started on a free loopback port, stopped with SIGTERM.
final class ServerProcess {
    let pid: pid_t
    let port: Int
    private let stdoutDescriptor: Int32
    private var stopped = false

    init(binary: String, data: String, log: String, admin: String) throws {
        var pipeDescriptors: [Int32] = [0, 0]
        guard pipe(&pipeDescriptors) == 0 else { throw CouchBenchmark.Failure("pipe: \(errno)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeDescriptors[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addclose(&actions, pipeDescriptors[0])
        posix_spawn_file_actions_addclose(&actions, pipeDescriptors[1])
        let arguments = [binary, "serve", "--data", data, "--host", "127.0.0.1", "--port", "0", "--admin", admin]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, binary, &actions, nil, argv, environ)
        close(pipeDescriptors[1])
        guard spawned == 0 else {
            close(pipeDescriptors[0])
            throw CouchBenchmark.Failure("cannot start \(binary): \(String(cString: strerror(spawned)))")
        }
        let descriptor = pipeDescriptors[0]
        // Wait (at most 60 s) for "... listening on http://127.0.0.1:PORT ...".
        var output: [UInt8] = []
        let deadline = DispatchTime.now().uptimeNanoseconds + 60_000_000_000
        var found: Int?
        var exited = false
        while found == nil, DispatchTime.now().uptimeNanoseconds < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 200)
            if ready < 0, errno != EINTR { break }
            if ready > 0 {
                var chunk = [UInt8](repeating: 0, count: 4096)
                let got = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, 4096) }
                if got <= 0 { break }
                output.append(contentsOf: chunk[0..<got])
                let text = String(decoding: output, as: UTF8.self)
                if let range = text.range(of: "listening on http://127.0.0.1:") {
                    let digits = text[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
                    if !digits.isEmpty, text[range.upperBound...].count > digits.count { found = Int(digits) }
                }
            }
            var status: Int32 = 0
            if waitpid(child, &status, WNOHANG) == child {
                exited = true
                break
            }
        }
        guard let port = found, port > 0, !exited else {
            let logText = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if !exited { kill(child, SIGKILL); var status: Int32 = 0; waitpid(child, &status, 0) }
            close(descriptor)
            throw CouchBenchmark.Failure("cardsync serve did not report a port: \(String(decoding: output, as: UTF8.self)) \(logText.suffix(500))")
        }
        self.pid = child
        self.stdoutDescriptor = descriptor
        self.port = port
    }

    /// The server's peak resident set so far (`VmHWM`), in MiB.
    func peakRSSMiB() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kilobytes = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Double($0) } ?? 0
            return kilobytes / 1024
        }
        return 0
    }

    /// SIGTERM, then wait up to 20 s; SIGKILL if it is still running.
    func stop() {
        guard !stopped else { return }
        stopped = true
        kill(pid, SIGTERM)
        var status: Int32 = 0
        let deadline = DispatchTime.now().uptimeNanoseconds + 20_000_000_000
        while DispatchTime.now().uptimeNanoseconds < deadline {
            if waitpid(pid, &status, WNOHANG) == pid {
                close(stdoutDescriptor)
                return
            }
            usleep(20_000)
        }
        FileHandle.standardError.write(Data("cardsync-bench: server \(pid) ignored SIGTERM for 20 s; killing it\n".utf8))
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
        close(stdoutDescriptor)
    }

    deinit { stop() }
}

// MARK: - HTTP clients

protocol HTTPClient {
    func send(_ method: String, _ path: String, body: [UInt8]?) throws -> (status: Int, body: [UInt8])
}

/// A minimal HTTP/1.1 client over one keep-alive TCP connection to 127.0.0.1 (Content-Length
/// and chunked bodies; 120 s socket timeouts, so nothing waits forever).
final class SocketClient: HTTPClient {
    private let port: Int
    private let authorization: String
    private var descriptor: Int32 = -1
    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 1 << 18)

    init(port: Int, authorization: String) throws {
        self.port = port
        self.authorization = authorization
        try connectSocket()
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    private func connectSocket() throws {
        if descriptor >= 0 { close(descriptor) }
        buffer.removeAll()
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw CouchBenchmark.Failure("socket: \(errno)") }
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 120, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else { throw CouchBenchmark.Failure("connect 127.0.0.1:\(port): \(String(cString: strerror(errno)))") }
    }

    func send(_ method: String, _ path: String, body: [UInt8]?) throws -> (status: Int, body: [UInt8]) {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: \(authorization)\r\n"
            + "Accept: application/json\r\n"
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        head += "\r\n"
        var request = Array(head.utf8)
        if let body { request.append(contentsOf: body) }
        try writeAll(request)
        return try readResponse(isHead: method == "HEAD")
    }

    private func writeAll(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let result = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if result < 0 {
                if errno == EINTR { continue }
                throw CouchBenchmark.Failure("send: \(String(cString: strerror(errno)))")
            }
            sent += result
        }
    }

    /// Reads more bytes into the buffer; throws on close or timeout.
    private func fill() throws {
        while true {
            let got = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if got > 0 { buffer.append(contentsOf: chunk[0..<got]); return }
            if got < 0, errno == EINTR { continue }
            throw CouchBenchmark.Failure(got == 0 ? "server closed the connection" : "recv: \(String(cString: strerror(errno)))")
        }
    }

    private func readResponse(isHead: Bool) throws -> (status: Int, body: [UInt8]) {
        let terminator: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]
        var headerEnd: Int?
        var searchFrom = 0
        while headerEnd == nil {
            if buffer.count >= 4 {
                var index = max(0, searchFrom - 3)
                while index + 4 <= buffer.count {
                    if buffer[index] == 0x0D, buffer[index + 1] == 0x0A, buffer[index + 2] == 0x0D, buffer[index + 3] == 0x0A {
                        headerEnd = index
                        break
                    }
                    index += 1
                }
                searchFrom = buffer.count
            }
            if headerEnd == nil { try fill() }
        }
        let headText = String(decoding: buffer[0..<headerEnd!], as: UTF8.self)
        buffer.removeFirst(headerEnd! + terminator.count)
        let lines = headText.split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw CouchBenchmark.Failure("bad status line: \(lines.first ?? "")") }
        var contentLength: Int?
        var chunked = false
        var closes = false
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch name {
            case "content-length": contentLength = Int(value)
            case "transfer-encoding": chunked = value.lowercased().contains("chunked")
            case "connection": closes = value.lowercased() == "close"
            default: break
            }
        }
        var body: [UInt8] = []
        if isHead || status == 204 || status == 304 {
            // no body
        } else if chunked {
            while true {
                let lineEnd = try readLineEnd()
                let sizeText = String(decoding: buffer[0..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
                guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                    throw CouchBenchmark.Failure("bad chunk size \(sizeText)")
                }
                buffer.removeFirst(lineEnd + 2)
                if size == 0 {
                    // Trailers until an empty line.
                    while true {
                        let end = try readLineEnd()
                        buffer.removeFirst(end + 2)
                        if end == 0 { break }
                    }
                    break
                }
                while buffer.count < size + 2 { try fill() }
                body.append(contentsOf: buffer[0..<size])
                buffer.removeFirst(size + 2)
            }
        } else if let contentLength {
            body.reserveCapacity(contentLength)
            while buffer.count < contentLength { try fill() }
            body.append(contentsOf: buffer[0..<contentLength])
            buffer.removeFirst(contentLength)
        } else {
            // Delimited by close.
            while true {
                do { try fill() } catch { break }
            }
            body = buffer
            buffer.removeAll()
            closes = true
        }
        if closes { try connectSocket() }
        return (status, body)
    }

    private func readLineEnd() throws -> Int {
        var from = 0
        while true {
            var index = from
            while index + 1 < buffer.count {
                if buffer[index] == 0x0D, buffer[index + 1] == 0x0A { return index }
                index += 1
            }
            from = max(0, buffer.count - 1)
            try fill()
        }
    }
}

/// FoundationNetworking's URLSession, one request at a time (for comparison with ``SocketClient``).
final class URLSessionClient: HTTPClient {
    private final class Box: @unchecked Sendable {
        var status = 0
        var body: [UInt8] = []
        var error: (any Error)?
    }

    private let session: URLSession
    private let base: String
    private let authorization: String

    init(port: Int, authorization: String) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 120
        configuration.httpMaximumConnectionsPerHost = 1
        session = URLSession(configuration: configuration)
        base = "http://127.0.0.1:\(port)"
        self.authorization = authorization
    }

    deinit { session.invalidateAndCancel() }

    func send(_ method: String, _ path: String, body: [UInt8]?) throws -> (status: Int, body: [UInt8]) {
        guard let url = URL(string: base + path) else { throw CouchBenchmark.Failure("bad path \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue(authorization, forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body)
        }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: request) { data, response, error in
            box.status = (response as? HTTPURLResponse)?.statusCode ?? 0
            box.body = data.map { Array($0) } ?? []
            box.error = error
            done.signal()
        }.resume()
        guard done.wait(timeout: .now() + 130) == .success else { throw CouchBenchmark.Failure("\(method) \(path): no answer in 130 s") }
        if let error = box.error { throw CouchBenchmark.Failure("\(method) \(path): \(error)") }
        return (box.status, box.body)
    }
}
