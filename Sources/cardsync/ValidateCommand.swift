import ArgumentParser
import Foundation
import JSONText
import VCardKit
import VCardXML

/// `cardsync validate`: reads every card of every file and reports what is wrong, like a compiler.
struct ValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check vCard files and report every problem with its file, line and column.",
        discussion: """
        Folders are searched recursively. Exit status: 0 when there are no errors (warnings are \
        allowed unless --strict), 65 when a file holds invalid data, 66 when a path does not exist.

        Examples:
          cardsync validate contacts.vcf
          cardsync validate ~/contacts --strict --format json
        """
    )

    @Argument(help: "Files or folders to check ('-' reads standard input).")
    var paths: [String]

    @Flag(help: "Treat every deviation from the RFCs as an error.")
    var strict = false

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    func run() async throws {
        try await reportingFailures {
            let (files, missing) = InputPaths.expand(paths)
            var summaries: [CardInput.Summary] = []
            for path in files {
                do {
                    var summary = try CardInput.process(path, options: Self.readOptions, render: { _, _ in [] }, output: { _ in })
                    summary.diagnostics += schemaProblems(path, format: summary.format)
                    if strict {
                        for index in summary.diagnostics.indices { summary.diagnostics[index].severity = .error }
                    }
                    summaries.append(summary)
                } catch let failure as CommandFailure where failure.exitCode == ExitStatus.missingInput {
                    summaries.append(CardInput.Summary(path: path))
                    StandardError.print("cardsync: error: \(failure.message)")
                }
            }
            for path in missing {
                StandardError.print("cardsync: error: \(path): no such file or folder")
            }
            switch format {
            case .text: printText(summaries, missing: missing)
            case .json: try printJSON(summaries, missing: missing)
            }
            if !missing.isEmpty { throw ExitStatus.missingInput }
            if summaries.contains(where: { $0.errors > 0 }) { throw ExitStatus.invalidData }
        }
    }

    /// How cards are read: as validation reads them (see ``VCardReadOptions/validation``); the
    /// cards are only checked, so 3.0 and 4.0 cards are never built.
    static let readOptions: VCardReadOptions = {
        var options = VCardReadOptions.validation
        options.deferredVersions = [.v3_0, .v4_0]
        return options
    }()

    /// The largest jCard or xCard file checked against its schema.
    static let maximumSchemaCheckBytes = 64 << 20

    /// jCard and xCard inputs are also checked against `Schemas/jcard.schema.json` and
    /// `Schemas/xcard.rng`; what they find are warnings (errors under `--strict`).
    private func schemaProblems(_ path: String, format: ContactFormat) -> [Diagnostic] {
        guard format != .vcard else { return [] }
        let schemaName = format == .jcard ? "jcard.schema.json" : "xcard.rng"
        guard let schemaPath = SchemaFiles.path(schemaName) else {
            return [Diagnostic(severity: .warning, code: "schema-not-found",
                               message: "Schemas/\(schemaName) was not found, so the schema check was skipped (set CARDSYNC_SCHEMAS to the Schemas folder)",
                               location: SourceLocation(source: path, line: 1, column: 1))]
        }
        guard path != "-" else { return [] }
        // The schema checks hold the whole document in memory; past a size they are left out.
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > Self.maximumSchemaCheckBytes {
            return [Diagnostic(severity: .warning, code: "schema-check-skipped",
                               message: "the file is larger than \(Self.maximumSchemaCheckBytes >> 20) MiB, so the schema check (which reads it whole) was skipped; its cards were read and checked",
                               location: SourceLocation(source: path, line: 1, column: 1))]
        }
        guard let bytes = FileManager.default.contents(atPath: path).map(Array.init) else { return [] }
        var problems: [Diagnostic]
        do {
            if format == .jcard {
                let schema = try JSONSchema(parsing: Array(FileManager.default.contents(atPath: schemaPath) ?? Data()))
                // A document that is not JSON is reported by the jCard reader already.
                problems = ((try? schema.violations(in: bytes)) ?? []).map {
                    Diagnostic(severity: .warning, code: "schema-violation", message: $0,
                               location: SourceLocation(source: path, line: 1, column: 1))
                }
            } else {
                problems = try XCardSchema(contentsOf: schemaPath).validate(bytes, sourceName: path)
            }
        } catch {
            return [Diagnostic(severity: .warning, code: "schema-unusable", message: "\(error)",
                               location: SourceLocation(source: path, line: 1, column: 1))]
        }
        problems = problems.filter { $0.code.rawValue == "schema-violation" }
        for index in problems.indices {
            problems[index].severity = .warning
        }
        return problems
    }

    private func printText(_ summaries: [CardInput.Summary], missing: [String]) {
        let printer = DiagnosticPrinter(usesColor: StandardError.isTerminal && isatty(1) == 1)
        var output = ""
        for summary in summaries where !summary.diagnostics.isEmpty {
            output += printer.render(summary.diagnostics, path: summary.path)
        }
        let cards = summaries.reduce(0) { $0 + $1.cards }
        let errors = summaries.reduce(0) { $0 + $1.errors }
        let warnings = summaries.reduce(0) { $0 + $1.warnings }
        output += "\(summaries.count) file\(summaries.count == 1 ? "" : "s"), \(cards) card\(cards == 1 ? "" : "s"): "
            + "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")\n"
        print(output, terminator: "")
    }

    private func printJSON(_ summaries: [CardInput.Summary], missing: [String]) throws(CommandFailure) {
        let report = ValidationReport(
            schemaVersion: 1,
            command: "validate",
            valid: missing.isEmpty && summaries.allSatisfy { $0.errors == 0 },
            files: summaries.map { .init(file: $0.path, cards: $0.cards, errors: $0.errors, warnings: $0.warnings) },
            missing: missing,
            diagnostics: summaries.flatMap { $0.diagnostics.map(DiagnosticOutput.init) },
            summary: .init(files: summaries.count, cards: summaries.reduce(0) { $0 + $1.cards },
                           errors: summaries.reduce(0) { $0 + $1.errors }, warnings: summaries.reduce(0) { $0 + $1.warnings })
        )
        try JSONOutput.print(report)
    }
}

/// The `--format json` document of `cardsync validate` (see `Schemas/cli-output.schema.json`).
struct ValidationReport: Encodable {
    struct File: Encodable { var file: String; var cards: Int; var errors: Int; var warnings: Int }
    struct Summary: Encodable { var files: Int; var cards: Int; var errors: Int; var warnings: Int }
    var schemaVersion: Int
    var command: String
    var valid: Bool
    var files: [File]
    var missing: [String]
    var diagnostics: [DiagnosticOutput]
    var summary: Summary
}
