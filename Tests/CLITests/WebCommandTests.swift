import Foundation
import Testing
import TestSupport

/// `cardsync web` from the command line.
@Suite struct WebCommandTests {
    @Test func refusesToServeBeyondLoopbackWithoutPasswordAndTLS() throws {
        let book = try TestPaths.makeTemporaryDirectory("web-cli").appendingPathComponent("book")
        _ = try CLIRunner.run(["init", book.path])
        let result = try CLIRunner.run(["web", book.path, "--host", "0.0.0.0", "--port", "0"])
        #expect(result.status == 78)
        #expect(result.standardError.contains("password and TLS"))
        #expect(result.standardOutput.isEmpty)
    }
}
