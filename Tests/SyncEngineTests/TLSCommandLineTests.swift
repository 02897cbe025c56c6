import Foundation
import Testing
import TestSupport

/// `cardsync sync` and `cardsync remote` over https: the server's certificate is verified unless
/// `--insecure` is given (on the command line or saved with the remote).
@Suite(.serialized) struct TLSCommandLineTests {
    @Test func anUntrustedCertificateStopsTheSyncUntilInsecureIsGiven() async throws {
        let root = try TestPaths.makeTemporaryDirectory("cli-tls")
        let server = try ServeProcess(data: root.appendingPathComponent("server"))
        defer { server.stop() }
        let front = try await TLSTerminator.start(forwardingTo: server.port)
        let book = root.appendingPathComponent("book")
        #expect(try CLIRunner.run(["init", book.path]).status == 0)
        try fill(book, count: 5)
        let url = "https://admin:kill-test@127.0.0.1:\(front.port)/people"

        // Refused: exit 78 (the remote's settings need a decision), a message naming --insecure,
        // no password, and nothing written on either side.
        let refused = try CLIRunner.run(["sync", book.path, "--remote", url])
        #expect(refused.status == 78, "\(refused.standardError)")
        #expect(refused.standardError.contains("CERTIFICATE_VERIFY_FAILED"), "\(refused.standardError)")
        #expect(refused.standardError.contains("--insecure"))
        #expect(!(refused.standardOutput + refused.standardError).contains("kill-test"))
        let databases = try CLIRunner.run(["diff", book.path, "\(server.url)/people"])
        #expect(databases.status >= 2, "the database must not have been created: \(databases.standardOutput)")

        // With --insecure the same sync goes through TLS.
        let synced = try CLIRunner.run(["sync", book.path, "--remote", url, "--insecure"])
        #expect(synced.status == 0, "\(synced.standardError)")
        #expect(synced.standardOutput.contains("pushed: 5 added"), "\(synced.standardOutput)")

        // Saved with the remote, --insecure holds for later syncs; without it, they are refused.
        let saved = "https://admin@127.0.0.1:\(front.port)/people"
        let password = ["CARDSYNC_PASSWORD": "kill-test"]
        #expect(try CLIRunner.run(["remote", book.path, "set", saved, "--insecure"]).status == 0)
        try book.write(card("c1", "Person C1", note: "edited"), to: "c1.vcf")
        let again = try CLIRunner.run(["sync", book.path], environment: password)
        #expect(again.status == 0, "\(again.standardError)")
        #expect(again.standardOutput.contains("pushed: 0 added, 1 updated"), "\(again.standardOutput)")
        #expect(try CLIRunner.run(["remote", book.path, "set", saved]).status == 0)
        #expect(try CLIRunner.run(["sync", book.path], environment: password).status == 78)

        // The server holds exactly the book.
        let same = try CLIRunner.run(["diff", book.path, "\(server.url)/people"])
        #expect(same.status == 0, "\(same.standardOutput)\(same.standardError)")
        await front.stop()
    }
}
