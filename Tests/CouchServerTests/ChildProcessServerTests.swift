import CouchServer
import Foundation
import Logging
import Testing

/// Not a test of its own: the entry point the durability tests (and `.ci/couch-transcript.sh`
/// when no `cardsync serve` is built yet) start in a child process. It runs only when
/// `COUCHSERVER_CHILD_DATA` names a data folder, prints the `cardsync serve` listening line and
/// serves until the process is killed.
@Suite struct ChildProcessServer {
    static let dataVariable = "COUCHSERVER_CHILD_DATA"

    @Test(.enabled(if: ProcessInfo.processInfo.environment[ChildProcessServer.dataVariable] != nil))
    func servesUntilKilled() async throws {
        let environment = ProcessInfo.processInfo.environment
        let data = try #require(environment[Self.dataVariable])
        let logger = Logger(label: "couchserver.child") { StreamLogHandler.standardError(label: $0) }
        let admin = environment["COUCHSERVER_CHILD_ADMIN"].map { text in
            let parts = text.split(separator: ":", maxSplits: 1)
            return CouchServerConfiguration.Admin(name: String(parts[0]), password: parts.count > 1 ? String(parts[1]) : nil)
        }
        let configuration = CouchServerConfiguration(dataDirectory: URL(fileURLWithPath: data), port: 0, admin: admin)
        let server = try CouchServer(configuration: configuration, logger: logger)
        try await server.run { port in
            print("cardsync serve: listening on http://127.0.0.1:\(port) (data: \(data))")
            fflush(nil)
        }
    }
}
