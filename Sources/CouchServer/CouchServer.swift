public import Foundation
public import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import NIOSSL
public import Logging

/// A CouchDB-compatible HTTP endpoint over a local data folder: `cardsync serve`.
///
/// It answers the requests CouchDB clients and CouchDB's replicator make (databases, documents
/// with revision trees, `_bulk_docs`, `_changes`, `_all_docs`, `_revs_diff`, `_bulk_get`,
/// `_local` checkpoints, sessions) with CouchDB 3.5's status codes, headers and error bodies.
///
/// ```swift
/// let server = try CouchServer(configuration: .init(dataDirectory: folder, port: 0), logger: logger)
/// try await server.run { port in print("listening on \(port)") }
/// ```
public struct CouchServer: Sendable {
    /// The configuration.
    public let configuration: CouchServerConfiguration
    /// The databases.
    public let catalog: DatabaseCatalog
    let authenticator: Authenticator
    let serverUUID: String
    let logger: Logger
    /// HTTP/1.1, wrapped in TLS when ``CouchServerConfiguration/tls`` is set.
    let serverBuilder: HTTPServerBuilder

    /// Opens the data folder and sets up the admin.
    ///
    /// - Throws: ``CouchError`` when the folder cannot be used, or when `--admin NAME` was given
    ///   without a password and no hash for that name is stored.
    public init(configuration: CouchServerConfiguration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        self.catalog = try DatabaseCatalog(directory: configuration.dataDirectory,
                                           revisionsLimit: configuration.revisionsLimit, logger: logger)
        let settings = try ServerSettings.loadOrCreate(in: configuration.dataDirectory)
        let admin = try AdminStore.resolve(configuration.admin, in: configuration.dataDirectory,
                                           iterations: configuration.passwordIterations)
        if admin == nil {
            logger.warning("no admin configured: every request is allowed (give --admin to require credentials)")
        }
        if let files = configuration.tls {
            self.serverBuilder = try HTTPServerBuilder.tls(.http1(), tlsConfiguration: try Self.loadTLS(files))
        } else {
            self.serverBuilder = .http1()
        }
        self.serverUUID = settings.uuid
        self.authenticator = Authenticator(admin: admin, cookieSecret: Array(settings.secret.utf8),
                                           sessionTimeout: configuration.sessionTimeout)
    }

    /// The Hummingbird application serving this endpoint; `onListening` gets the bound port.
    public func makeApplication(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let responder = CouchResponder(server: self)
        return Application(
            responder: responder,
            server: serverBuilder,
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: nil
            ),
            onServerRunning: { channel in
                await onListening(channel.localAddress?.port ?? 0)
            },
            logger: logger
        )
    }

    /// Serves until the task is cancelled or the process gets SIGINT or SIGTERM.
    ///
    /// - Parameter onListening: called once with the bound port when the server accepts requests.
    ///
    /// Only one server serves a data folder at a time: the folder's `lock` file is held while
    /// it runs, and `endpoint.json` says where it listens (so that `cardsync sync` can use a
    /// running server instead of starting one).
    public func run(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let lock = try DataFolderLock(directory: configuration.dataDirectory)
        defer { lock.release() }
        let host = configuration.host
        let scheme = configuration.tls == nil ? "http" : "https"
        try await makeApplication { port in
            lock.publish(url: "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)")
            await onListening(port)
        }.runService()
    }

    /// The URL of the server running on `directory` in another process, if one is.
    public static func runningEndpoint(in directory: URL) -> URL? {
        DataFolderLock.runningEndpoint(in: directory)
    }
}

extension CouchServer {
    /// The name of the admin whose password hash is stored in `directory`, if any.
    public static func storedAdminName(in directory: URL) -> String? {
        AdminStore.stored(in: directory)?.name
    }
}

extension CouchServer {
    /// Whether `host` only accepts connections from this machine.
    public static func isLoopback(_ host: String) -> Bool {
        let name = host.lowercased()
        return name == "localhost" || name == "::1" || name == "[::1]" || name.hasPrefix("127.")
    }

    /// Reads the certificate chain and key files into a server TLS configuration.
    ///
    /// - Throws: ``CouchError`` naming the file that cannot be read or parsed.
    static func loadTLS(_ files: CouchServerConfiguration.TLSFiles) throws(CouchError) -> TLSConfiguration {
        do {
            return try files.serverConfiguration()
        } catch {
            throw CouchError(.storageFailure, reason: error.description)
        }
    }
}
