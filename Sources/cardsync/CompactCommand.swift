import ArgumentParser
import ContactStore

/// `cardsync compact`: rewrites the journal, keeping the last versions of each contact.
struct CompactCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Rewrite an address book's journal, keeping the last N versions of each contact.",
        discussion: """
        Without --keep every event is kept (the journal is only rewritten). The text of every kept \
        version stays, so each kept version (and each deleted contact) can still be restored. The new \
        journal replaces the old one atomically.

        Examples:
          cardsync compact ~/contacts --keep 5
        """
    )

    @Argument(help: "The address book folder.")
    var directory: String

    @Option(help: "How many versions of each contact to keep (default: all).")
    var keep: Int?

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    func validate() throws {
        if let keep, keep < 1 { throw ValidationError("--keep must be at least 1") }
    }

    func run() async throws {
        try await reportingFailures {
            let report = try await BookSession.open(directory) { book in
                try await book.compact(keepingVersions: keep)
            }
            switch format {
            case .text:
                print("Compacted the journal: \(report.linesBefore) → \(report.linesAfter) lines, \(report.bytesBefore) → \(report.bytesAfter) bytes")
            case .json:
                try JSONOutput.print(CompactOutput(book: directory, linesBefore: report.linesBefore, linesAfter: report.linesAfter,
                                                   bytesBefore: report.bytesBefore, bytesAfter: report.bytesAfter))
            }
        }
    }
}

/// `--format json` output of `compact`.
struct CompactOutput: Encodable {
    var schemaVersion = 1
    var command = "compact"
    var book: String
    var linesBefore: Int
    var linesAfter: Int
    var bytesBefore: Int64
    var bytesAfter: Int64
}
