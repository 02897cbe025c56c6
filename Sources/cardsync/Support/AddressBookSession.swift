import ArgumentParser
import ContactStore
import Foundation
import VCardKit

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
    var remote: String?
    var rev: String?

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
        remote = event.remote
        rev = event.remoteRevision
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

/// Opening an address book from a command: errors become exit statuses, what the opening
/// scan found is reported on standard error, and `progress` (when given) shows the scan reading
/// files.
enum BookSession {
    /// - Parameters:
    ///   - savingIndexOnOneCore: see ``AddressBook/OpenOptions/savesIndexOnOneCore``.
    ///   - indexOpened: see ``AddressBook/OpenOptions/indexOpened``.
    static func open<Result: Sendable>(_ directory: String, scanning: Bool = true, addingMissingUIDs: Bool = false,
                                       reportsScan: Bool = true, progress: ProgressBar? = nil, savingIndexOnOneCore: Bool = false,
                                       indexOpened: (@Sendable (AddressBook.IndexOpening) -> Void)? = nil,
                                       _ body: (AddressBook) async throws -> Result) async throws -> Result {
        do {
            var options = AddressBook.OpenOptions(scans: scanning, addsMissingUIDs: addingMissingUIDs,
                                                  scanProgress: progress?.reporter(scanStep))
            options.indexOpened = indexOpened
            // A command exits soon after closing its book: the system takes the index's memory back then.
            options.keepsIndexUntilExit = true
            options.savesIndexOnOneCore = savingIndexOnOneCore
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

    /// The progress of a scan: files read of the files to read.
    @Sendable static func scanStep(_ progress: BookProgress) -> ProgressBar.Step {
        ProgressBar.Step(phase: "scanning", done: progress.done, total: progress.total, unit: .items("files"))
    }

    /// `2 added, 1 edited, 0 renamed, 1 deleted`.
    static func summary(of report: ScanReport) -> String {
        "\(report.count(.add)) added, \(report.count(.update)) edited, \(report.count(.rename)) renamed, \(report.count(.delete)) deleted"
            + " (\(report.filesSeen) file\(report.filesSeen == 1 ? "" : "s"), \(report.filesRead) read)"
    }

    static func printProblems(_ problems: [StoreProblem], directory: String) {
        for problem in problems {
            let location = directory + "/" + problem.file
            StandardError.print(TerminalText.escaped("\(location)\(problem.line.map { ":\($0)" } ?? ""): warning: \(problem.message) [\(problem.code)]"))
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
        self.init(message: error.description, exitCode: status, path: error.path)
    }
}
