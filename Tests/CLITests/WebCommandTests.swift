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

/// `cardsync web --password --tls-cert --tls-key`: https with a test certificate, a sign-in page,
/// and every page but it and the static assets refused without the session cookie. The client
/// is curl, trusting the test certificate.
@Suite struct WebPasswordTests {
    static let password = "Web-Pa55word-3c1d"

    struct Answer {
        var status: Int
        var headers: String
        var body: String
    }

    /// One request with curl (no redirects followed), trusting `certificate`.
    static func curl(_ url: String, certificate: String, cookie: String? = nil, form: [(String, String)]? = nil, in work: URL) throws -> Answer {
        let headers = work.appendingPathComponent("curl.headers")
        let body = work.appendingPathComponent("curl.body")
        var arguments = ["-s", "--max-time", "120", "--cacert", certificate, "-D", headers.path, "-o", body.path, "-w", "%{http_code}"]
        if let cookie { arguments += ["-H", "Cookie: \(cookie)"] }
        for (name, value) in form ?? [] { arguments += ["--data-urlencode", "\(name)=\(value)"] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl"] + arguments + [url]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let status = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Answer(status: Int(status) ?? 0, headers: (try? String(contentsOf: headers, encoding: .utf8)) ?? "",
                      body: (try? String(contentsOf: body, encoding: .utf8)) ?? "")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "needs curl"))
    func aTLSServerForOtherComputersAsksForThePassword() async throws {
        let work = try TestPaths.makeTemporaryDirectory("web-tls")
        defer { try? FileManager.default.removeItem(at: work) }
        let book = work.appendingPathComponent("book")
        _ = try CLIRunner.run(["init", book.path])
        try Data("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Grace Hopper\r\nUID:grace-hopper-0003\r\nEND:VCARD\r\n".utf8)
            .write(to: book.appendingPathComponent("grace.vcf"))
        let certificate = work.appendingPathComponent("server.pem").path
        let key = work.appendingPathComponent("server.key").path
        try TLSTerminator.selfSignedCertificate.write(toFile: certificate, atomically: true, encoding: .utf8)
        try TLSTerminator.privateKey.write(toFile: key, atomically: true, encoding: .utf8)

        // Without TLS, or without the password, another host is refused and says what to add.
        let withoutTLS = try CLIRunner.run(["web", book.path, "--host", "0.0.0.0", "--port", "0", "--password"],
                                           environment: ["CARDSYNC_WEB_PASSWORD": Self.password])
        #expect(withoutTLS.status == 78)
        #expect(withoutTLS.standardError.contains("add --tls-cert FILE --tls-key FILE"))
        let withoutPassword = try CLIRunner.run(["web", book.path, "--host", "0.0.0.0", "--port", "0", "--tls-cert", certificate, "--tls-key", key])
        #expect(withoutPassword.status == 78)
        #expect(withoutPassword.standardError.contains("add --password"))

        let output = work.appendingPathComponent("web.out")
        let errors = work.appendingPathComponent("web.err")
        try #require(FileManager.default.createFile(atPath: output.path, contents: nil))
        try #require(FileManager.default.createFile(atPath: errors.path, contents: nil))
        let process = Process()
        process.executableURL = CLIRunner.executable
        process.arguments = ["web", book.path, "--host", "0.0.0.0", "--port", "0", "--password", "--tls-cert", certificate, "--tls-key", key]
        process.environment = ProcessInfo.processInfo.environment.merging(["CARDSYNC_WEB_PASSWORD": Self.password]) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        defer { if process.isRunning { process.interrupt(); process.waitUntilExit() } }
        var port: Int?
        for _ in 0..<1200 where port == nil && process.isRunning {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on https://0.0.0.0:") { port = Int(text[range.upperBound...].prefix { $0.isNumber }) }
            try await Task.sleep(for: .milliseconds(50))
        }
        let base = "https://127.0.0.1:\(try #require(port, "\((try? String(contentsOf: errors, encoding: .utf8)) ?? "")"))"

        // Without the cookie: pages lead to the sign-in page, posts are refused; assets load.
        let list = try Self.curl(base + "/", certificate: certificate, in: work)
        #expect(list.status == 303)
        #expect(list.headers.lowercased().contains("location: /login"))
        #expect(!list.body.contains("Grace Hopper"))
        #expect(try Self.curl(base + "/contact?uid=grace-hopper-0003", certificate: certificate, in: work).status == 303)
        #expect(try Self.curl(base + "/export?format=vcard4", certificate: certificate, in: work).status == 303)
        #expect(try Self.curl(base + "/static/app.css", certificate: certificate, in: work).status == 200)
        let login = try Self.curl(base + "/login", certificate: certificate, in: work)
        #expect(login.status == 200)
        #expect(login.body.contains("<label for=\"password\">Password</label>"))
        #expect(login.body.contains("<button type=\"submit\">Sign in</button>"))
        let token = try #require(login.body.range(of: "name=\"csrf\" value=\"").map { String(login.body[$0.upperBound...].prefix { $0 != "\"" }) })
        let deleting = try Self.curl(base + "/contact/delete", certificate: certificate, form: [("csrf", token), ("uid", "grace-hopper-0003")], in: work)
        #expect(deleting.status == 401)
        #expect(FileManager.default.fileExists(atPath: book.appendingPathComponent("grace.vcf").path))

        // A wrong password: refused, clearly; no cookie.
        let wrong = try Self.curl(base + "/login", certificate: certificate, form: [("csrf", token), ("password", Self.password + "x")], in: work)
        #expect(wrong.status == 401)
        #expect(wrong.body.contains("That password is not the right one"))
        #expect(!wrong.headers.lowercased().contains("set-cookie"))

        // The right one: a session cookie scripts cannot read, sent only over TLS, only by this site.
        let right = try Self.curl(base + "/login", certificate: certificate, form: [("csrf", token), ("password", Self.password)], in: work)
        #expect(right.status == 303)
        let setCookie = try #require(right.headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") })
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("Secure") && setCookie.contains("SameSite=Strict"))
        let cookie = String(setCookie.dropFirst("set-cookie:".count).split(separator: ";")[0]).trimmingCharacters(in: .whitespaces)
        let signedIn = try Self.curl(base + "/", certificate: certificate, cookie: cookie, in: work)
        #expect(signedIn.status == 200)
        #expect(signedIn.body.contains("Grace Hopper"))
        let forged = try Self.curl(base + "/", certificate: certificate, cookie: "cardsync-session=" + String(repeating: "0", count: 64), in: work)
        #expect(forged.status == 303)

        // Sign out: every page offers it; it ends this browser's session only, and the old
        // cookie no longer opens anything even if a copy of it was kept.
        #expect(signedIn.body.contains("<button type=\"submit\" class=\"sign-out\">Sign out</button>"))
        #expect(!login.body.contains("Sign out"))
        let other = try Self.curl(base + "/login", certificate: certificate, form: [("csrf", token), ("password", Self.password)], in: work)
        let otherCookie = try #require(other.headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") }
            .map { String($0.dropFirst("set-cookie:".count).split(separator: ";")[0]).trimmingCharacters(in: .whitespaces) })
        #expect(otherCookie != cookie)
        let signOut = try Self.curl(base + "/logout", certificate: certificate, cookie: cookie, form: [("csrf", token)], in: work)
        #expect(signOut.status == 303)
        #expect(signOut.headers.lowercased().contains("location: /login?done=signed"))
        #expect(signOut.headers.contains("Set-Cookie: cardsync-session=; Path=/; Max-Age=0"))
        #expect(try Self.curl(base + "/", certificate: certificate, cookie: cookie, in: work).status == 303)
        let stillSignedIn = try Self.curl(base + "/", certificate: certificate, cookie: otherCookie, in: work)
        #expect(stillSignedIn.status == 200 && stillSignedIn.body.contains("Grace Hopper"))
        let afterSignOut = try Self.curl(base + "/login?done=Signed%20out%3B%20this%20browser%20must%20sign%20in%20again.", certificate: certificate, in: work)
        #expect(afterSignOut.body.contains("Signed out; this browser must sign in again."))

        // The password is in no file the server wrote and in none of its output.
        process.interrupt()
        process.waitUntilExit()
        var written = [try String(contentsOf: output, encoding: .utf8), try String(contentsOf: errors, encoding: .utf8)]
        let files = FileManager.default.enumerator(at: book, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            if let data = try? Data(contentsOf: file) { written.append(String(decoding: data, as: UTF8.self)) }
        }
        #expect(!written.contains { $0.contains(Self.password) })
    }
}
