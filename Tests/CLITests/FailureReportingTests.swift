import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// How commands fail: with the documented exit status, a plain message, one JSON object under
/// `--format json`, and nothing from the input that could drive the terminal.
@Suite struct FailureReportingTests {
    /// "At once" is shown without a clock: a retried request says `after N attempts`; that the
    /// connection is not retried inside the pool until the connect timeout is
    /// ConnectionFailureTests' (the command line makes its client with
    /// `CouchClient.makeHTTPClient`).
    @Test func aRefusedConnectionIsAnsweredAtOnceAndPlainly() throws {
        let root = try TestPaths.makeTemporaryDirectory("cli-refused")
        let book = root.appendingPathComponent("book").path
        #expect(try CLIRunner.run(["init", book]).status == 0)
        for arguments in [["sync", book, "--remote", "http://127.0.0.1:9/contacts"], ["diff", "http://127.0.0.1:9/contacts", book]] {
            let result = try CLIRunner.run(arguments)
            #expect(result.status == 69, "\(arguments[0]): \(result.standardError)")
            #expect(result.standardError.contains("cannot reach http://127.0.0.1:9/contacts: nothing is listening on 127.0.0.1:9"),
                    "\(result.standardError)")
            for word in ["reset", "errno", "attempts"] {
                #expect(!result.standardError.contains(word), "\(result.standardError)")
            }
        }
    }

    /// Each case: arguments (with `--format json`) and the exit status they end with.
    static let failingJSONCommands: [(name: String, arguments: @Sendable (String) -> [String], status: Int32, code: String)] = [
        ("status of a folder that is not a book", { ["status", $0 + "/plain", "--format", "json"] }, 66, "missing-input"),
        ("sync of a folder that is not a book", { ["sync", $0 + "/plain", "--format", "json"] }, 66, "missing-input"),
        ("list of a missing folder", { ["list", $0 + "/missing", "--format", "json"] }, 66, "missing-input"),
        ("import of a missing file", { ["import", $0 + "/missing.vcf", "--into", $0 + "/book", "--format", "json"] }, 66, "missing-input"),
        ("sync to a server that is not there", { ["sync", $0 + "/book", "--remote", "http://127.0.0.1:9/contacts", "--format", "json"] }, 69, "unavailable"),
        ("sync to a URL without database", { ["sync", $0 + "/book", "--remote", "http://127.0.0.1:9", "--format", "json"] }, 78, "configuration"),
        ("diff with a server that is not there", { ["diff", "http://127.0.0.1:9/contacts", $0 + "/book", "--format", "json"] }, 69, "unavailable"),
        ("a command line missing its argument", { _ in ["list", "--format", "json"] }, 64, "usage"),
        ("an unknown option", { ["status", $0 + "/book", "--format", "json", "--no-such-option"] }, 64, "usage"),
    ]

    @Test(arguments: failingJSONCommands.indices)
    func aFailureUnderFormatJSONIsOneJSONObject(_ index: Int) throws {
        let entry = Self.failingJSONCommands[index]
        let root = try TestPaths.makeTemporaryDirectory("cli-json-failure")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("plain"), withIntermediateDirectories: true)
        #expect(try CLIRunner.run(["init", root.appendingPathComponent("book").path]).status == 0)
        let result = try CLIRunner.run(entry.arguments(root.path))
        #expect(result.status == entry.status, "\(entry.name): \(result.standardError)")
        let object = try #require(try JSONSerialization.jsonObject(with: result.outputBytes) as? [String: Any], "\(entry.name): \(result.standardOutput)")
        let error = try #require(object["error"] as? [String: Any])
        #expect(error["code"] as? String == entry.code)
        #expect(error["exitStatus"] as? Int == Int(entry.status))
        #expect((error["message"] as? String)?.isEmpty == false)
        #expect(!result.standardError.isEmpty, "the message is on standard error too")
        if SchemaValidator.isAvailable {
            #expect(try SchemaValidator.problems(validating: result.outputBytes, against: "cli-output.schema.json") == [], "\(entry.name)")
        }
    }

    @Test func aFailureNamesTheFolderInJSON() throws {
        let root = try TestPaths.makeTemporaryDirectory("cli-json-path")
        let result = try CLIRunner.run(["list", root.appendingPathComponent("missing").path, "--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: result.outputBytes) as? [String: Any])
        let error = try #require(object["error"] as? [String: Any])
        #expect((error["path"] as? String)?.hasSuffix("missing") == true, "\(result.standardOutput)")
    }

    @Test func controlBytesFromTheInputNeverReachTheTerminal() throws {
        let root = try TestPaths.makeTemporaryDirectory("cli-control")
        let file = root.appendingPathComponent("hostile.vcf")
        var bytes = Array("junk\u{1B}[2J\u{7}\0before\r\nBEGIN:VCARD\r\nVERSION:3.0\r\nFN:Eve\u{1B}]0;pwned\u{7}\r\nN\u{1B}[31m:x\r\nEND:VCARD\r\n".utf8)
        bytes += [0x80, 0x9B, 0x0A]
        try Data(bytes).write(to: file)
        let result = try CLIRunner.run(["validate", file.path])
        #expect(result.status != 0)
        let printed = result.standardOutput + result.standardError
        let controls = printed.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) }
        #expect(controls.isEmpty, "raw control characters on standard error: \(controls.map { String($0.value, radix: 16) })")
        #expect(printed.contains("\\x1B"), "\(printed)")
        let listed = try CLIRunner.run(["validate", file.path, "--format", "json"])
        #expect(!listed.standardOutput.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    }

    @Test func theExitStatusTableIsOneTableEverywhere() throws {
        let help = try CLIRunner.run(["--help"])
        let readme = try String(contentsOf: TestPaths.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let rows = readme.split(separator: "\n").filter { $0.hasPrefix("| ") }.map {
            $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        let statuses: [(Int, String)] = [(0, "ok"), (1, "differences"), (2, "diff-incomplete"), (64, "usage"), (65, "invalid-data"),
                                         (66, "missing-input"), (69, "unavailable"), (70, "internal-error"), (74, "io-error"),
                                         (75, "temporary-failure"), (77, "permission-denied"), (78, "configuration")]
        for (status, name) in statuses {
            #expect(rows.contains { $0.count >= 3 && $0[0] == String(status) && $0[1] == "`\(name)`" }, "README's table lacks \(status) \(name)")
            #expect(help.standardOutput.contains(" \(status)  \(name)"), "--help lacks \(status) \(name)")
        }
    }

    @Test func everyDocumentedStatusIsWhatTheCommandsReturn() throws {
        let root = try TestPaths.makeTemporaryDirectory("cli-statuses")
        let book = root.appendingPathComponent("book").path
        let plain = root.appendingPathComponent("plain")
        try FileManager.default.createDirectory(at: plain, withIntermediateDirectories: true)
        let valid = root.appendingPathComponent("one.vcf")
        try Data("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada\r\nN:Lovelace;Ada;;;\r\nUID:ada\r\nEND:VCARD\r\n".utf8).write(to: valid)
        let other = root.appendingPathComponent("other.vcf")
        try Data("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Bob\r\nN:Bob;;;;\r\nUID:bob\r\nEND:VCARD\r\n".utf8).write(to: other)
        let broken = root.appendingPathComponent("broken.vcf")
        try Data("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Bob\r\nN:Bob;;;;\r\nUID:bob\r\nEND:VCARD\r\nBEGIN:VCARD\r\nVERSION:3.0\r\nFN:Cy\r\n".utf8).write(to: broken)
        let cases: [([String], Int32)] = [
            (["init", book], 0),
            (["validate", valid.path], 0),
            (["diff", valid.path, other.path], 1),
            (["diff", broken.path, other.path], 2),
            (["validate", valid.path, "--no-such-flag"], 64),
            (["validate", broken.path], 65),
            (["validate", root.appendingPathComponent("missing.vcf").path], 66),
            (["status", plain.path], 66),
            (["sync", plain.path], 66),
            (["list", plain.path], 66),
            (["sync", book, "--remote", "http://127.0.0.1:9/contacts"], 69),
            (["convert", valid.path, "--to", "vcard4", "-o", root.appendingPathComponent("no/such/folder/out.vcf").path], 74),
            (["sync", book, "--remote", "http://127.0.0.1:9"], 78),
        ]
        for (arguments, status) in cases {
            let result = try CLIRunner.run(arguments)
            #expect(result.status == status, "\(arguments.joined(separator: " ")): \(result.status) \(result.standardError)")
        }
    }
}

/// Output to something that is not a regular file is written into it, never renamed over it.
@Suite struct OutputTargetTests {
    @Test(arguments: [1, 1200])
    func aWriteTheDeviceRefusesFailsTheCommandAndNamesTheTarget(cards: Int) throws {
        // /dev/full takes nothing: a single card fails only when the last buffer is flushed, many
        // cards fail on their first large block.
        let root = try TestPaths.makeTemporaryDirectory("cli-full")
        defer { try? FileManager.default.removeItem(at: root) }
        let input = root.appendingPathComponent("in.vcf")
        try Data(Self.foldedCards(cards).utf8).write(to: input)
        let result = try CLIRunner.run(["convert", input.path, "--to", "vcard4", "-o", "/dev/full"])
        #expect(result.status == 74, "\(result.status) \(result.standardError)")
        #expect(result.standardError.contains("/dev/full: write failed"), "\(result.standardError)")
    }

    @Test func manyCardsConvertedToTheirOwnVersionAreWrittenBackByteForByte() throws {
        // Large enough that each batch's parts are written from where they are, not buffered,
        // and that the file's write-back to disk is started along the way (every 8 MB; 9.6 MB).
        let root = try TestPaths.makeTemporaryDirectory("cli-large-output")
        defer { try? FileManager.default.removeItem(at: root) }
        let input = root.appendingPathComponent("in.vcf")
        let output = root.appendingPathComponent("out.vcf")
        let text = Self.foldedCards(4000)
        try Data(text.utf8).write(to: input)
        let result = try CLIRunner.run(["convert", input.path, "--to", "vcard3", "-o", output.path])
        #expect(result.status == 0, "\(result.standardError)")
        let written = try Data(contentsOf: output)
        #expect(written.count == text.utf8.count)
        #expect(written == Data(text.utf8), "the output differs from the input")
    }

    /// `count` vCard 3.0 cards of about 2.4 KB each, every line folded as the writer folds, a
    /// blank line between each tenth pair.
    static func foldedCards(_ count: Int) -> String {
        var text = ""
        for index in 0..<count {
            text += "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:card-\(index)\r\nFN:Person \(index)\r\nN:\(index);Person;;;\r\nNOTE:"
            text += String(repeating: "n", count: 69)
            for line in 0..<30 { text += "\r\n " + String(repeating: Character(UnicodeScalar(UInt8(97 + line % 26))), count: 74) }
            text += "\r\nEND:VCARD\r\n"
            if index % 10 == 9 { text += "\r\n" }
        }
        return text
    }

    @Test func convertingIntoAPipeWritesIntoThePipeAndLeavesItAPipe() throws {
        let root = try TestPaths.makeTemporaryDirectory("cli-fifo")
        defer { try? FileManager.default.removeItem(at: root) }
        let input = root.appendingPathComponent("in.vcf")
        try Data("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada\r\nN:Lovelace;Ada;;;\r\nEND:VCARD\r\n".utf8).write(to: input)
        let fifo = root.appendingPathComponent("out.pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/cat")
        reader.arguments = [fifo]
        let pipe = Pipe()
        reader.standardOutput = pipe
        try reader.run()
        let result = try CLIRunner.run(["convert", input.path, "--to", "vcard4", "-o", fifo])
        let received = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        reader.waitUntilExit()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(received.contains("VERSION:4.0"), "\(received)")
        var status = stat()
        #expect(stat(fifo, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO, "the pipe was replaced by a file")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { $0.contains("cardsync-") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}
