import AsyncHTTPClient
import ContactStore
import CouchClient
import CouchServer
import Foundation
import Logging
import SyncEngine

/// Where `sync` and `status` go: the remote given on the command line, the one set with
/// `cardsync remote`, or the embedded endpoint.
struct RemoteChoice {
    /// The remote.
    var location: RemoteLocation
    /// Skip TLS certificate verification.
    var insecure: Bool
    /// A PEM file of certificates to trust instead of the system's (`sync --ca-file`).
    var trustedCertificatesFile: String? = nil
    /// Whether it is the embedded endpoint (and where its data is).
    var embeddedData: String?

    /// The remote's name in the journal: its URL without credentials, or for the embedded
    /// endpoint (whose port changes from run to run) `embedded:` and its data folder.
    var key: String {
        if let embeddedData { return "embedded:" + URL(fileURLWithPath: embeddedData).standardizedFileURL.path + "/" + location.database }
        return location.key
    }

    /// Resolves the remote of `book`: `--remote` wins, then the stored settings, else the embedded endpoint.
    static func resolve(book: String, remote: String?, passwordFile: String?, insecure: Bool) throws -> RemoteChoice? {
        let settings: RemoteSettings?
        do {
            settings = try RemoteSettings.load(book: URL(fileURLWithPath: book))
        } catch where error.code == .invalidInput {
            throw CommandFailure(message: error.description, exitCode: ExitStatus.configuration, path: error.path)
        } catch {
            throw CommandFailure(error)
        }
        guard let text = remote ?? settings?.url else { return nil }
        let password = try Self.password(file: passwordFile ?? (remote == nil ? settings?.passwordFile : nil))
        do {
            let location = try RemoteLocation(parsing: text, password: password)
            return RemoteChoice(location: location, insecure: insecure || (remote == nil && settings?.insecure == true), embeddedData: nil)
        } catch {
            throw CommandFailure(message: error.message, exitCode: ExitStatus.configuration)
        }
    }

    /// The password from `--password-file` (its first line), else `CARDSYNC_PASSWORD`.
    static func password(file: String?) throws -> String? {
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CommandFailure.missingInput("\(file): cannot read the password file")
            }
            let text = String(decoding: data, as: UTF8.self)
            return String(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                .trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
        }
        if let password = ProcessInfo.processInfo.environment["CARDSYNC_PASSWORD"], !password.isEmpty { return password }
        return nil
    }
}

/// The data folder of the embedded endpoint: `CARDSYNC_SERVER_DATA`, else
/// `$XDG_DATA_HOME/cardsync/server`, else `~/.local/share/cardsync/server`.
enum EmbeddedEndpoint {
    static let databaseName = "contacts"

    static var dataDirectory: String {
        let environment = ProcessInfo.processInfo.environment
        if let data = environment["CARDSYNC_SERVER_DATA"], !data.isEmpty { return data }
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()) + "/.local/share")
        return base + "/cardsync/server"
    }

    /// Runs `body` with the embedded endpoint's database URL: a `cardsync serve` already running
    /// on the data folder, or a server started here on a free loopback port for the length of `body`.
    static func with<Result: Sendable>(_ body: @Sendable (RemoteChoice, _ startedHere: Bool) async throws -> Result) async throws -> Result {
        let data = dataDirectory
        let dataURL = URL(fileURLWithPath: data)
        let password = ProcessInfo.processInfo.environment["CARDSYNC_PASSWORD"]
        let admin = CouchServer.storedAdminName(in: dataURL)
        func choice(_ server: String) throws -> RemoteChoice {
            var components = URLComponents(string: server)!
            if let admin {
                components.user = admin
                if let password { components.password = password }
            }
            let text = (components.string ?? server) + "/" + databaseName
            do {
                return RemoteChoice(location: try RemoteLocation(parsing: text), insecure: false, embeddedData: data)
            } catch {
                throw CommandFailure(message: error.message, exitCode: ExitStatus.configuration)
            }
        }
        if let running = CouchServer.runningEndpoint(in: dataURL) {
            return try await body(try choice(running.absoluteString), false)
        }
        var logger = Logger(label: "cardsync.embedded") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .critical
        let server: CouchServer
        do {
            server = try CouchServer(configuration: CouchServerConfiguration(dataDirectory: dataURL, host: "127.0.0.1", port: 0),
                                     logger: logger)
        } catch {
            throw CommandFailure.io("cannot open the embedded endpoint's data folder \(data): \(error)")
        }
        let ports = PortWaiter()
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask {
                do {
                    try await server.run { port in ports.set(port) }
                } catch {
                    ports.fail(error)
                    throw error
                }
                return nil
            }
            let port: Int
            do { port = try await ports.value() } catch {
                group.cancelAll()
                throw CommandFailure.io("cannot start the embedded endpoint on \(data): \(error)")
            }
            do {
                let result = try await body(try choice("http://127.0.0.1:\(port)"), true)
                group.cancelAll()
                _ = try? await group.next()
                return result
            } catch {
                group.cancelAll()
                _ = try? await group.next()
                throw error
            }
        }
    }
}

/// Waits for the port a server reports.
final class PortWaiter: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Swift.Result<Int, any Error>?
    private var waiters: [CheckedContinuation<Int, any Error>] = []

    func set(_ port: Int) { finish(.success(port)) }
    func fail(_ error: any Error) { finish(.failure(error)) }

    private func finish(_ value: Swift.Result<Int, any Error>) {
        lock.lock()
        guard result == nil else { lock.unlock(); return }
        result = value
        let pending = waiters
        waiters = []
        lock.unlock()
        for waiter in pending { waiter.resume(with: value) }
    }

    func value() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            lock.lock()
            if let result {
                lock.unlock()
                continuation.resume(with: result)
            } else {
                waiters.append(continuation)
                lock.unlock()
            }
        }
    }
}

/// Counts the HTTP requests a client makes.
final class CountingTransport: CouchTransport, @unchecked Sendable {
    private let base: any CouchTransport
    private let lock = NSLock()
    private var sent = 0

    init(_ base: any CouchTransport) { self.base = base }

    var count: Int { lock.withLock { sent } }

    func send(_ request: CouchHTTPRequest, timeout: Duration) async throws -> CouchHTTPResponse {
        lock.withLock { sent += 1 }
        return try await base.send(request, timeout: timeout)
    }

    func stream(_ request: CouchHTTPRequest, timeout: Duration) async throws -> CouchHTTPStreamingResponse {
        lock.withLock { sent += 1 }
        return try await base.stream(request, timeout: timeout)
    }
}

/// Runs `body` with a client for `choice` (over a counting transport), shutting it down after.
func withRemoteClient<Result: Sendable>(_ choice: RemoteChoice, retry: RetryPolicy = RetryPolicy(),
                                        authentication: CouchClient.Authentication = .basic,
                                        _ body: (CouchClient, CountingTransport) async throws -> Result) async throws -> Result {
    var configuration = CouchClient.Configuration(requestTimeout: .seconds(120), connectTimeout: .seconds(3), insecure: choice.insecure,
                                                  retry: retry, authentication: authentication)
    configuration.trustedCertificatesFile = choice.trustedCertificatesFile
    let httpClient = CouchClient.makeHTTPClient(configuration: configuration)
    let counter = CountingTransport(HTTPClientTransport(client: httpClient))
    do {
        let client = try CouchClient(url: choice.location.serverURL, credentials: choice.location.credentials, transport: counter,
                                     configuration: configuration)
        let result = try await body(client, counter)
        try? await httpClient.shutdown()
        return result
    } catch {
        try? await httpClient.shutdown()
        throw error
    }
}
