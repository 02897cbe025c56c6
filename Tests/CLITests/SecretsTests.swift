import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// No password or authorization header ever reaches logs, data files, errors or `--format json`
/// output: a full run with a known password, then every byte written is searched for it.
struct SecretsTests {
    static let password = "Kn0wn-Pa55word-7f3a"

    /// The forms a leaked password could take.
    static var forbidden: [String] {
        let basic = Data("admin:\(password)".utf8).base64EncodedString()
        return [password, basic, String(basic.dropLast(4)), "Basic \(basic)"]
    }

    @Test func aFullServeRunLeaksThePasswordNowhere() async throws {
        let work = try TestPaths.makeTemporaryDirectory("secrets")
        defer { try? FileManager.default.removeItem(at: work) }
        let data = work.appendingPathComponent("data")
        let stdoutURL = work.appendingPathComponent("serve.out")
        let stderrURL = work.appendingPathComponent("serve.err")
        try #require(FileManager.default.createFile(atPath: stdoutURL.path, contents: nil))
        try #require(FileManager.default.createFile(atPath: stderrURL.path, contents: nil))

        let process = Process()
        process.executableURL = CLIRunner.executable
        process.arguments = ["serve", "--data", data.path, "--port", "0", "--admin", "admin:\(Self.password)"]
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        var port: Int?
        for _ in 0..<400 where port == nil {
            let text = (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on http://127.0.0.1:") {
                port = Int(text[range.upperBound...].prefix { $0.isNumber })
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let base = "http://127.0.0.1:\(try #require(port))"

        var answers = ""
        func send(_ method: String, _ path: String, body: String? = nil, auth: String? = nil, cookie: String? = nil) async throws -> (Int, String, String?) {
            var request = URLRequest(url: URL(string: base + path)!)
            request.httpMethod = method
            if let body { request.httpBody = Data(body.utf8); request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
            if let auth { request.setValue(auth, forHTTPHeaderField: "Authorization") }
            if let cookie { request.setValue("AuthSession=\(cookie)", forHTTPHeaderField: "Cookie") }
            let (bytes, response) = try await URLSession.shared.data(for: request)
            let http = response as! HTTPURLResponse
            let text = String(decoding: bytes, as: UTF8.self)
            answers += text + "\n" + http.allHeaderFields.map { "\($0.key): \($0.value)" }.joined(separator: "\n") + "\n"
            return (http.statusCode, text, http.value(forHTTPHeaderField: "Set-Cookie"))
        }
        let good = "Basic " + Data("admin:\(Self.password)".utf8).base64EncodedString()
        let wrong = "Basic " + Data("admin:\(Self.password)x".utf8).base64EncodedString()
        #expect(try await send("PUT", "/contacts", auth: good).0 == 201)
        #expect(try await send("PUT", "/contacts/alice", body: #"{"name":"Alice"}"#, auth: good).0 == 201)
        #expect(try await send("PUT", "/contacts/bob", body: #"{"name":"Bob"}"#, auth: wrong).0 == 401)
        #expect(try await send("GET", "/_all_dbs", auth: "Basic " + Data("\(Self.password):x".utf8).base64EncodedString()).0 == 401)
        #expect(try await send("PUT", "/contacts/carol", body: #"{"name":"#, auth: good).0 == 400)
        let login = try await send("POST", "/_session", body: #"{"name":"admin","password":"\#(Self.password)"}"#)
        #expect(login.0 == 200)
        let cookie = login.2?.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last.map(String.init)
        #expect(try await send("GET", "/contacts/alice", cookie: cookie).0 == 200)
        #expect(try await send("POST", "/_session", body: #"{"name":"admin","password":"\#(Self.password)-wrong"}"#).0 == 401)
        #expect(try await send("GET", "/_session", cookie: cookie).0 == 200)
        process.interrupt()
        process.waitUntilExit()

        // Store commands with the password where a careless program might echo it.
        let book = work.appendingPathComponent("book").path
        var outputs: [CLIRunner.Result] = []
        outputs.append(try CLIRunner.run(["init", book, "--format", "json"]))
        let card = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:x\r\nFN:Nobody\r\nEND:VCARD\r\n"
        outputs.append(try CLIRunner.run(["import", "-", "--into", book, "--format", "json"], input: Data(card.utf8)))
        outputs.append(try CLIRunner.run(["check", book, "--format", "json"]))
        outputs.append(try CLIRunner.run(["log", book, "--format", "json"]))
        outputs.append(try CLIRunner.run(["serve", "--data", data.path, "--port", "-1", "--admin", "admin:\(Self.password)"]))
        outputs.append(try CLIRunner.run(["import", "http://admin:\(Self.password)@127.0.0.1:1/db", "--into", book, "--format", "json"]))

        var haystacks: [(String, String)] = [("serve stdout", try String(contentsOf: stdoutURL, encoding: .utf8)),
                                             ("serve stderr", try String(contentsOf: stderrURL, encoding: .utf8)),
                                             ("HTTP answers", answers)]
        for (index, output) in outputs.enumerated() {
            haystacks.append(("command \(index) stdout", output.standardOutput))
            haystacks.append(("command \(index) stderr", output.standardError))
        }
        for folder in [data, work.appendingPathComponent("book")] {
            let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
            while let url = enumerator?.nextObject() as? URL {
                if let bytes = FileManager.default.contents(atPath: url.path) {
                    haystacks.append((url.path, String(decoding: bytes, as: UTF8.self)))
                }
            }
        }
        #expect(haystacks.count > 12)
        #expect(haystacks.contains { $0.1.contains("PUT /contacts/alice") }, "the request log is where it is expected")
        for (name, text) in haystacks {
            for secret in Self.forbidden {
                #expect(!text.contains(secret), "\(name) holds \(secret)")
            }
            #expect(!text.lowercased().contains("authorization:"), "\(name) holds an authorization header")
        }
    }
}
