import ArgumentParser
import ContactStore
import Foundation

/// `cardsync check`: verifies that journal, index and folder agree.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Verify that an address book's journal, index and folder agree.",
        discussion: """
        Reads every journal line (checksums, sequence), compares the index with a replay of the \
        journal (rebuilding it if they differ), and reads and hashes every contact file. Changes made \
        by other programs are recorded first, as by every command. Exit status 0 when everything \
        agrees, 1 when problems are listed. --repair sets damaged journal lines aside (in \
        .cardsync/journal.jsonl.corrupt) so the book can be opened again.

        Examples:
          cardsync check ~/contacts
          cardsync check ~/contacts --repair
        """
    )

    @Argument(help: "The address book folder.")
    var directory: String

    @Flag(help: "Move damaged journal lines to journal.jsonl.corrupt and rebuild the index.")
    var repair = false

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    func run() async throws {
        try await reportingFailures {
            var repaired: [Int] = []
            if repair {
                do {
                    let result = try AddressBook.repairJournal(at: URL(fileURLWithPath: directory))
                    repaired = result.damagedLines
                    if let file = result.corruptFile {
                        StandardError.print("cardsync: note: set aside journal line\(repaired.count == 1 ? "" : "s") \(repaired.map(String.init).joined(separator: ", ")) in \(file)")
                    }
                } catch let error as ContactStoreError {
                    throw CommandFailure(error)
                }
            }
            let report = try await BookSession.open(directory) { book in
                try await book.check()
            }
            switch format {
            case .text:
                for problem in report.problems {
                    print("\(directory)/\(problem.file)\(problem.line.map { ":\($0)" } ?? ""): \(problem.message) [\(problem.code)]")
                }
                print((report.isConsistent ? "OK: " : "\(report.problems.count) problem\(report.problems.count == 1 ? "" : "s"): ")
                      + "\(report.contacts) contacts, \(report.filesChecked) files, \(report.journalLines) journal lines")
            case .json:
                try JSONOutput.print(CheckOutput(book: directory, consistent: report.isConsistent, contacts: report.contacts,
                                                 filesChecked: report.filesChecked, journalLines: report.journalLines,
                                                 indexRebuilt: report.indexRebuilt, repairedLines: repaired,
                                                 problems: report.problems.map(ProblemOutput.init)))
            }
            if !report.isConsistent { throw ExitCode.failure }
        }
    }
}

/// `--format json` output of `check`.
struct CheckOutput: Encodable {
    var schemaVersion = 1
    var command = "check"
    var book: String
    var consistent: Bool
    var contacts: Int
    var filesChecked: Int
    var journalLines: Int
    var indexRebuilt: Bool
    var repairedLines: [Int]
    var problems: [ProblemOutput]
}
