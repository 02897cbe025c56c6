public import ContactStore
import Foundation
public import Hummingbird
public import Logging

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
            let application = await makeApplication(book: book, onListening: onListening)
            try await application.runService()
        }
    }

    /// The Hummingbird application serving `book` (open for as long as the application runs).
    public func makeApplication(book: AddressBook, onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async -> some ApplicationProtocol {
        let catalog = await ContactCatalog.load(book, logger: logger)
        let site = WebSite(book: book, catalog: catalog, configuration: configuration, csrf: CSRFGuard(),
                           bookName: configuration.bookDirectory.lastPathComponent, syncAction: syncAction, logger: logger)
        return Application(
            responder: WebResponder(site: site),
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: logger
        )
    }
}
