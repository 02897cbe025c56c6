public import AsyncHTTPClient
public import Foundation
public import Logging
import NIOSSL

/// The CouchDB HTTP API as Swift calls: server and database calls with typed errors
/// (``CouchClientError``) and retries (``RetryPolicy``).
///
/// A client is a value: copies share the transport. Make one with ``withCouchClient(url:credentials:configuration:logger:_:)``,
/// which owns the `HTTPClient` and shuts it down, or with ``init(url:credentials:transport:configuration:clock:logger:)``
/// over a transport of your own.
///
/// ```swift
/// try await withCouchClient(url: URL(string: "http://admin:secret@127.0.0.1:5984")!) { client in
///     let contacts = client.database("contacts")
///     try await contacts.create(ignoringExisting: true)
///     let saved = try await contacts.put(["_id": "alice", "name": "Alice"])
///     print(saved.revision)
/// }
/// ```
public struct CouchClient: Sendable {
    /// A user name and password for HTTP basic authentication. Printing it hides the password.
    public struct Credentials: Sendable, Hashable, CustomStringConvertible {
        /// The user name.
        public var name: String
        /// The password.
        public var password: String
        /// Credentials.
        public init(name: String, password: String) {
            self.name = name
            self.password = password
        }
        /// `name:***`.
        public var description: String { "\(name):***" }
    }

    /// Timeouts, TLS and retries.
    public struct Configuration: Sendable {
        /// The deadline of one attempt of one request.
        public var requestTimeout: Duration
        /// The deadline for opening a connection.
        public var connectTimeout: Duration
        /// Skips TLS certificate verification (`--insecure`). Off by default.
        public var insecure: Bool
        /// When to repeat failed requests.
        public var retry: RetryPolicy
        /// How the credentials are presented.
        public var authentication: Authentication
        /// A PEM file of certificates to trust instead of the system's (a private CA or a
        /// self-signed server certificate); certificates are still verified.
        public var trustedCertificatesFile: String?

        /// A configuration: 60 s per request, 10 s to connect, certificates verified, 5 attempts, basic auth.
        public init(requestTimeout: Duration = .seconds(60), connectTimeout: Duration = .seconds(10),
                    insecure: Bool = false, retry: RetryPolicy = RetryPolicy(), authentication: Authentication = .basic) {
            self.requestTimeout = requestTimeout
            self.connectTimeout = connectTimeout
            self.insecure = insecure
            self.retry = retry
            self.authentication = authentication
        }
    }

    /// How credentials reach the server.
    public enum Authentication: String, Sendable, Hashable {
        /// An `Authorization: Basic` header on every request.
        case basic
        /// One `POST /_session`, then the `AuthSession` cookie (renewed when the server sends a
        /// fresh one, and by logging in again after a 401): the password crosses the network once.
        case cookie
    }

    /// The server's URL without credentials and without a trailing slash.
    public let baseURL: String
    /// The user name used, if any (the password is never exposed).
    public var userName: String? { credentials?.name }
    /// Timeouts, TLS and retries.
    public let configuration: Configuration
    let credentials: Credentials?
    let session = SessionCookie()
    /// Whether the server has answered a request of this client yet.
    let reachability = ServerReachability()
    let transport: any CouchTransport
    let sleep: @Sendable (Duration) async throws -> Void
    let logger: Logger

