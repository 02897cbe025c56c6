import ArgumentParser
import Foundation

/// The `cardsync` command: routes to one subcommand per job.
@main
struct CardSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cardsync",
        abstract: "Keep contacts in sync: vCard files, a journal of every version, and a CouchDB-compatible server.",
        discussion: """
        `cardsync --version` prints the version.

        Exit statuses (the same for every command; with --format json a failure is also one \
        JSON object on standard output, its `error.code` the name below):
        \(ExitStatus.table)

        Examples:
          cardsync validate contacts.vcf
          cardsync convert old-2.1-export.vcf --to vcard4 -o contacts.vcf
          cardsync generate --count 1000 --seed 7 -o book.vcf
          cardsync init ~/contacts && cardsync import phone.vcf --into ~/contacts
          cardsync sync ~/contacts
        """,
        subcommands: [
            // Formats
            ValidateCommand.self,
            ConvertCommand.self,
            GenerateCommand.self,
            // The address book
            InitCommand.self,
            ImportCommand.self,
            ExportCommand.self,
            ListCommand.self,
            ShowCommand.self,
            LogCommand.self,
            RestoreCommand.self,
            DedupeCommand.self,
            DiffCommand.self,
            DuplicatesCommand.self,
            MergeCommand.self,
            ScanCommand.self,
            CheckCommand.self,
            CompactCommand.self,
            // Sync
            SyncCommand.self,
            RemoteCommand.self,
            StatusCommand.self,
            // The server
            ServeCommand.self,
            WebCommand.self,
            // This tool
            InstallCommand.self,
        ]
    )

    /// Runs the command line. `cardsync --version` is answered here rather than through
    /// `CommandConfiguration.version` or a root flag: ArgumentParser lets a parent's options
    /// match anywhere on the line, so either would take `generate --version 4.0` for itself.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments == ["--version"] {
            print(CardSyncVersion.current)
            return
        }
        let command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            // A wrong command line under `--format json` still answers with one JSON object.
            let status = exitCode(for: error)
            if status != .success, Self.asksForJSON(arguments) {
                let name = arguments.first { !$0.hasPrefix("-") }.flatMap { word in
                    configuration.subcommands.first { $0.configuration.commandName == word }?.configuration.commandName
                } ?? "cardsync"
                let failure = CommandFailure(message: fullMessage(for: error), exitCode: status)
                StandardError.print(fullMessage(for: error))
                FailureOutput(command: name, failure: failure).print()
                Foundation.exit(status.rawValue)
            }
            exit(withError: error)
        }
        do {
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                var synchronous = command
                try synchronous.run()
            }
        } catch {
            exit(withError: error)
        }
    }

    /// Whether the command line asks for `--format json`.
    static func asksForJSON(_ arguments: [String]) -> Bool {
        zip(arguments, arguments.dropFirst()).contains { $0 == "--format" && $1 == "json" } || arguments.contains("--format=json")
    }
}

/// The version `cardsync --version` prints.
enum CardSyncVersion {
    static let current = "0.1.0"
}
