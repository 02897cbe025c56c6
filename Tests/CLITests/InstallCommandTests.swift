import Foundation
import Testing
import TestSupport

/// `cardsync install` puts a working cardsync, its completions and its man page under a prefix.
@Suite struct InstallCommandTests {
    @Test func installsAWorkingCommandWithCompletionsAndAManPage() throws {
        let prefix = try TestPaths.makeTemporaryDirectory("install")
        defer { try? FileManager.default.removeItem(at: prefix) }
        let result = try CLIRunner.run(["install", "--prefix", prefix.path])
        #expect(result.status == 0, "\(result.standardError)")
        for path in ["bin/cardsync", "share/bash-completion/completions/cardsync", "share/zsh/site-functions/_cardsync",
                     "share/fish/vendor_completions.d/cardsync.fish", "share/man/man1/cardsync.1",
                     "share/cardsync/Schemas/cli-output.schema.json", "share/cardsync/Schemas/xcard.rng"] {
            #expect(FileManager.default.fileExists(atPath: prefix.appendingPathComponent(path).path), "\(path) missing")
        }
        let installed = prefix.appendingPathComponent("bin/cardsync").path
        #expect(FileManager.default.isExecutableFile(atPath: installed))
        let version = try shell("\"\(installed)\" --version")
        #expect(version.status == 0 && version.output.hasPrefix("0."), "\(version.output)")
        // The bash completion loads and completes subcommand names.
        let completion = prefix.appendingPathComponent("share/bash-completion/completions/cardsync").path
        let loaded = try shell("source \"\(completion)\" && complete -p cardsync && COMP_WORDS=(cardsync va) COMP_CWORD=1 COMP_LINE='cardsync va' COMP_POINT=11 && _cardsync && echo \"${COMPREPLY[@]}\"")
        #expect(loaded.status == 0, "\(loaded.output)")
        #expect(loaded.output.contains("complete") && loaded.output.contains("validate"), "\(loaded.output)")
        // The man page is made from the help: every command has its section.
        let page = try String(contentsOfFile: prefix.appendingPathComponent("share/man/man1/cardsync.1").path, encoding: .utf8)
        #expect(page.hasPrefix(".TH CARDSYNC 1"))
        for command in ["validate", "sync", "serve", "install"] { #expect(page.contains(".SS \(command)\n"), "no section for \(command)") }
        // The installed binary finds the installed schemas from anywhere.
        let sample = TestPaths.samples.appendingPathComponent("formats/mixed-40.json").path
        let checked = try shell("cd / && \"\(installed)\" validate \"\(sample)\"")
        #expect(checked.status == 0 && !checked.output.contains("schema-not-found"), "\(checked.output)")
    }

    @Test func aSecondInstallReplacesTheFirst() throws {
        let prefix = try TestPaths.makeTemporaryDirectory("install-twice")
        defer { try? FileManager.default.removeItem(at: prefix) }
        #expect(try CLIRunner.run(["install", "--prefix", prefix.path]).status == 0)
        #expect(try CLIRunner.run(["install", "--prefix", prefix.path]).status == 0)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: prefix.appendingPathComponent("bin").path)
        #expect(leftovers == ["cardsync"], "\(leftovers)")
    }

    private func shell(_ script: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
