import ArgumentParser
import ContactStore
import VCardKit

/// `cardsync show`: prints a contact's card.
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print the card of the contacts a UID, file name or name matches.",
        discussion: """
        QUERY is tried as a UID, then as a file name (.vcf may be left off), then as part of a \
        formatted name (ignoring case). The text output is the cards as stored, so it can be piped \
        to other vCard tools. Exit status 1 when nothing matches.

        Examples:
          cardsync show ~/contacts 3b9e2f0c-7f6a-4d8e-9a51-0c1e2d3f4a5b
          cardsync show ~/contacts lovelace --format json
        """
    )

    @Argument(help: "The address book folder.")
    var directory: String

    @Argument(help: "A UID, a file name, or part of a name.")
    var query: String

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    func run() async throws {
        try await reportingFailures {
            let contacts = try await BookSession.open(directory) { book in await book.contacts(matching: query) }
            guard !contacts.isEmpty else {
                throw CommandFailure(message: "no contact matches \"\(query)\" (try `cardsync list \(directory)`)", exitCode: .failure)
            }
            switch format {
            case .text:
                if contacts.count > 1 { StandardError.print("cardsync: note: \(contacts.count) contacts match \"\(query)\"") }
                print(contacts.map { String(decoding: $0.bytes, as: UTF8.self) }.joined(), terminator: "")
            case .json:
                try JSONOutput.print(ShowOutput(book: directory, contacts: contacts.map(ShowOutput.Contact.init)))
            }
        }
    }
}

/// `--format json` output of `show`.
struct ShowOutput: Encodable {
    struct Contact: Encodable {
        var uid: String
        var file: String
        var name: String
        var emails: [String]
        var phones: [String]
        var hash: String
        var card: String

        init(_ contact: StoredContact) {
            uid = contact.uid
            file = contact.file
            name = contact.card.formattedName ?? ""
            emails = contact.card.emailAddresses
            phones = contact.card.telephoneNumbers
            hash = contact.record.hash?.hexDigits ?? ""
            card = String(decoding: contact.bytes, as: UTF8.self)
        }
    }

    var schemaVersion = 1
    var command = "show"
    var book: String
    var contacts: [Contact]
}
