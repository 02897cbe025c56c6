import CouchClient
import CouchServer
import FaultInjection
import Foundation
import Logging
import TestSupport

let adminName = "admin"
let adminPassword = "proxy-test-pa55"

/// Runs `cardsync serve`'s server on a free loopback port over a new temporary folder, with a
/// fault proxy in front of it, for the duration of `body`.
func withProxiedServer<Value: Sendable>(
    _ proxyConfiguration: @escaping @Sendable (_ serverPort: Int) -> FaultProxy.Configuration,
    _ body: @Sendable (_ proxy: FaultProxy, _ direct: URL) async throws -> Value
) async throws -> Value {
    let folder = try TestPaths.makeTemporaryDirectory("faultproxy")
    defer { try? FileManager.default.removeItem(at: folder) }
    var logger = Logger(label: "faultproxy.test.server")
    logger.logLevel = .critical
    let configuration = CouchServerConfiguration(
        dataDirectory: folder, port: 0, admin: .init(name: adminName, password: adminPassword),
        passwordIterations: 1000
    )
    let server = try CouchServer(configuration: configuration, logger: logger)
    let ports = PortBox()
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await server.run { port in await ports.set(port) } }
        let port = await ports.value()
        defer { group.cancelAll() }
        let direct = URL(string: "http://\(adminName):\(adminPassword)@127.0.0.1:\(port)")!
        let value = try await withFaultProxy(proxyConfiguration(port)) { proxy in
            try await body(proxy, direct)
        }
        group.cancelAll()
        try? await group.waitForAll()
        return value
    }
}

extension FaultProxy {
    /// The proxy's URL with the test admin's credentials in it.
    var authenticatedURL: URL { URL(string: "http://\(adminName):\(adminPassword)@127.0.0.1:\(port)")! }
}
