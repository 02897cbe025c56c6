import Foundation
import Testing
import TestSupport

/// `cardsync diff` with a CouchDB database URL as one side, through the built binary and a
/// `cardsync serve` child process.
@Suite(.serialized) struct DiffCommandLineTests {
    @Test func diffOfASyncedDatabaseWithItsBookFindsNothingThenExactlyTheEdit() throws {
        let root = try TestPaths.makeTemporaryDirectory("cli-diff-remote")
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try ServeProcess(data: root.appendingPathComponent("server"))
        defer { server.stop() }
        let password = "kill-test"
        let book = root.appendingPathComponent("book")
        #expect(try CLIRunner.run(["init", book.path]).status == 0)
        try fill(book, count: 5)
        let url = "http://admin@127.0.0.1:\(server.port)/people"
        let environment = ["CARDSYNC_PASSWORD": password]
        let synced = try CLIRunner.run(["sync", book.path, "--remote", url], environment: environment)
        #expect(synced.status == 0, "\(synced.standardError)")

        let same = try CLIRunner.run(["diff", url, book.path], environment: environment)
        #expect(same.status == 0, "\(same.standardError)")
        #expect(same.standardOutput == "0 added, 0 removed, 0 changed, 5 unchanged\n")

        // The password from a file, and the book edited.
        let passwordFile = root.appendingPathComponent("password")
        try Data((password + "\n").utf8).write(to: passwordFile)
        try book.write(card("c2", "Person C2", email: "p2@example.com", note: "edited"), to: "c2.vcf")
        let edited = try CLIRunner.run(["diff", url, book.path, "--password-file", passwordFile.path])
        #expect(edited.status == 1, "\(edited.standardError)")
        #expect(edited.standardOutput == "~ Person C2  matched by uid\n    + NOTE: edited\n0 added, 0 removed, 1 changed, 4 unchanged\n")

        let json = try CLIRunner.run(["diff", book.path, "http://admin:\(password)@127.0.0.1:\(server.port)/people", "--format", "json"])
        #expect(json.status == 1, "\(json.standardError)")
        #expect(json.standardOutput.contains("\"new\" : \"http://admin:***@127.0.0.1:\(server.port)/people\""))
        #expect(json.standardOutput.contains("\"summary\" : {\"added\":0,\"changed\":1,\"removed\":0,\"unchanged\":4}"))

        // A wrong password is refused with the credentials status; no password is ever printed.
        let refused = try CLIRunner.run(["diff", url, book.path], environment: ["CARDSYNC_PASSWORD": "wrong-pa55"])
        #expect(refused.status == 77, "\(refused.standardError)")
        let missing = try CLIRunner.run(["diff", "http://admin@127.0.0.1:\(server.port)/nobody", book.path], environment: environment)
        #expect(missing.status == 66, "\(missing.standardError)")
        for result in [same, edited, json, refused, missing] {
            #expect(!(result.standardOutput + result.standardError).contains(password))
            #expect(!(result.standardOutput + result.standardError).contains("wrong-pa55"))
        }
    }
}
