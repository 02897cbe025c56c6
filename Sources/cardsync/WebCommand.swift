import ArgumentParser
import ContactStore
import ContactWeb
import CouchClient
import Foundation
import Hummingbird
import Logging
import SyncEngine

/// `cardsync web`: the address book in a browser.
struct WebCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "Serve an address book as web pages: list, search, view, edit, history, duplicates, import and export.",
        discussion: """
            Pages are rendered on the server and work without JavaScript; nothing is loaded from \
            elsewhere, so they work offline. Saving a contact changes only what was edited: every \
            other line of its file stays byte for byte, REV is updated, and the change is journaled \
            like any other edit (`cardsync log` shows it, `cardsync sync` sends it). A save based on \
            a version that another program or a sync has changed since is refused.

            The book stays open (locked) while the server runs. Only the loopback interface is \
            served: a page for other computers would need a password and TLS, which this version \
            does not have, so any other --host is refused.

            When the server listens it prints one line on standard output:
              cardsync web: listening on http://127.0.0.1:8080 (book: DIR)

            Examples:
              cardsync web ~/contacts --open
              cardsync web ~/contacts --port 0
            """
    )

    @Argument(help: "The address book's folder.")
    var directory: String

    @Option(help: "The address to listen on (loopback only).")
    var host = "127.0.0.1"

    @Option(help: "The port; 0 picks a free one (printed when listening).")
    var port = 8080

    @Flag(help: "Open the list in the default browser once listening (xdg-open or open).")
    var open = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
    }

    func run() async throws {
        try await reportingFailures {
            guard WebServerConfiguration.isLoopback(host) else {
                throw CommandFailure(
                    message: "--host \(host) would serve the address book to other computers; that needs a password and TLS (--password, --tls-cert, --tls-key), which `cardsync web` does not offer yet. Use 127.0.0.1 (the default) and an SSH tunnel to reach it from elsewhere.",
                    exitCode: ExitStatus.configuration)
            }
            let logger = Logger(label: "cardsync.web") { StreamLogHandler.standardError(label: $0) }
            let configuration = WebServerConfiguration(bookDirectory: URL(fileURLWithPath: directory), host: host, port: port)
            let server = WebServer(configuration: configuration, logger: logger, syncAction: try Self.syncAction(book: directory))
            let host = self.host
            let directory = self.directory
            let opensBrowser = open
            try await BookSession.open(directory) { book in
                let application = await server.makeApplication(book: book) { port in
                    let url = "http://\(host.contains(":") ? "[\(host)]" : host):\(port)/"
                    print("cardsync web: listening on \(url.dropLast()) (book: \(directory))")
                    fflush(nil)
                    if opensBrowser { Self.openBrowser(url) }
                }
                do {
                    try await application.runService()
                } catch {
                    throw CommandFailure(message: "cannot serve on \(host):\(configuration.port): \(error)", exitCode: ExitStatus.ioError)
                }
            }
        }
    }

    /// "Sync now" for a book with a remote (`cardsync remote DIR set URL`): a sync like
    /// `cardsync sync DIR` with its defaults, on the book the server has open.
    static func syncAction(book: String) throws -> WebServer.SyncAction? {
        guard let choice = try RemoteChoice.resolve(book: book, remote: nil, passwordFile: nil, insecure: false) else { return nil }
        return { addressBook in
            try await withRemoteClient(choice, retry: RetryPolicy(maximumAttempts: 3)) { client, counter in
                let report = try await SyncEngine(book: addressBook, database: client.database(choice.location.database),
                                                  remote: choice.key, options: SyncOptions()).sync()
                return "Synced with \(report.remote): \(report.summaryLine); \(counter.count) requests."
            }
        }
    }

    /// Asks the desktop to open `url`; a failure is only reported.
    static func openBrowser(_ url: String) {
        let process = Process()
        #if os(macOS)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/open")
        #else
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        #endif
        #if os(macOS)
        process.arguments = [url]
        #else
        process.arguments = ["xdg-open", url]
        #endif
        do {
            try process.run()
        } catch {
            StandardError.print("cardsync: warning: cannot open a browser (\(error)); open \(url) yourself")
        }
    }
}