    /// A client for the server at `url` over `transport`.
    ///
    /// - Parameters:
    ///   - url: the server, e.g. `https://user:password@couch.example.com:6984`; a user and
    ///     password in it are taken as credentials and removed from the URL.
    ///   - credentials: explicit credentials; they win over the URL's.
    ///   - transport: sends the requests.
    ///   - configuration: timeouts and retries.
    ///   - clock: waits between retries (inject a test clock to avoid sleeping).
    ///   - logger: where retries are logged.
    /// - Throws: ``CouchClientError`` with code `invalidURL` when `url` is not an http(s) URL.
    public init(url: URL, credentials: Credentials? = nil, transport: any CouchTransport,
                configuration: Configuration = Configuration(), clock: some Clock<Duration> = ContinuousClock(),
                logger: Logger = Logger(label: "cardsync.couchclient")) throws {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              components.host?.isEmpty == false
        else {
            throw CouchClientError(.invalidURL, reason: "expected an http or https URL with a host")
        }
        var fromURL: Credentials?
        if let user = components.user {
            fromURL = Credentials(name: components.percentEncodedUser?.removingPercentEncoding ?? user,
                                  password: components.percentEncodedPassword?.removingPercentEncoding ?? "")
        }
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        guard var base = components.string else {
            throw CouchClientError(.invalidURL, reason: "the URL cannot be rebuilt")
        }
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.credentials = credentials ?? fromURL
        self.transport = transport
        self.configuration = configuration
        self.sleep = { try await clock.sleep(for: $0) }
        self.logger = logger
    }

    /// The database named `name` on this server (no request is made).
    public func database(_ name: String) -> CouchDatabase {
        CouchDatabase(client: self, name: name)
    }

    /// `GET /`: the server's welcome object.
    ///
    /// - Throws: ``CouchClientError``.
    public func serverInfo() async throws -> ServerInfo {
        let response = try await send("GET", path: "")
        return ServerInfo(json: response.json)
    }

    /// `GET /_all_dbs`: the names of all databases.
    ///
    /// - Throws: ``CouchClientError``.
    public func allDatabases() async throws -> [String] {
        let response = try await send("GET", path: "/_all_dbs")
        return response.json.arrayValue?.compactMap(\.stringValue) ?? []
    }
}

/// Runs `body` with a client for the server at `url` over a new `HTTPClient`, and shuts that
/// `HTTPClient` down afterwards, whether `body` returns or throws.
///
/// ```swift
/// let info = try await withCouchClient(url: serverURL) { client in
///     try await client.serverInfo()
/// }
/// ```
///
/// - Parameters:
///   - url: the server; a user and password in it are the credentials.
///   - credentials: explicit credentials, winning over the URL's.
///   - configuration: timeouts, TLS verification (``CouchClient/Configuration-swift.struct/insecure``), retries.
///   - logger: where the client logs.
///   - body: the work to do with the client.
/// - Throws: ``CouchClientError``, or what `body` throws.
public func withCouchClient<Result: Sendable>(
    url: URL, credentials: CouchClient.Credentials? = nil,
    configuration: CouchClient.Configuration = CouchClient.Configuration(),
    logger: Logger = Logger(label: "cardsync.couchclient"),
    _ body: (CouchClient) async throws -> Result
) async throws -> Result {
    let httpClient = CouchClient.makeHTTPClient(configuration: configuration, logger: logger)
    let result: Result
    do {
        let client = try CouchClient(url: url, credentials: credentials, transport: HTTPClientTransport(client: httpClient),
                                     configuration: configuration, logger: logger)
        result = try await body(client)
    } catch {
        try? await httpClient.shutdown()
        throw error
    }
    try await httpClient.shutdown()
    return result
}

extension CouchClient {
    /// An `HTTPClient` set up for CouchDB calls with `configuration`'s timeouts and TLS
    /// verification; the caller shuts it down.
    ///
    /// A refused connection or an unknown host fails the request at once rather than being
    /// retried inside the connection pool until the connect timeout: ``CouchClient`` decides
    /// what is worth retrying.
    public static func makeHTTPClient(configuration: Configuration,
                                      logger: Logger = Logger(label: "cardsync.couchclient")) -> HTTPClient {
        let timeout = HTTPClient.Configuration.Timeout(
            connect: .nanoseconds(configuration.connectTimeout.nanoseconds),
            read: .nanoseconds(configuration.requestTimeout.nanoseconds)
        )
        var httpConfiguration = configuration.insecure
            ? HTTPClient.Configuration(certificateVerification: .none, timeout: timeout)
            : HTTPClient.Configuration(timeout: timeout)
        if !configuration.insecure, let file = configuration.trustedCertificatesFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(file)
            httpConfiguration.tlsConfiguration = tls
        }
        httpConfiguration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: httpConfiguration,
                          backgroundActivityLogger: logger)
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
