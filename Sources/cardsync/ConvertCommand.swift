import ArgumentParser
import VCardKit
import VCardXML

/// `cardsync convert`: rewrites cards in another vCard version, losing nothing.
struct ConvertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert contacts between vCard versions without losing any property.",
        discussion: """
        The input format (vCard, jCard or xCard) is detected from the content, and the vCard \
        version per card. Converting a card to its own version writes it \
        back byte for byte. What the target version lacks is kept and reported on standard error. \
        Cards that cannot be read are reported and left out; the exit status is then 65.

        Examples:
          cardsync convert old-export.vcf --to vcard4 -o contacts.vcf
          cat contacts.vcf | cardsync convert - --to vcard3 > contacts-3.0.vcf
          cardsync convert contacts.vcf --to xcard -o contacts.xml
        """
    )

    /// The formats `--to` accepts.
    enum Target: String, ExpressibleByArgument, CaseIterable {
        case vcard3, vcard4, jcard, xcard

        var version: VCardVersion { self == .vcard3 ? .v3_0 : .v4_0 }
    }

    @Argument(help: "The input file ('-' for standard input).")
    var input: String

    @Option(help: "The output format: vcard3, vcard4, jcard (RFC 7095) or xcard (RFC 6351).")
    var to: Target

    @Option(name: .shortAndLong, help: "The output file ('-' or omitted: standard output).")
    var output: String?

    @Flag(help: "Write every card in canonical form, even cards already in the target version.")
    var canonical = false

    func run() async throws {
        try await reportingFailures {
            let sink = try ByteSink(path: output)
            let progress = ProgressBar(format: .text, writesToStandardOutput: output == nil || output == "-")
            let summary: CardInput.Summary
            switch to {
            case .vcard3, .vcard4:
                // Cards are written as parts of a file: with the blank lines between them as read.
                let writer = VCardWriter(target: to.version, preservesOriginalFormatting: !canonical)
                // Cards are checked as read, not built: a card already in the target version is
                // copied as read, and of another only the lines that conversion changes are built.
                var options = VCardReadOptions.lenient
                if !canonical { options.deferredVersions = [.v3_0, .v4_0] }
                summary = try CardInput.process(input, options: options, progress: progress, render: { card, bytes in
                    writer.write(card, asPartOfFile: true, into: &bytes)
                }, output: { bytes throws(CommandFailure) in try sink.write(bytes) })
                var end: [UInt8] = []
                writer.write(blankLinesAtEnd: summary.blankLinesAtEnd, into: &end)
                try sink.write(end)
            case .jcard:
                // A JSON array of cards, written card by card.
                try sink.write("[\n")
                summary = try CardInput.process(input, progress: progress, render: { card, bytes in
                    bytes += JCardWriter.element(for: card)
                    bytes += Array(",\n".utf8)
                    return JCardWriter().notes(for: card)
                }, output: { bytes throws(CommandFailure) in try sink.write(bytes) })
                try sink.removeTrailingSeparator(",\n")
                try sink.write("\n]\n")
            case .xcard:
                let stream = XCardStreamWriter()
                try sink.write(stream.begin())
                summary = try CardInput.process(input, progress: progress, render: { card, bytes in
                    bytes += stream.write(card)
                    return []
                }, output: { bytes throws(CommandFailure) in try sink.write(bytes) })
                try sink.write(stream.end())
            }
            try sink.commit()
            progress.finish()
            if !summary.diagnostics.isEmpty {
                let printer = DiagnosticPrinter(usesColor: StandardError.isTerminal, limitPerCode: 5)
                StandardError.print(printer.render(summary.diagnostics, path: input).trimmingTrailingNewline)
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
