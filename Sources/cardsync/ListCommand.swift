import ArgumentParser
import ContactStore

/// `cardsync list`: one line per contact.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List an address book's contacts: name, e-mail addresses, telephone numbers, UID and file.",
        discussion: """
        Sorted by name. The text output has one contact per line, fields separated by tabs.

        Examples:
          cardsync list ~/contacts
          cardsync list ~/contacts --format json | jq '.contacts[].name'
        """
    )

    @Argument(help: "The address book folder.")
    var directory: String

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    func run() async throws {
        try await reportingFailures {
            let contacts = try await BookSession.open(directory) { book in await book.contactSummaries() }
            switch format {
            case .text:
                var text = ""
                for contact in contacts {
                    text += [contact.name.isEmpty ? "(no name)" : contact.name, contact.emails.joined(separator: ", "),
                             contact.phones.joined(separator: ", "), contact.uid, contact.file].joined(separator: "\t")
                    text += "\n"
                }
                print(text, terminator: "")
            case .json:
                try JSONOutput.print(ListOutput(book: directory, contacts: contacts))
            }
        }
    }
}

/// `--format json` output of `list`.
struct ListOutput: Encodable {
    var schemaVersion = 1
    var command = "list"
    var book: String
    var contacts: [ContactSummary]
}
