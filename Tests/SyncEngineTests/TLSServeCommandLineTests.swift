import Foundation
import Testing
import TestSupport

/// `cardsync serve --tls-cert --tls-key` with `cardsync sync` on the other end: the client
/// verifies the server's certificate, and `--ca-file` makes it trust a self-signed one.
@Suite(.serialized) struct TLSServeCommandLineTests {
    @Test func syncVerifiesATLSServeAndTrustsTheCertificateGivenWithCAFile() async throws {
        let root = try TestPaths.makeTemporaryDirectory("cli-tls-serve")
        defer { try? FileManager.default.removeItem(at: root) }
        let certificate = root.appendingPathComponent("server.pem").path
        let key = root.appendingPathComponent("server.key").path
        try TLSTerminator.selfSignedCertificate.write(toFile: certificate, atomically: true, encoding: .utf8)
        try TLSTerminator.privateKey.write(toFile: key, atomically: true, encoding: .utf8)
        let server = try ServeProcess(data: root.appendingPathComponent("server"), extraArguments: ["--tls-cert", certificate, "--tls-key", key])
        defer { server.stop() }
        let book = root.appendingPathComponent("book")
        #expect(try CLIRunner.run(["init", book.path]).status == 0)
        try fill(book, count: 3)
        let url = "https://admin:kill-test@127.0.0.1:\(server.port)/people"

        // The certificate is self-signed: without being told to trust it, the sync stops.
        let refused = try CLIRunner.run(["sync", book.path, "--remote", url])
        #expect(refused.status == 78, "\(refused.standardError)")
        #expect(refused.standardError.contains("CERTIFICATE_VERIFY_FAILED"), "\(refused.standardError)")

        // Trusting exactly that certificate, the sync goes through, verified.
        let synced = try CLIRunner.run(["sync", book.path, "--remote", url, "--ca-file", certificate])
        #expect(synced.status == 0, "\(synced.standardError)")
        #expect(synced.standardOutput.contains("pushed: 3 added"), "\(synced.standardOutput)")

        // Plain http to the TLS port gets no answer a client could take for CouchDB's.
        let plain = try CLIRunner.run(["sync", book.path, "--remote", "http://admin:kill-test@127.0.0.1:\(server.port)/people"])
        #expect(plain.status != 0)
    }
}
