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
            let report = try await BookSession.open(directory, addingMissingUIDs: addMissingUids, reportsScan: false) { book in
                await book.openingScan ?? ScanReport()
            }
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

/// A journal event in command output (without card text or checksum).
struct EventOutput: Encodable {
    var seq: Int
    var time: String
    var op: String
    var uid: String
    var file: String
    var previousFile: String?
    var name: String?
    var source: String
    var hash: String?
    var previousHash: String?
    var restoredSeq: Int?
    var duplicateOf: String?

    init(_ event: JournalEvent) {
        seq = event.sequence
        time = event.time
        op = event.operation.rawValue
        uid = event.uid
        file = event.file
        previousFile = event.previousFile
        name = event.name
        source = event.source.rawValue
        hash = event.hash?.hexDigits
        previousHash = event.previousHash?.hexDigits
        restoredSeq = event.restoredSequence
        duplicateOf = event.duplicateOf
    }
}

/// A store problem in command output.
struct ProblemOutput: Encodable {
    var code: String
    var file: String
    var line: Int?
    var message: String

    init(_ problem: StoreProblem) {
        code = problem.code
        file = problem.file
        line = problem.line
        message = problem.message
    }
}

/// Opening an address book from a command: errors become exit statuses, and what the opening
/// scan found is reported on standard error.
enum BookSession {
    static func open<Result: Sendable>(_ directory: String, scanning: Bool = true, addingMissingUIDs: Bool = false,
                                       reportsScan: Bool = true,
                                       _ body: (AddressBook) async throws -> Result) async throws -> Result {
        do {
            let options = AddressBook.OpenOptions(scans: scanning, addsMissingUIDs: addingMissingUIDs)
            return try await AddressBook.withOpen(at: URL(fileURLWithPath: directory), options: options) { book in
                for note in await book.openingNotes { StandardError.print("cardsync: note: \(note)") }
                if reportsScan, let scan = await book.openingScan {
                    printProblems(scan.problems, directory: directory)
                    if !scan.isUnchanged {
                        StandardError.print("cardsync: note: \(directory): recorded changes made outside cardsync: \(summary(of: scan)) (see `cardsync log \(directory)`)")
                    }
                }
                return try await body(book)
            }
        } catch let error as ContactStoreError {
            throw CommandFailure(error)
        }
    }

    /// `2 added, 1 edited, 0 renamed, 1 deleted`.
    static func summary(of report: ScanReport) -> String {
        "\(report.count(.add)) added, \(report.count(.update)) edited, \(report.count(.rename)) renamed, \(report.count(.delete)) deleted"
            + " (\(report.filesSeen) file\(report.filesSeen == 1 ? "" : "s"), \(report.filesRead) read)"
    }

    static func printProblems(_ problems: [StoreProblem], directory: String) {
        for problem in problems {
            let location = directory + "/" + problem.file
            StandardError.print("\(location)\(problem.line.map { ":\($0)" } ?? ""): warning: \(problem.message) [\(problem.code)]")
        }
    }

    /// One event as a line of text: `#12  2025-05-01 09:30:00Z  update  Ada Lovelace <uid>  ada.vcf  (folder)`.
    static func line(for event: JournalEvent) -> String {
        let time = String(event.time.prefix(19)).replacingOccurrences(of: "T", with: " ") + "Z"
        var text = "#\(event.sequence)  \(time)  \(event.operation.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0))  "
        text += (event.name.map { "\($0) " } ?? "") + "<\(event.uid)>  \(event.file)"
        if let previous = event.previousFile { text += " (was \(previous))" }
        text += "  [\(event.source.rawValue)]"
        if let restored = event.restoredSequence { text += " version of #\(restored)" }
        if let kept = event.duplicateOf { text += " duplicate of <\(kept)>" }
        return text
    }
}

extension CommandFailure {
    /// The exit status and message for a store error.
    init(_ error: ContactStoreError) {
        let status: ExitCode
        switch error.code {
        case .missingInput, .notAnAddressBook: status = ExitStatus.missingInput
        case .journalDamaged, .invalidInput, .unsupportedJournal: status = ExitStatus.invalidData
        case .io: status = ExitStatus.ioError
        default: status = ExitCode.failure
        }
        self.init(message: error.description, exitCode: status)
    }
}
