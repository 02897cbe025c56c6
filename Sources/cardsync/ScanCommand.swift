import ArgumentParser
import ContactStore
import Foundation
import VCardKit

/// `cardsync scan`: records the changes other programs made to an address book's folder.
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Record the contacts other programs added, edited, renamed or deleted in an address book.",
        discussion: """
        Every command that reads an address book scans it first; `scan` only scans. Files whose \
        size, times and inode are unchanged are not read; the others are read and hashed, so a file \
        that was only touched records nothing. A file that cannot be read is reported and left alone.

        Examples:
          cardsync scan ~/contacts
          cardsync scan ~/contacts --add-missing-uids --format json
        """
    )

    @Argument(help: "The address book folder.")
    var directory: String

    @Flag(help: "Write the generated UID into contact files that have none (one-card files only).")
    var addMissingUids = false

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    func run() async throws {
        try await reportingFailures {
            let progress = ProgressBar(format: format)
            let report = try await BookSession.open(directory, addingMissingUIDs: addMissingUids, reportsScan: false,
                                                    progress: progress) { book in
                await book.openingScan ?? ScanReport()
            }
            progress.finish()
            BookSession.printProblems(report.problems, directory: directory)
            switch format {
            case .text:
                print(BookSession.summary(of: report))
                for event in report.events { print(BookSession.line(for: event)) }
            case .json:
                try JSONOutput.print(ScanOutput(directory: directory, report: report))
            }
        }
    }
}

/// `--format json` output of `scan` (and the `scan` member of `init`).
struct ScanOutput: Encodable {
    var schemaVersion = 1
    var command = "scan"
    var book: String
    var filesSeen: Int
    var filesRead: Int
    var added: Int
    var updated: Int
    var renamed: Int
    var deleted: Int
    var events: [EventOutput]
    var problems: [ProblemOutput]
    var filesGivenUIDs: [String]

    init(directory: String, report: ScanReport, command: String = "scan") {
        self.command = command
        book = directory
        filesSeen = report.filesSeen
        filesRead = report.filesRead
        added = report.count(.add)
        updated = report.count(.update)
        renamed = report.count(.rename)
        deleted = report.count(.delete)
        events = report.events.map(EventOutput.init)
        problems = report.problems.map(ProblemOutput.init)
        filesGivenUIDs = report.filesGivenUIDs
    }
}

