/// What reading an input produced: the cards and the diagnostics, in input order.
public struct VCardReadResult: Sendable {
    /// The cards that were read.
    public var cards: [VCard]
    /// Warnings and errors, in the order they were found.
    public var diagnostics: [Diagnostic]
    /// The blank lines after the last card, as read (see ``VCardParser/blankLinesAtEnd``):
    /// `VCardWriter.bytes(for:)` writes them after the cards.
    public var blankLinesAtEnd: [UInt8] = []

    /// Creates a result.
    public init(cards: [VCard], diagnostics: [Diagnostic]) {
        self.cards = cards
        self.diagnostics = diagnostics
    }

    /// Whether any diagnostic is an error.
    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }
}

/// Reads whole inputs held in memory. For large files use ``VCardParser`` directly and feed it
/// chunks, so that memory stays bounded by one card.
public enum VCardReader {
    /// Reads every card of `bytes`.
    ///
    /// ```swift
    /// let result = try VCardReader.read(Array(data), sourceName: "contacts.vcf")
    /// for card in result.cards { print(card.formattedName ?? "?") }
    /// ```
    /// - Parameters:
    ///   - bytes: the input, in UTF-8 or UTF-16, any line ends.
    ///   - sourceName: the name diagnostics use.
    ///   - options: lenient (default) or strict.
    /// - Throws: ``VCardError`` with code `strictViolation` in strict mode, at the first deviation.
    public static func read(_ bytes: some Collection<UInt8>, sourceName: String = "<input>",
                            options: VCardReadOptions = .lenient) throws(VCardError) -> VCardReadResult {
        var parser = VCardParser(sourceName: sourceName, options: options)
        parser.feed(bytes)
        var result = try parser.finishReading()
        result.blankLinesAtEnd = parser.blankLinesAtEnd
        return result
    }

    /// Reads every card of a string.
    public static func read(_ text: String, sourceName: String = "<input>",
                            options: VCardReadOptions = .lenient) throws(VCardError) -> VCardReadResult {
        try read(Array(text.utf8), sourceName: sourceName, options: options)
    }
}
