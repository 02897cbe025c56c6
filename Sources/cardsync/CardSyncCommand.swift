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
        version: CardSyncVersion.current,
        subcommands: [
            ValidateCommand.self,
            ConvertCommand.self,
            GenerateCommand.self,
        ]
    )
}

/// The version `cardsync --version` prints.
enum CardSyncVersion {
    static let current = "0.1.0"
}
