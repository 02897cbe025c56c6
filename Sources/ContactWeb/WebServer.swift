public import ContactStore
import Foundation
public import Hummingbird
import HummingbirdCore
import HummingbirdTLS
public import Logging
import NIOSSL

/// `cardsync web`: an address book in the browser. Server-rendered pages that work without
/// JavaScript, a strict Content-Security-Policy, a CSRF token on every form, and edits that
/// change only what was edited, journaled like every other change.
///
/// ```swift
/// let server = WebServer(configuration: .init(bookDirectory: folder, port: 0), logger: logger)
/// try await server.run { port in print("listening on \(port)") }
/// ```
public struct WebServer: Sendable {
    /// Runs a sync of the book with its remote and says what it did in one sentence. Given by the
    /// command (the web module knows no CouchDB); `nil` when the book has no remote.
    public typealias SyncAction = @Sendable (AddressBook) async throws -> String

    /// The configuration.
    public let configuration: WebServerConfiguration
    let logger: Logger
    let syncAction: SyncAction?

    /// Creates a server; nothing is opened until ``run(onListening:)``.
    public init(configuration: WebServerConfiguration, logger: Logger, syncAction: SyncAction? = nil) {
        self.configuration = configuration
        self.logger = logger
        self.syncAction = syncAction
    }

    /// Opens the book (scanning it for outside changes), reads the list of contacts, and serves
    /// until the process gets SIGINT or SIGTERM; the book stays open (locked) meanwhile.
    /// - Parameter onListening: called once with the bound port when the server accepts requests.
    public func run(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        try await AddressBook.withOpen(at: configuration.bookDirectory, logger: logger) { book in
            let application = try await makeApplication(book: book, onListening: onListening)
            try await application.runService()
        }
    }

    /// The Hummingbird application serving `book` (open for as long as the application runs).
    /// - Throws: ``WebServerError`` when the TLS certificate or key cannot be read.
    public func makeApplication(book: AddressBook, onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws -> some ApplicationProtocol {
        let server = try configuration.tls.map { try HTTPServerBuilder.tls(.http1(), tlsConfiguration: try Self.loadTLS($0)) } ?? .http1()
        let catalog = await ContactCatalog.load(book, logger: logger)
        let site = WebSite(book: book, catalog: catalog, configuration: configuration, csrf: CSRFGuard(),
                           bookName: configuration.bookDirectory.lastPathComponent, syncAction: syncAction, logger: logger,
                           signIn: configuration.checksPassword.map(SignInGuard.init))
        return Application(
            responder: WebResponder(site: site),
            server: server,
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: logger
        )
    }

    /// Reads the certificate chain and key files into a server TLS configuration.
    static func loadTLS(_ files: WebServerConfiguration.TLSFiles) throws(WebServerError) -> TLSConfiguration {
        do {
            return try files.serverConfiguration()
        } catch {
            throw WebServerError(path: error.path, message: error.message)
        }
    }
}

/// Why `cardsync web` cannot start: a file it needs (the TLS certificate or key) is unusable.
public struct WebServerError: Error, Sendable, CustomStringConvertible {
    /// The file concerned.
    public var path: String
    /// What is wrong with it.
    public var message: String

    public var description: String { "\(path): \(message)" }
}
