import CouchClient
import Foundation
import Testing
import TestSupport

/// TLS: the client verifies the server's certificate unless told not to (`--insecure`), and a
/// certificate it does not trust is a failure of its own kind, reported at once, not retried.
@Suite("TLS certificate verification")
struct TLSTests {
    /// Runs `body` with the https URL of a live server behind a TLS front whose certificate is
    /// self-signed (no trust store knows it).
    /// The second URL is the server's own, without TLS.
    func withSelfSignedEndpoint(_ body: @Sendable (URL, URL) async throws -> Void) async throws {
        try await withLiveServer { plain in
            let front = try await TLSTerminator.start(forwardingTo: try #require(plain.port))
            do {
                try await body(URL(string: "https://\(adminName):\(adminPassword)@127.0.0.1:\(front.port)")!, plain)
                await front.stop()
            } catch {
                await front.stop()
                throw error
            }
        }
    }

    @Test func anUntrustedCertificateIsRefusedByDefaultAndNotRetried() async throws {
        try await withSelfSignedEndpoint { url, plain in
            // The default configuration: certificates verified, five attempts for transient failures.
            let configuration = CouchClient.Configuration(requestTimeout: .seconds(60), connectTimeout: .seconds(30))
            #expect(configuration.insecure == false)
            try await withCouchClient(url: url, configuration: configuration) { client in
                let error = await #expect(throws: CouchClientError.self) { try await client.serverInfo() }
                #expect(error?.code == .tls)
                #expect(error?.isTransient == false)
                #expect(error?.attempts == 1)
                #expect(error?.underlying?.contains("CERTIFICATE_VERIFY_FAILED") == true, "\(String(describing: error))")
                #expect(error?.description.contains(adminPassword) == false)
                // Nothing of the request reached the server: the database was not created.
                let create = await #expect(throws: CouchClientError.self) { try await client.database("contacts").create() }
                #expect(create?.code == .tls)
            }
            // Nothing reached the server behind the front.
            let databases = try await withCouchClient(url: plain) { client in try await client.allDatabases() }
            #expect(databases.contains("contacts") == false)
        }
    }

    @Test func insecureSkipsVerificationAndTheAPIWorksOverTLS() async throws {
        try await withSelfSignedEndpoint { url, _ in
            let configuration = CouchClient.Configuration(requestTimeout: .seconds(60), insecure: true)
            try await withCouchClient(url: url, configuration: configuration) { client in
                let info = try await client.serverInfo()
                #expect(info.json["couchdb"] == "Welcome")
                let database = client.database("contacts")
                #expect(try await database.create())
                let saved = try await database.put(["_id": "alice", "fn": "Alice"])
                #expect(saved.revision.hasPrefix("1-"))
                let read = try await database.document(id: "alice")
                #expect(read["fn"]?.stringValue == "Alice")
            }
        }
    }
}
