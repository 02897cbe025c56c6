import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TestSupport

/// `cardsync web` from the command line.
@Suite struct WebCommandTests {
    @Test func refusesToServeBeyondLoopbackWithoutPasswordAndTLS() throws {
        let book = try TestPaths.makeTemporaryDirectory("web-cli").appendingPathComponent("book")
        _ = try CLIRunner.run(["init", book.path])
        let result = try CLIRunner.run(["web", book.path, "--host", "0.0.0.0", "--port", "0"])
        #expect(result.status == 78)
        #expect(result.standardError.contains("password and TLS"))
        #expect(result.standardOutput.isEmpty)
    }
}

/// "Sync now" on the web page against a real `cardsync serve`, both child processes.
@Suite struct WebSyncNowTests {
    /// Starts `cardsync arguments…` with its output in `work`, and waits for its "listening on" line.
    static func start(_ arguments: [String], named name: String, in work: URL) async throws -> (Process, Int) {
        let output = work.appendingPathComponent("\(name).out")
        let errorOutput = work.appendingPathComponent("\(name).err")
        try #require(FileManager.default.createFile(atPath: output.path, contents: nil))
        try #require(FileManager.default.createFile(atPath: errorOutput.path, contents: nil))
        let process = Process()
        process.executableURL = CLIRunner.executable
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errorOutput)
        try process.run()
        for _ in 0..<1200 {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on http://127.0.0.1:"), let port = Int(text[range.upperBound...].prefix { $0.isNumber }) {
                return (process, port)
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.terminate()
        let errors = (try? String(contentsOf: work.appendingPathComponent("\(name).err"), encoding: .utf8)) ?? ""
        throw StartFailure(description: "cardsync \(name) did not start listening: \(errors)")
    }

    struct StartFailure: Error, CustomStringConvertible {
        var description: String
    }

    static func send(_ url: String, form: [(String, String)]? = nil) async throws -> (Int, String) {
        var request = URLRequest(url: URL(string: url)!)
        if let form {
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
            request.httpBody = Data(form.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&").utf8)
        }
        let (bytes, response) = try await URLSession.shared.data(for: request)
        return ((response as! HTTPURLResponse).statusCode, String(decoding: bytes, as: UTF8.self))
    }

    @Test func syncNowSendsTheBookToARealServeAndShowsTheSummary() async throws {
        let work = try TestPaths.makeTemporaryDirectory("web-sync")
        defer { try? FileManager.default.removeItem(at: work) }
        let book = work.appendingPathComponent("book")
        _ = try CLIRunner.run(["init", book.path])
        let card = "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Grace Hopper\r\nUID:grace-hopper-0003\r\nEND:VCARD\r\n"
        try Data(card.utf8).write(to: book.appendingPathComponent("grace.vcf"))
        let (serve, servePort) = try await Self.start(["serve", "--data", work.appendingPathComponent("data").path, "--port", "0"], named: "serve", in: work)
        defer { serve.interrupt(); serve.waitUntilExit() }
        let remote = try CLIRunner.run(["remote", book.path, "set", "http://127.0.0.1:\(servePort)/contacts"])
        #expect(remote.status == 0, "\(remote.standardError)")
        let (web, webPort) = try await Self.start(["web", book.path, "--port", "0"], named: "web", in: work)
        defer { if web.isRunning { web.interrupt(); web.waitUntilExit() } }
        let base = "http://127.0.0.1:\(webPort)"
        let page = try await Self.send(base + "/sync")
        #expect(page.0 == 200)
        #expect(page.1.contains("This book has not been synced yet."))
        #expect(page.1.contains("<button type=\"submit\">Sync now</button>"))
        let token = try #require(page.1.range(of: "name=\"csrf\" value=\"").map { String(page.1[$0.upperBound...].prefix { $0 != "\"" }) })
        let synced = try await Self.send(base + "/sync", form: [("csrf", token)])
        #expect(synced.0 == 200)
        #expect(synced.1.contains("role=\"status\""))
        #expect(synced.1.contains("Synced with http://127.0.0.1:\(servePort)/contacts: pulled 0 added, 0 updated, 0 deleted; pushed 1 added, 0 updated, 0 deleted; 0 conflicts, 0 errors;"))
        // The contact is on the server.
        let document = try await Self.send("http://127.0.0.1:\(servePort)/contacts/_all_docs?include_docs=true")
        #expect(document.0 == 200)
        #expect(document.1.contains("Grace Hopper"))
        // After a restart the sync page shows the last sync's summary, read from the journal.
        web.interrupt()
        web.waitUntilExit()
        let (again, againPort) = try await Self.start(["web", book.path, "--port", "0"], named: "web-again", in: work)
        defer { again.interrupt(); again.waitUntilExit() }
        let restarted = try await Self.send("http://127.0.0.1:\(againPort)/sync")
        #expect(restarted.1.contains("<h2>Last sync</h2><p>With http://127.0.0.1:\(servePort)/contacts at <time"))
        #expect(restarted.1.contains(": pulled 0 added, 0 updated, 0 deleted; pushed 1 added, 0 updated, 0 deleted; 0 conflicts, 0 errors.</p>"))
        // `cardsync sync` keeps its summary the same way.
        try Data(card.replacingOccurrences(of: "Grace Hopper", with: "Grace B. Hopper").utf8).write(to: book.appendingPathComponent("grace.vcf"))
        again.interrupt()
        again.waitUntilExit()
        let sync = try CLIRunner.run(["sync", book.path])
        #expect(sync.status == 0, "\(sync.standardError)")
        let (third, thirdPort) = try await Self.start(["web", book.path, "--port", "0"], named: "web-third", in: work)
        defer { third.interrupt(); third.waitUntilExit() }
        let afterCLI = try await Self.send("http://127.0.0.1:\(thirdPort)/sync")
        #expect(afterCLI.1.contains("pushed 0 added, 1 updated, 0 deleted; 0 conflicts, 0 errors.</p>"))
    }
}
