import CouchClient
import CouchServer
import Foundation
import Hummingbird
import Logging
import Testing
import TestSupport

/// `cardsync serve --tls-cert --tls-key`: https with a certificate the client verifies, and
/// the refusal to listen beyond loopback without an admin and TLS.
@Suite struct TLSServe {
    /// Runs a TLS server with the test certificate (for 127.0.0.1) and gives `body` its https URL
    /// and the certificate file.
    func withTLSServer(_ body: @Sendable (URL, String) async throws -> Void) async throws {
        let folder = try TestPaths.makeTemporaryDirectory("couchserver-tls")
        defer { try? FileManager.default.removeItem(at: folder) }
        let certificate = folder.appendingPathComponent("server.pem").path
        let key = folder.appendingPathComponent("server.key").path
        try TLSTerminator.selfSignedCertificate.write(toFile: certificate, atomically: true, encoding: .utf8)
        try TLSTerminator.privateKey.write(toFile: key, atomically: true, encoding: .utf8)
        var configuration = CouchServerConfiguration(dataDirectory: folder.appendingPathComponent("data"), port: 0,
                                                     admin: .init(name: adminName, password: adminPassword), passwordIterations: 1000)
        configuration.tls = .init(certificatePath: certificate, keyPath: key)
        var logger = Logger(label: "couchserver.tls-test")
        // Stopping the server by cancelling its task makes Hummingbird log errors; they say nothing here.
        logger.logLevel = .critical
        let server = try CouchServer(configuration: configuration, logger: logger)
        let ports = PortBox()
        let application = server.makeApplication { port in await ports.set(port) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await application.runService(gracefulShutdownSignals: []) }
            let port = await ports.value()
            defer { group.cancelAll() }
            try await body(try #require(URL(string: "https://127.0.0.1:\(port)")), certificate)
        }
    }

    @Test func theClientTalksToATLSServerWhoseCertificateItTrusts() async throws {
        try await withTLSServer { url, certificate in
            var trusting = CouchClient.Configuration(requestTimeout: .seconds(120), retry: RetryPolicy(maximumAttempts: 1))
            trusting.trustedCertificatesFile = certificate
            let credentials = CouchClient.Credentials(name: adminName, password: adminPassword)
            try await withCouchClient(url: url, credentials: credentials, configuration: trusting) { client in
                let database = client.database("secure")
                #expect(try await database.create())
                let update = try await database.put(["_id": .string("ann"), "fn": .string("Ann")])
                #expect(update.revision.hasPrefix("1-"))
                #expect(try await database.document(id: "ann")["fn"]?.stringValue == "Ann")
            }
            // Without the certificate among its trust roots the same client refuses the server.
            let verifying = CouchClient.Configuration(requestTimeout: .seconds(120), retry: RetryPolicy(maximumAttempts: 1))
            await #expect(throws: CouchClientError.self) {
                try await withCouchClient(url: url, credentials: credentials, configuration: verifying) { client in
                    _ = try await client.serverInfo()
                }
            }
        }
    }

    @Test func aHostBeyondLoopbackNeedsAnAdminAndTLS() throws {
        let folder = try TestPaths.makeTemporaryDirectory("couchserver-host")
        defer { try? FileManager.default.removeItem(at: folder) }
        let refused = try CLIRunner.run(["serve", "--data", folder.path, "--host", "0.0.0.0", "--port", "0"])
        #expect(refused.status == 78)
        #expect(refused.standardError.contains("needs --admin and TLS"))
        let withoutTLS = try CLIRunner.run(["serve", "--data", folder.path, "--host", "0.0.0.0", "--port", "0", "--admin", "admin:secret"])
        #expect(withoutTLS.status == 78)
        let halfTLS = try CLIRunner.run(["serve", "--data", folder.path, "--tls-cert", "x.pem", "--port", "0"])
        #expect(halfTLS.status == 78 && halfTLS.standardError.contains("--tls-key"))
    }
}
