import ArgumentParser

/// The `cardsync` command: routes to one subcommand per job.
@main
struct CardSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cardsync",
        abstract: "Keep contacts in sync: vCard files, a journal of every version, and a CouchDB-compatible server.",
        discussion: """
        Examples:
          cardsync validate contacts.vcf
          cardsync convert old-2.1-export.vcf --to vcard4 -o contacts.vcf
          cardsync generate --count 1000 --seed 7 -o book.vcf
        """,
        subcommands: [
            ValidateCommand.self,
            ConvertCommand.self,
            GenerateCommand.self,
        ]
    )

    /// `cardsync --version`. Declared here rather than through `CommandConfiguration.version`,
    /// which would also claim `--version` in every subcommand, where `generate --version 4.0`
    /// names a vCard version.
    @Flag(name: .long, help: "Show the version.")
    var version = false

    func run() async throws {
        guard version else { throw CleanExit.helpRequest(self) }
        print(CardSyncVersion.current)
    }
}

/// The version `cardsync --version` prints.
enum CardSyncVersion {
    static let current = "0.1.0"
}
