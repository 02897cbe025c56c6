import VCardKit

/// Reads the cards of one input file (or standard input) in a streaming way.
enum CardInput {
    /// What reading one input produced besides its cards.
    struct Summary {
        var path: String
        var cards = 0
        var diagnostics: [Diagnostic] = []
        var errors: Int { diagnostics.count { $0.severity == .error } }
        var warnings: Int { diagnostics.count { $0.severity == .warning } }
    }

    /// Reads `path` chunk by chunk and hands each card to `body` as soon as it is complete.
    static func read(_ path: String, options: VCardReadOptions = .lenient,
                     body: (VCard) throws(CommandFailure) -> Void) throws(CommandFailure) -> Summary {
        let source = try ByteSource(path: path)
        var parser = VCardParser(sourceName: path, options: options)
        var summary = Summary(path: path)
        try source.forEachChunk { chunk throws(CommandFailure) in
            parser.feed(chunk)
            while let card = parser.nextCard() {
                summary.cards += 1
                try body(card)
            }
            summary.diagnostics.append(contentsOf: parser.takeDiagnostics())
        }
        parser.finish()
        while let card = parser.nextCard() {
            summary.cards += 1
            try body(card)
        }
        summary.diagnostics.append(contentsOf: parser.takeDiagnostics())
        return summary
    }
}
