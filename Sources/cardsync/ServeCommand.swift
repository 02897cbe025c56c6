import ArgumentParser
import CouchServer
import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `cardsync serve`: a CouchDB-compatible endpoint over a local data folder.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a data folder as a CouchDB-compatible endpoint that clients and CouchDB itself replicate with.",
        discussion: """
            Answers the CouchDB 3.5 requests a synchronizer or CouchDB's replicator makes: \
            databases, documents with revision trees and conflicts, _bulk_docs (also \
            new_edits:false), _changes (normal, longpoll, continuous; filters _doc_ids, _design \
            and _selector), _all_docs, _design_docs, _local_docs, _revs_diff, _bulk_get, COPY, \
            _purge, _revs_limit, _security, one-shot _replicate (database names or URLs), _local \
            checkpoints and cookie sessions. Every acknowledged write is on disk. Views and \
            _find are not served.

            With --tls-cert and --tls-key it serves https. A --host other than loopback \
            (127.x, ::1, localhost) needs both --admin and TLS, or the server refuses to start \
            (exit 78).

            With --admin every request except GET /, /_up and /_session needs the admin's \
            credentials (basic auth or an AuthSession cookie). The password comes from \
            --admin USER:PASSWORD, from CARDSYNC_ADMIN_PASSWORD, from the hash stored in the \
            data folder by an earlier run, or from a prompt; only a salted PBKDF2 hash is stored.

            When the server listens it prints one line on standard output:
              cardsync serve: listening on http://127.0.0.1:5984 (data: DIR)
            Requests are logged on standard error, without credentials.

            Examples:
              cardsync serve --data ~/.cardsync/server --admin admin
              CARDSYNC_ADMIN_PASSWORD=secret cardsync serve --data /tmp/couch --port 0 --admin admin
            """
    )

    @Option(help: "The data folder (created when missing).")
    var data: String

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port; 0 picks a free one (printed when listening).")
    var port = 5984

    @Option(help: ArgumentHelp("The admin: USER or USER:PASSWORD.", valueName: "user[:password]"))
    var admin: String?

    @Option(help: ArgumentHelp("Serve https with this PEM certificate chain (needs --tls-key).", valueName: "file"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "file"))
    var tlsKey: String?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        if let admin, admin.isEmpty || admin.hasPrefix(":") {
            throw ValidationError("--admin needs a user name: USER or USER:PASSWORD")
        }
    }

    func run() async throws {
        try await reportingFailures {
            if (tlsCert == nil) != (tlsKey == nil) {
                throw CommandFailure(message: "--tls-cert and --tls-key go together: give both or neither",
                                     exitCode: ExitStatus.configuration)
            }
            if !CouchServer.isLoopback(host), admin == nil || tlsCert == nil {
                throw CommandFailure(message: "refusing to serve on \(host): a host other than loopback needs --admin and TLS "
                                         + "(--tls-cert FILE --tls-key FILE), so that no one else on the network reads or writes "
                                         + "the data or sees the password", exitCode: ExitStatus.configuration)
            }
            let directory = URL(fileURLWithPath: data)
            let logger = Logger(label: "cardsync.serve") { StreamLogHandler.standardError(label: $0) }
            var configuration = CouchServerConfiguration(dataDirectory: directory, host: host, port: port,
                                                         admin: try resolveAdmin(directory: directory))
            if let tlsCert, let tlsKey {
                configuration.tls = .init(certificatePath: tlsCert, keyPath: tlsKey)
            }
            let server: CouchServer
            do {
                server = try CouchServer(configuration: configuration, logger: logger)
            } catch {
                throw CommandFailure.io("\(data): \(error)")
            }
            let host = self.host
            let data = self.data
            let scheme = configuration.tls == nil ? "http" : "https"
            do {
                try await server.run { port in
                    print("cardsync serve: listening on \(scheme)://\(host):\(port) (data: \(data))")
                    fflush(nil)
                }
            } catch {
                throw CommandFailure(message: "cannot serve on \(host):\(port): \(error)", exitCode: ExitStatus.ioError)
            }
        }
    }

    /// The admin from `--admin`, its password from the option, the environment, the stored hash
    /// or a prompt (when standard input is a terminal).
    private func resolveAdmin(directory: URL) throws -> CouchServerConfiguration.Admin? {
        guard let admin else { return nil }
        let parts = admin.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let name = String(parts[0])
        if parts.count == 2 { return .init(name: name, password: String(parts[1])) }
        if let password = ProcessInfo.processInfo.environment["CARDSYNC_ADMIN_PASSWORD"], !password.isEmpty {
            return .init(name: name, password: password)
        }
        if CouchServer.storedAdminName(in: directory) == name { return .init(name: name, password: nil) }
        if isatty(0) == 1, let entered = getpass("Password for \(name): ") {
            let password = String(cString: entered)
            if !password.isEmpty { return .init(name: name, password: password) }
        }
        throw CommandFailure(message: "no password for admin '\(name)': give --admin \(name):PASSWORD or set CARDSYNC_ADMIN_PASSWORD",
                             exitCode: ExitCode.validationFailure)
    }
}
