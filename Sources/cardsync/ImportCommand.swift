import ArgumentParser
import ContactStore
import Foundation
import VCardKit

/// `cardsync import`: adds contacts from files to an address book, skipping exact duplicates.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add contacts from vCard, jCard or xCard files to an address book, skipping duplicates.",
        discussion: """
        Each new contact becomes one file named after its UID (or a fresh UUID when the UID is not a \
        safe file name). A card whose content is already in the book — whatever its folding, case, \
        parameter order or vCard version — is reported and skipped (--on-duplicate keep imports it \
        anyway). An interrupted import, run again, finishes without duplicates. A card whose UID is \
        already in the book with other content becomes that contact's new version; the old version \
        stays in the journal (`cardsync restore`). Folders are searched for .vcf, .json and .xml files.

        Examples:
          cardsync import phone-export.vcf --into ~/contacts
          cat google.vcf | cardsync import - --into ~/contacts --format json
        """
    )

    @Argument(help: "Files or folders to import ('-' reads standard input).")
    var sources: [String]

    @Option(help: "The address book folder.")
    var into: String

    /// The choices `--on-duplicate` accepts.
    enum OnDuplicate: String, ExpressibleByArgument, CaseIterable {
        case skip, keep

        var policy: DuplicatePolicy { self == .skip ? .skip : .keep }
    }

    @Option(help: "What to do with a card whose content is already in the book: skip or keep.")
    var onDuplicate: OnDuplicate = .skip

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    func run() async throws {
        HeapTuning.keepLargeBuffersOutOfTheHeap()
        try await reportingFailures {
            let (files, missing) = InputPaths.expand(sources)
            guard missing.isEmpty else {
                throw CommandFailure.missingInput("\(missing.joined(separator: ", ")): no such file or folder; nothing was imported")
            }
            let progress = ProgressBar(format: format)
            let report = try await importing(files, progress: progress)
            progress.finish()
            printDiagnostics(report)
            for duplicate in report.duplicates {
                let what = duplicate.isSameContact ? "already in the book" : "same content as <\(duplicate.existingUID)> in \(duplicate.existingFile)"
                StandardError.print("\(duplicate.source):\(duplicate.line): note: duplicate skipped: \(what) [duplicate]")
            }
            for change in report.reassignedUIDs {
                StandardError.print("\(change.source):\(change.line): warning: UID \(change.original) appears twice in this import; this card was imported as <\(change.assigned)> [uid-reassigned]")
            }
            for problem in report.problems {
                StandardError.print(TerminalText.escaped("\(problem.file)\(problem.line.map { ":\($0)" } ?? ""): error: \(problem.message) [\(problem.code)]"))
            }
            switch format {
            case .text:
                print("Imported \(report.added) contact\(report.added == 1 ? "" : "s") into \(into) from \(report.cardsRead) card\(report.cardsRead == 1 ? "" : "s")"
                      + (report.updated.isEmpty ? "" : ", updated \(report.updated.count)")
                      + "; skipped \(report.duplicates.count) duplicate\(report.duplicates.count == 1 ? "" : "s").")
            case .json:
                try JSONOutput.print(ImportOutput(book: into, report: report))
            }
            if report.hasErrors { throw ExitStatus.invalidData }
        }
    }

    private func importing(_ files: [String], progress: ProgressBar) async throws -> ImportReport {
        let sources: [ContactSource] = files.map { $0 == "-" ? ContactSource.standardInput : ContactSource.file($0) }
        let policy = onDuplicate.policy
        // The index's snapshot is saved a part at a time: an import's peak memory is at that save.
        return try await BookSession.open(into, progress: progress, savingIndexOnOneCore: true) { book in
            try await book.importContacts(from: sources, onDuplicate: policy, progress: progress.reporter(Self.step))
        }
    }

    /// The progress of one source: by bytes when its size is known, else by cards.
    @Sendable private static func step(_ progress: ImportProgress) -> ProgressBar.Step {
        let phase = "importing " + (progress.source == "-" ? "standard input" : URL(fileURLWithPath: progress.source).lastPathComponent)
        let counts = "\(progress.added) added, \(progress.duplicates) duplicate\(progress.duplicates == 1 ? "" : "s")"
        guard let total = progress.totalBytes else {
            return ProgressBar.Step(phase: phase, done: progress.cardsRead, unit: .items("cards"), detail: counts)
        }
        return ProgressBar.Step(phase: phase, done: progress.bytesRead, total: total, unit: .bytes,
                                detail: "\(progress.cardsRead) cards, " + counts)
    }

    private func printDiagnostics(_ report: ImportReport) {
        guard !report.diagnostics.isEmpty else { return }
        let printer = DiagnosticPrinter(usesColor: StandardError.isTerminal, limitPerCode: 5)
        var bySource: [String: [Diagnostic]] = [:]
        for diagnostic in report.diagnostics { bySource[diagnostic.location.source, default: []].append(diagnostic) }
        for (source, diagnostics) in bySource.sorted(by: { $0.key < $1.key }) {
            StandardError.print(printer.render(diagnostics, path: source).trimmingTrailingNewline)
        }
    }
}

/// `--format json` output of `import`.
struct ImportOutput: Encodable {
    struct Duplicate: Encodable {
        var source: String
        var line: Int
        var uid: String?
        var existingUID: String
        var existingFile: String
    }

    struct Reassigned: Encodable {
        var source: String
        var line: Int
        var original: String
        var assigned: String
    }

    var schemaVersion = 1
    var command = "import"
    var book: String
    var cardsRead: Int
    var added: Int
    var updated: [String]
    var duplicates: [Duplicate]
    var reassignedUIDs: [Reassigned]
    var diagnostics: [DiagnosticOutput]
    var problems: [ProblemOutput]

    init(book: String, report: ImportReport) {
        self.book = book
        cardsRead = report.cardsRead
        added = report.added
        updated = report.updated
        duplicates = report.duplicates.map { Duplicate(source: $0.source, line: $0.line, uid: $0.uid, existingUID: $0.existingUID, existingFile: $0.existingFile) }
        reassignedUIDs = report.reassignedUIDs.map { Reassigned(source: $0.source, line: $0.line, original: $0.original, assigned: $0.assigned) }
        diagnostics = report.diagnostics.map(DiagnosticOutput.init)
        problems = report.problems.map(ProblemOutput.init)
    }
}
