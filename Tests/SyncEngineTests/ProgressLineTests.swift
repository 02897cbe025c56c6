import Foundation
import Testing
import TestSupport

/// The progress line of `cardsync sync`: drawn on standard error when it is a terminal, never
/// when it is a pipe or a file (scripts and logs get the summary only), and never with `--format json`.
@Suite(.serialized) struct ProgressLineTests {
    @Test func aTerminalSeesTheProgressLineAPipeNever() throws {
        let root = try TestPaths.makeTemporaryDirectory("cli-progress")
        let server = try ServeProcess(data: root.appendingPathComponent("server"))
        defer { server.stop() }
        let first = root.appendingPathComponent("first")
        #expect(try CLIRunner.run(["init", first.path]).status == 0)
        try fill(first, count: 300)
        let remote = "\(server.url)/people"

        let shown = try CLIRunner.runOnATerminal(["sync", first.path, "--remote", remote, "--batch-size", "50"])
        #expect(shown.status == 0, "\(shown.screen)")
        #expect(shown.screen.contains("\r\u{1B}[Kpushing ["), "\(shown.screen.prefix(400))")
        #expect(shown.screen.contains("300/300 100%"))
        #expect(shown.screen.contains(/pushing \[[#.]+\] \d+\/300 \d+% \d+ contacts\/s/), "\(shown.screen.prefix(400))")
        #expect(shown.screen.contains("pushed: 300 added"))

        // The same work into a second book, its standard error a pipe: no progress line at all.
        let second = root.appendingPathComponent("second")
        #expect(try CLIRunner.run(["init", second.path]).status == 0)
        let piped = try CLIRunner.run(["sync", second.path, "--remote", remote, "--batch-size", "50"])
        #expect(piped.status == 0, "\(piped.standardError)")
        #expect(piped.standardOutput.contains("pulled: 300 added"))
        #expect(!piped.standardError.contains("\r") && !piped.standardError.contains("\u{1B}["), "\(piped.standardError)")

        // On a terminal but with --format json: the JSON only.
        try first.write(card("c1", "Person C1", note: "edited"), to: "c1.vcf")
        let json = try CLIRunner.runOnATerminal(["sync", first.path, "--remote", remote, "--format", "json"])
        #expect(json.status == 0, "\(json.screen)")
        #expect(!json.screen.contains("\u{1B}["), "\(json.screen.prefix(400))")
        #expect(json.screen.contains("\"command\" : \"sync\""))
    }
}
