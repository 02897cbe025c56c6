import ArgumentParser
import ContactStore
import Foundation
import VCardKit

/// `cardsync export`: writes an address book's contacts as one file or one file per contact.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write an address book's contacts as vCard 3.0, vCard 4.0, jCard or xCard.",
        discussion: """
        A card already in the target version is copied byte for byte; others are converted without \
        losing properties (what the target version lacks is kept and noted on standard error). \
        Files are written atomically.

        Examples:
          cardsync export ~/contacts --to vcard4 -o all.vcf
          cardsync export ~/contacts --to jcard -o - | jq length
          cardsync export ~/contacts --to vcard3 --split old-phone/
        """
    )

    @Argument(help: "The address book folder.")
    var directory: String

    /// The formats `--to` accepts.
    enum Target: String, ExpressibleByArgument, CaseIterable {
        case vcard3, vcard4, jcard, xcard

        var format: ExportFormat { ExportFormat(rawValue: rawValue)! }
    }

    @Option(help: "The output format: vcard3, vcard4, jcard or xcard.")
    var to: Target

    @Option(name: .shortAndLong, help: "The output file ('-' for standard output).")
    var output: String?

    @Option(help: "Write one file per contact into this folder instead.")
    var split: String?

    func validate() throws {
        guard (output == nil) != (split == nil) else {
            throw ValidationError("give either -o FILE (or -o - for standard output) or --split FOLDER")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let destination: ExportDestination = split.map { .split($0) } ?? .file(output ?? "-")
            let progress = ProgressBar(format: .text, writesToStandardOutput: destination == .file("-"))
            let report = try await BookSession.open(directory, progress: progress) { book in
                try await book.exportContacts(as: to.format, to: destination, progress: progress.reporter { step in
                    ProgressBar.Step(phase: "exporting", done: step.done, total: step.total, unit: .items("contacts"))
                })
            }
            progress.finish()
            if !report.notes.isEmpty {
                let printer = DiagnosticPrinter(usesColor: StandardError.isTerminal, limitPerCode: 5)
                StandardError.print(printer.render(report.notes, path: "-").trimmingTrailingNewline)
            }
            if split != nil || output != "-" {
                StandardError.print("cardsync: exported \(report.contacts) contact\(report.contacts == 1 ? "" : "s") to \(split ?? output ?? "-")")
            }
        }
    }
}
