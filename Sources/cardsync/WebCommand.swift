import ArgumentParser
import ContactStore
import ContactWeb
import CouchClient
import CouchServer
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

            The book stays open (locked) while the server runs. Loopback (127.0.0.1, ::1, \
            localhost) is served as is, or with --password. Any other --host needs both \
            --password and TLS (--tls-cert FILE --tls-key FILE), else the server refuses to start \
            (exit 78). The password comes from CARDSYNC_WEB_PASSWORD or a prompt; only a PBKDF2 \
            hash of it is kept, in memory. Signing in sets an HttpOnly, Secure, SameSite=Strict \
            session cookie, valid until the server stops.

            When the server listens it prints one line on standard output:
              cardsync web: listening on http://127.0.0.1:8080 (book: DIR)

            Examples:
              cardsync web ~/contacts --open
              cardsync web ~/contacts --port 0
              CARDSYNC_WEB_PASSWORD=secret cardsync web ~/contacts --host 0.0.0.0 --password --tls-cert cert.pem --tls-key key.pem
            """
    )

    @Argument(help: "The address book's folder.")
    var directory: String

    @Option(help: "The address to listen on (other than loopback: needs --password and TLS).")
    var host = "127.0.0.1"

    @Option(help: "The port; 0 picks a free one (printed when listening).")
    var port = 8080

    @Flag(help: "Open the list in the default browser once listening (xdg-open or open).")
    var open = false

    @Option(help: ArgumentHelp("Serve https with this PEM certificate chain (needs --tls-key).", valueName: "file"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "file"))
    var tlsKey: String?

    @Flag(help: ArgumentHelp("Ask for a password before any page (from CARDSYNC_WEB_PASSWORD, else a prompt); only its PBKDF2 hash is kept, in memory."))
    var password = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
    }

    func run() async throws {
        try await reportingFailures {
            if (tlsCert == nil) != (tlsKey == nil) {
                throw CommandFailure(message: "--tls-cert and --tls-key go together: give both or neither", exitCode: ExitStatus.configuration)
            }
            guard WebServerConfiguration.isLoopback(host) || (password && tlsCert != nil) else {
                let missing = [password ? nil : "--password", tlsCert == nil ? "--tls-cert FILE --tls-key FILE" : nil].compactMap { $0 }
                throw CommandFailure(
                    message: "--host \(host) would serve the address book to other computers; that needs a password and TLS: add \(missing.joined(separator: " and ")). Or use 127.0.0.1 (the default) and an SSH tunnel.",
                    exitCode: ExitStatus.configuration)
            }
            let logger = Logger(label: "cardsync.web") { StreamLogHandler.standardError(label: $0) }
            var configuration = WebServerConfiguration(bookDirectory: URL(fileURLWithPath: directory), host: host, port: port)
            if let tlsCert, let tlsKey { configuration.tls = .init(certificatePath: tlsCert, keyPath: tlsKey) }
            if password {
                let hash = try Self.passwordHash()
                configuration.checksPassword = { hash.verifies(password: $0) }
            }
            let server = WebServer(configuration: configuration, logger: logger, syncAction: try Self.syncAction(book: directory))
            let host = self.host
            let directory = self.directory
            let opensBrowser = open
            let scheme = configuration.tls == nil ? "http" : "https"
            do {
                try await BookSession.open(directory) { book in
                    let application = try await server.makeApplication(book: book) { port in
                        let url = "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)/"
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
            } catch let error as WebServerError {
                throw CommandFailure(message: error.message, exitCode: ExitStatus.configuration, path: error.path)
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

    /// The password's hash, the password read from CARDSYNC_WEB_PASSWORD or a prompt (when
    /// standard input is a terminal) and then dropped.
    static func passwordHash() throws -> PasswordHash {
        var password = ProcessInfo.processInfo.environment["CARDSYNC_WEB_PASSWORD"] ?? ""
        if password.isEmpty, isatty(0) == 1, let entered = getpass("Password for the web pages: ") {
            password = String(cString: entered)
        }
        guard !password.isEmpty else {
            throw CommandFailure(message: "--password needs a password: set CARDSYNC_WEB_PASSWORD or run on a terminal to be asked",
                                 exitCode: ExitStatus.usage)
        }
        do {
            return try PasswordHash(name: "web", password: password)
        } catch {
            throw CommandFailure(message: "cannot hash the password: \(error)", exitCode: ExitStatus.internalError)
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
