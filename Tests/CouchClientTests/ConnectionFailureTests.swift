import CouchClient
import CouchServer
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import Testing

/// A server that is not there is said plainly and at once; only what can heal is retried.
@Suite("Connection failures")
struct ConnectionFailureTests {
    /// Five attempts with backoff: one attempt means no retry.
    let patient = CouchClient.Configuration(retry: RetryPolicy(maximumAttempts: 5, initialDelay: .milliseconds(400)))

    /// Answered at once, shown without a clock: the connect timeout is an hour, so a connection
    /// retried inside the pool until that timeout (which then reports the last refusal, the same
    /// error) would run into the test's time limit.
    @Test(.timeLimit(.minutes(1)))
    func aRefusedConnectionIsNamedPlainlyAndNotRetried() async throws {
        let port = try closedLoopbackPort()
        let hourLongConnect = CouchClient.Configuration(connectTimeout: .seconds(3600),
                                                        retry: RetryPolicy(maximumAttempts: 5, initialDelay: .milliseconds(400)))
        let error = try await withCouchClient(url: URL(string: "http://127.0.0.1:\(port)")!, configuration: hourLongConnect) { client in
            await #expect(throws: CouchClientError.self) { _ = try await client.serverInfo() }
        }
        #expect(error?.code == .connectionRefused)
        #expect(error?.attempts == 1)
        #expect(error?.isTransient == false)
        #expect(error?.underlying == "nothing is listening on 127.0.0.1:\(port)")
        let text = String(describing: error)
        #expect(!text.contains("reset") && !text.contains("errno"), "\(text)")
    }

    @Test func anUnknownHostIsNamedPlainlyAndNotRetried() async throws {
        let error = try await withCouchClient(url: URL(string: "http://cardsync-no-such-host.invalid:5984")!, configuration: patient) { client in
            await #expect(throws: CouchClientError.self) { _ = try await client.serverInfo() }
        }
        #expect(error?.code == .unknownHost)
        #expect(error?.attempts == 1)
        #expect(error?.underlying?.contains("cardsync-no-such-host.invalid is not known") == true, "\(String(describing: error))")
    }

    @Test func aServerThatAnsweredAndThenRefusesIsRetriedAsARestart() async throws {
        let folder = try TestPaths.makeTemporaryDirectory("refused-restart")
        defer { try? FileManager.default.removeItem(at: folder) }
        var logger = Logger(label: "couchclient.test.server")
        logger.logLevel = .critical
        let server = try CouchServer(configuration: CouchServerConfiguration(dataDirectory: folder, port: 0, passwordIterations: 1000),
                                     logger: logger)
        let ports = PortBox()
        let serving = Task { try await server.run { port in await ports.set(port) } }
        let port = await ports.value()
        let quick = CouchClient.Configuration(retry: RetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(10)))
        try await withCouchClient(url: URL(string: "http://127.0.0.1:\(port)")!, configuration: quick) { client in
            _ = try await client.serverInfo()
            serving.cancel()
            _ = try? await serving.value
            let error = await #expect(throws: CouchClientError.self) { _ = try await client.serverInfo() }
            #expect(error?.code == .connectionRefused || error?.code == .network, "\(String(describing: error))")
            #expect(error?.attempts == 3)
        }
    }

    /// A loopback port nothing listens on: bound once by the kernel's choice, then closed.
    private func closedLoopbackPort() throws -> Int {
        let socket = makeTCPSocket()
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private func makeTCPSocket() -> Int32 {
        #if canImport(Glibc)
        socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        socket(AF_INET, SOCK_STREAM, 0)
        #endif
    }
}
