import CouchClient
import CouchServer
import Foundation
import Logging
import TestSupport

/// The admin every test server has.
let adminName = "admin"
let adminPassword = "s3cret-pa55"

/// Runs a `CouchServer` on a free loopback port over a new temporary folder for the duration of
/// `body`, which gets the server's URL (with the admin's credentials in it).
func withLiveServer<Value: Sendable>(
    maximumRequestSize: Int = 64 * 1024 * 1024,
    _ body: @Sendable (URL) async throws -> Value
) async throws -> Value {
    let folder = try TestPaths.makeTemporaryDirectory("couchclient")
    defer { try? FileManager.default.removeItem(at: folder) }
    var logger = Logger(label: "couchclient.test.server")
    logger.logLevel = .critical
    let configuration = CouchServerConfiguration(
        dataDirectory: folder, port: 0, admin: .init(name: adminName, password: adminPassword),
        maximumRequestSize: maximumRequestSize, passwordIterations: 1000
    )
    let server = try CouchServer(configuration: configuration, logger: logger)
    let ports = PortBox()
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await server.run { port in await ports.set(port) } }
        let port = await ports.value()
        let url = URL(string: "http://\(adminName):\(adminPassword)@127.0.0.1:\(port)")!
        do {
            let value = try await body(url)
            group.cancelAll()
            try? await group.waitForAll()
            return value
        } catch {
            group.cancelAll()
            try? await group.waitForAll()
            throw error
        }
    }
}

/// A live server and a client for it; `retry` defaults to none so failures surface at once.
func withLiveClient<Value: Sendable>(
    maximumRequestSize: Int = 64 * 1024 * 1024,
    retry: RetryPolicy = .none,
    _ body: @Sendable (CouchClient, URL) async throws -> Value
) async throws -> Value {
    try await withLiveServer(maximumRequestSize: maximumRequestSize) { url in
        try await withCouchClient(url: url, configuration: .init(requestTimeout: .seconds(60), retry: retry)) { client in
            try await body(client, url)
        }
    }
}
