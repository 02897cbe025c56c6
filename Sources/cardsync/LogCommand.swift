import ArgumentParser
import ContactStore

/// `cardsync log`: the history of an address book or one contact.
struct LogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Show the history of an address book or of one contact, newest first.",
        discussion: """
        Each line is one journal event: its sequence number (for `cardsync restore --seq`), the time \
        (UTC), what happened, the contact's name and UID, its file, and where the change came from \
        (folder: another program; import; remote; user). A `conflict` event is a server version         that lost a sync conflict, kept so that `cardsync restore --seq` can bring it back.         --sync also lists the sync bookkeeping: `sync` (a contact in step with a server         revision) and `checkpoint` events.

        Examples:
          cardsync log ~/contacts --limit 20
          cardsync log ~/contacts 3b9e2f0c-7f6a-4d8e-9a51-0c1e2d3f4a5b --format json
        """
    )

    @Argument(help: "The address book folder.")
    var directory: String

    @Argument(help: "Only this contact's history.")
    var uid: String?

    @Option(help: "Show at most this many events.")
    var limit: Int?

    @Flag(help: "Also list sync bookkeeping events (sync, checkpoint).")
    var sync = false

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more, not \(limit).") }
    }

    func run() async throws {
        try await reportingFailures {
            let events = try await BookSession.open(directory) { book in
                let sync = sync
                // With --limit only the journal's end is read.
                return try await book.history(of: uid, limit: limit) { sync || $0.operation.changesContact || $0.operation == .conflict }
            }
            if let uid, events.isEmpty {
                throw CommandFailure(message: "no event is about \(uid) (try `cardsync log \(directory)`)", exitCode: .failure)
            }
            switch format {
            case .text:
                print(events.map(BookSession.line(for:)).joined(separator: "\n") + (events.isEmpty ? "" : "\n"), terminator: "")
            case .json:
                try JSONOutput.print(LogOutput(book: directory, events: events.map(EventOutput.init)))
            }
        }
    }
}

/// `--format json` output of `log`.
struct LogOutput: Encodable {
    var schemaVersion = 1
    var command = "log"
    var book: String
    var events: [EventOutput]
}
