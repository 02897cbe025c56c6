import ArgumentParser
import VCardKit

/// `cardsync convert`: rewrites cards in another vCard version, losing nothing.
struct ConvertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert contacts between vCard versions without losing any property.",
        discussion: """
        The input version is detected per card. Converting a card to its own version writes it \
        back byte for byte. What the target version lacks is kept and reported on standard error. \
        Cards that cannot be read are reported and left out; the exit status is then 65.

        Examples:
          cardsync convert old-export.vcf --to vcard4 -o contacts.vcf
          cat contacts.vcf | cardsync convert - --to vcard3 > contacts-3.0.vcf
        """
    )

    /// The formats `--to` accepts.
    enum Target: String, ExpressibleByArgument, CaseIterable {
        case vcard3, vcard4

        var version: VCardVersion { self == .vcard3 ? .v3_0 : .v4_0 }
    }

    @Argument(help: "The input file ('-' for standard input).")
    var input: String

    @Option(help: "The output format: vcard3 or vcard4.")
    var to: Target

    @Option(name: .shortAndLong, help: "The output file ('-' or omitted: standard output).")
    var output: String?

    @Flag(help: "Write every card in canonical form, even cards already in the target version.")
    var canonical = false

    func run() async throws {
        try await reportingFailures {
            let sink = try ByteSink(path: output)
            let writer = VCardWriter(target: to.version, preservesOriginalFormatting: !canonical)
            var notes: [Diagnostic] = []
            var buffer: [UInt8] = []
            buffer.reserveCapacity(1 << 20)
            let summary = try CardInput.read(input) { card throws(CommandFailure) in
                let cardNotes = writer.write(card, into: &buffer)
                if !cardNotes.isEmpty { notes.append(contentsOf: cardNotes) }
                if buffer.count >= 1 << 20 {
                    try sink.write(buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            try sink.write(buffer)
            try sink.commit()
            let all = summary.diagnostics + notes
            if !all.isEmpty {
                let printer = DiagnosticPrinter(usesColor: StandardError.isTerminal)
                StandardError.print(printer.render(all, path: input).trimmingTrailingNewline)
            }
            if summary.errors > 0 { throw ExitStatus.invalidData }
        }
    }
}

extension String {
    var trimmingTrailingNewline: String {
        hasSuffix("\n") ? String(dropLast()) : self
    }
}
