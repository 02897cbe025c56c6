import CouchServer
import Foundation
import JSONText
import Hummingbird
import HummingbirdTesting
import Logging
import TestSupport

/// The admin every test server has.
let adminName = "admin"
let adminPassword = "secret"

/// A response, its body parsed as JSON when it is JSON.
struct HTTPResult: Sendable {
    var status: Int
    var headers: HTTPFields
    var bytes: [UInt8]
    var json: JSONValue? { try? JSONValue(parsing: bytes) }

    func header(_ name: String) -> String? {
        HTTPFields.Element.Name(name).flatMap { headers[$0] }
    }
}

/// Talks HTTP to one server: JSON in and out, basic auth as the admin unless told otherwise.
struct CouchTestClient: Sendable {
    typealias Send = @Sendable (String, HTTPRequest.Method, HTTPFields, ByteBuffer?) async throws -> HTTPResult
    let send: Send
    let port: Int

    init(port: Int, send: @escaping Send) {
        self.port = port
        self.send = send
    }

    /// Over the client HummingbirdTesting's live framework hands out.
    init(_ client: any TestClientProtocol, port: Int) {
        self.init(port: port) { uri, method, headers, body in
            let response = try await client.executeRequest(uri: uri, method: method, headers: headers, body: body)
            return HTTPResult(status: Int(response.status.code), headers: response.headers, bytes: Array(response.body.readableBytesView))
        }
    }

    /// Over a connection of our own.
    init(_ client: TestClient, port: Int) {
        self.init(port: port) { uri, method, headers, body in
            let response = try await client.execute(.init(uri, method: method, authority: "127.0.0.1:\(port)", headers: headers, body: body))
            return HTTPResult(status: Int(response.status.code), headers: response.headers,
                              bytes: response.body.map { Array($0.readableBytesView) } ?? [])
        }
    }

    enum Credentials: Sendable {
        case admin
        case none
        case basic(String, String)
        case cookie(String)
    }

    @discardableResult
    func request(_ method: HTTPRequest.Method, _ path: String, json: JSONValue? = nil, raw: String? = nil,
                 headers extra: [String: String] = [:], credentials: Credentials = .admin) async throws -> HTTPResult {
        var headers: HTTPFields = [.accept: "application/json"]
        var body: ByteBuffer?
        if let json {
            headers[.contentType] = "application/json"
            body = ByteBuffer(bytes: json.serialized())
        } else if let raw {
            headers[.contentType] = "application/json"
            body = ByteBuffer(string: raw)
        }
        switch credentials {
        case .admin: headers[.authorization] = "Basic " + Data("\(adminName):\(adminPassword)".utf8).base64EncodedString()
        case .none: break
        case .basic(let name, let password): headers[.authorization] = "Basic " + Data("\(name):\(password)".utf8).base64EncodedString()
        case .cookie(let value): headers[.cookie] = "AuthSession=\(value)"
        }
        for (name, value) in extra {
            headers[HTTPFields.Element.Name(name)!] = value
        }
        return try await send(path, method, headers, body)
    }
}

/// Runs `body` against a live server on a free loopback port over a new temporary data folder
/// (or `directory`), then removes the folder.
func withTestServer<Value: Sendable>(
    directory: URL? = nil, admin: Bool = true,
    _ body: @escaping @Sendable (CouchTestClient, CouchServer) async throws -> Value
) async throws -> Value {
    let folder = try directory ?? TestPaths.makeTemporaryDirectory("couchserver")
    defer { if directory == nil { try? FileManager.default.removeItem(at: folder) } }
    var logger = Logger(label: "couchserver.test")
    logger.logLevel = .warning
    let configuration = CouchServerConfiguration(
        dataDirectory: folder, port: 0,
        admin: admin ? .init(name: adminName, password: adminPassword) : nil,
        passwordIterations: 1000
    )
    let server = try CouchServer(configuration: configuration, logger: logger)
    let ports = PortBox()
    let application = server.makeApplication { port in await ports.set(port) }
    return try await application.test(.live) { _ in
        let port = await ports.value()
        // A client of our own: the testing framework's gives up on an answer after 20 s, which
        // an 8 MB body can take under AddressSanitizer on a loaded machine (two read timeouts
        // in a sanitizer run on 2026-11-26, no sanitizer report).
        return try await TestClient.withClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(120))) { client in
            try await body(CouchTestClient(client, port: port), server)
        }
    }
}

/// A second connection to the same server (for a request that waits while others are made).
func withExtraClient<Value: Sendable>(port: Int, _ body: @escaping @Sendable (CouchTestClient) async throws -> Value) async throws -> Value {
    try await TestClient.withClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(30))) { client in
        try await body(CouchTestClient(client, port: port))
    }
}

extension JSONValue {
    /// Shorthand for building request bodies in tests.
    static func obj(_ members: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(JSONObject(members.map { JSONObject.Member(key: $0.key, value: $0.value) }))
    }
}

extension String {
    /// Percent-encodes everything but unreserved characters (for ids in paths).
    var pathEncoded: String {
        addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")) ?? self
    }
}
