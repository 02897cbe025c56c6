import Foundation
import Testing
import TestSupport

/// The progress bar of the long commands: on a terminal, standard error shows the phase, a bar,
/// the counts and a rate; on a pipe it shows none of it, and standard output is the same bytes
/// either way. The book is generated (3000 cards): the first update of each phase and the one that
/// reaches its total are always drawn, so what is checked does not depend on the machine's speed.
@Suite(.serialized) struct ProgressBarTests {
    /// A folder with `big.vcf` (3000 cards) and `dup.vcf` (the same people with duplicates),
    /// and two sub-folders, `terminal` and `pipe`, to run the same commands in.
    let root: URL

    init() throws {
        root = try TestPaths.makeTemporaryDirectory("cli-progress-bar")
        for (name, extra) in [("big.vcf", [String]()), ("dup.vcf", ["--duplicate-rate", "0.1", "--near-duplicate-rate", "0.1"])] {
            let generated = try CLIRunner.run(["generate", "--count", "3000", "--seed", "1", "-o", name] + extra, in: root)
            try #require(generated.status == 0, "\(generated.standardError)")
        }
        for side in ["terminal", "pipe"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(side), withIntermediateDirectories: true)
        }
    }

    /// Runs `arguments` in `terminal` on a pseudo-terminal (standard output to a file) and in `pipe`
    /// with pipes; checks that both succeed with the same standard output and that the pipe's
    /// standard error has no progress; returns the terminal's screen.
    func runBothWays(_ arguments: [String], sameOutput: (String) -> String = { $0 },
                     sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let output = root.appendingPathComponent("terminal-output")
        let shown = try CLIRunner.runOnATerminal(arguments, standardOutput: output, in: root.appendingPathComponent("terminal"))
        #expect(shown.status == 0, "\(shown.screen.suffix(600))", sourceLocation: sourceLocation)
        let piped = try CLIRunner.run(arguments, in: root.appendingPathComponent("pipe"))
        #expect(piped.status == 0, "\(piped.standardError.suffix(600))", sourceLocation: sourceLocation)
        let terminalOutput = try Data(contentsOf: output)
        if sameOutput(piped.standardOutput) == piped.standardOutput {
            #expect(terminalOutput == piped.outputBytes, "standard output differs with a terminal on standard error",
                    sourceLocation: sourceLocation)
        } else {
            #expect(sameOutput(String(decoding: terminalOutput, as: UTF8.self)) == sameOutput(piped.standardOutput),
                    sourceLocation: sourceLocation)
        }
        #expect(!piped.standardError.contains("\r") && !piped.standardError.contains("\u{1B}[")
                    && !piped.standardError.contains(/\s(MB|cards|files|contacts|pairs)\/s/),
                "\(piped.standardError.prefix(600))", sourceLocation: sourceLocation)
        return shown.screen
    }

    /// On a terminal with `--format json`: the JSON, no progress line.
    func expectNoProgressWithJSON(_ arguments: [String], in side: String = "terminal",
                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
        let json = try CLIRunner.runOnATerminal(arguments + ["--format", "json"], in: root.appendingPathComponent(side))
        #expect(!json.screen.contains("\u{1B}[") && !json.screen.contains("\r\u{1B}"), "\(json.screen.prefix(600))",
                sourceLocation: sourceLocation)
        #expect(json.screen.contains("\"schemaVersion\""), "\(json.screen.prefix(600))", sourceLocation: sourceLocation)
    }

    func initBooks(_ name: String) throws {
        for side in ["terminal", "pipe"] {
            let made = try CLIRunner.run(["init", name], in: root.appendingPathComponent(side))
            try #require(made.status == 0, "\(made.standardError)")
        }
    }

    @Test func importExportAndScanShowABarWithCountsAndARate() throws {
        try #require(CLIRunner.canRunOnATerminal, "script(1) (util-linux) runs a command on a pseudo-terminal")
        try initBooks("book")

        let imported = try runBothWays(["import", "../big.vcf", "--into", "book"])
        #expect(imported.contains("\r\u{1B}[Kimporting big.vcf ["), "\(imported.prefix(600))")
        #expect(imported.contains(/importing big\.vcf \[[#.]+\] [\d.]+\/[\d.]+ MB \d+% [\d.]+ MB\/s \d+:\d\d/), "\(imported.prefix(600))")
        #expect(imported.contains(/\[#+\] ([\d.]+)\/\1 MB 100%/), "the end of the input is drawn: \(imported.prefix(600))")
        // The line is cleared at the end (the summary is on standard output).
        #expect(imported.hasSuffix("\r\u{1B}[K"), "\(imported.suffix(300))")

        let exported = try runBothWays(["export", "book", "--to", "vcard4", "-o", "-"])
        #expect(exported.contains(/exporting \[[#.]+\] \d+\/3000 \d+% \d+ contacts\/s/), "\(exported.prefix(600))")
        #expect(exported.contains(/exporting \[#+\] 3000\/3000 100%/), "\(exported.prefix(600))")

        // 3000 files written by another program: the scan reads them all.
        try initBooks("folder")
        for side in ["terminal", "pipe"] {
            let generated = try CLIRunner.run(["generate", "--count", "3000", "--seed", "2", "--dir", "folder", "--labels", "labels.json"],
                                              in: root.appendingPathComponent(side))
            try #require(generated.status == 0, "\(generated.standardError)")
        }
        // The events carry the time they were recorded, which differs from one run to the other.
        let scanned = try runBothWays(["scan", "folder"], sameOutput: { $0.replacing(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/, with: "TIME") })
        #expect(scanned.contains(/scanning \[[#.]+\] \d+\/3000 \d+% \d+ files\/s/), "\(scanned.prefix(600))")
        #expect(scanned.contains(/scanning \[#+\] 3000\/3000 100%/), "\(scanned.prefix(600))")

        try expectNoProgressWithJSON(["import", "../dup.vcf", "--into", "book"])
        try expectNoProgressWithJSON(["scan", "book"])
    }

    @Test func duplicatesAndConvertShowABarWithCountsAndARate() throws {
        try #require(CLIRunner.canRunOnATerminal, "script(1) (util-linux) runs a command on a pseudo-terminal")
        let duplicates = try runBothWays(["duplicates", "../dup.vcf"])
        #expect(duplicates.contains(/parsing \[[#.]+\] \d+\/\d+ \d+% \d+ cards\/s/), "\(duplicates.prefix(600))")
        #expect(duplicates.contains(/finding duplicates \[#+\] (\d+)\/\1 100%/), "\(duplicates.prefix(800))")
        try expectNoProgressWithJSON(["duplicates", "../dup.vcf"])

        // Converted cards go to standard output (a file here): the bar follows the bytes read.
        let converted = try runBothWays(["convert", "../big.vcf", "--to", "vcard3", "-o", "-"])
        #expect(converted.contains(/converting big\.vcf \[[#.]+\] [\d.]+\/[\d.]+ MB \d+% [\d.]+ MB\/s/), "\(converted.prefix(600))")
        #expect(converted.contains(/converting big\.vcf \[#+\] ([\d.]+)\/\1 MB 100%/), "\(converted.prefix(600))")
    }
}
