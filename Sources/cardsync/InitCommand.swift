import ArgumentParser
import ContactStore
import Foundation

/// `cardsync init`: makes a folder an address book.
struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Make a folder an address book: one contact per .vcf file, and a journal of every version.",
        discussion: """
        The folder may be new or already hold .vcf files (an existing vdir, an export): those become \
        the book's contacts without being rewritten. Cards without a UID get a generated one, recorded \
        in the journal; --add-missing-uids also writes it into their files. The journal and settings \
        live in DIR/.cardsync (readable only by you).

        Examples:
          cardsync init ~/contacts
          cardsync init ~/.local/share/vdirsyncer/contacts --add-missing-uids
        """
    )

    @Argument(help: "The folder to make an address book (created if missing).")
    var directory: String

    @Flag(help: "Write the generated UID into contact files that have none (one-card files only).")
    var addMissingUids = false

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    func run() async throws {
        try await reportingFailures {
            do {
                try AddressBook.create(at: URL(fileURLWithPath: directory))
            } catch let error as ContactStoreError {
                throw CommandFailure(error)
            }
            let (report, count) = try await BookSession.open(directory, addingMissingUIDs: addMissingUids, reportsScan: false) { book in
                (await book.openingScan ?? ScanReport(), await book.contactCount)
            }
            BookSession.printProblems(report.problems, directory: directory)
            switch format {
            case .text:
                print("Initialized address book \(directory): \(count) contact\(count == 1 ? "" : "s") from \(report.filesSeen) file\(report.filesSeen == 1 ? "" : "s")"
                      + (report.problems.isEmpty ? "" : "; \(report.problems.count) problem\(report.problems.count == 1 ? "" : "s") reported above"))
            case .json:
                try JSONOutput.print(ScanOutput(directory: directory, report: report, command: "init"))
            }
        }
    }
}
