import JSONText

/// A streaming jCard reader: feed it bytes in chunks of any size and take cards as each one is
/// complete. Memory is bounded by the largest card (``VCardReadOptions/maximumCardBytes``) plus
/// one chunk, not by the document.
///
/// ```swift
/// var parser = JCardParser(sourceName: "contacts.json")
/// for chunk in chunks {
///     parser.feed(chunk)
///     while let card = parser.nextCard() { handle(card) }
/// }
/// parser.finish()
/// while let card = parser.nextCard() { handle(card) }
/// for diagnostic in parser.takeDiagnostics() { print(diagnostic) }
/// ```
///
/// The JSON is read by JSONText's incremental reader: a document that is an array of cards is
/// taken element by element, each element read by the same strict JSON parser as a whole
/// document, so problems are reported with the same messages and the same line and column of
/// the file. A single `["vcard", [...]]` document is one card, within the card limit. A card
/// larger than the limit is reported (`limit-exceeded`, where it starts) and passed over without
/// being kept; the cards after it are read. Broken JSON stops reading where it is found; the
/// cards before it have been returned.
public struct JCardParser: Sendable {
    /// The name used in diagnostics.
    public let sourceName: String
    /// The reading options: strictness, ``VCardReadOptions/maximumCardBytes`` and
    /// ``VCardReadOptions/maximumCards``.
    public let options: VCardReadOptions

    private enum Mode: Sendable {
        /// Before the first event: the top level decides.
        case start
        /// Inside the top-level array: each element is a card (unless the first is "vcard").
        case cards
        /// Inside a single `["vcard", [...]]` card: its parts are collected.
        case singleCard
        /// The top level is not an array: read to its end to tell broken JSON from a document
        /// that is not jCard.
        case notCards
        /// Reading ended: the document is complete, broken, or a limit or strict violation stopped it.
        case stopped
    }

    /// The deepest JSON nesting a jCard document may have (a card is three levels deep, a
    /// structured value five).
    static let maximumDepth = 64

    private var reader: JSONStreamReader
    private var mode = Mode.start
    /// Where the top-level array opens (a single card's location).
    private var documentStart = JSONPosition.start
    private var singleCardParts: [JSONValue] = []
    /// The number of elements of the top-level array met so far.
    private var elements = 0
    private var sawError = false
    private var isFinished = false
    private var ready = HandOffQueue<VCard>()
    private var diagnostics: [Diagnostic] = []
    private var strictFailure: Diagnostic?

    /// Creates a parser.
    /// - Parameters:
    ///   - sourceName: the name diagnostics use for the input (a path, or `-`).
    ///   - options: lenient (default) or strict reading, and size limits.
    public init(sourceName: String = "<input>", options: VCardReadOptions = .lenient) {
        self.sourceName = sourceName
        self.options = options
        reader = JSONStreamReader(options: Self.jsonOptions(options))
    }

    /// How jCard's JSON is read: nesting within ``maximumDepth``, each card within
    /// ``VCardReadOptions/maximumCardBytes``, a UTF-8 byte order mark allowed, and a lone UTF-16
    /// surrogate read as U+FFFD.
    static func jsonOptions(_ options: VCardReadOptions) -> JSONReadingOptions {
        JSONReadingOptions(maximumDepth: maximumDepth, maximumBytes: options.maximumCardBytes, allowsByteOrderMark: true,
                           replacesLoneSurrogates: true)
    }

    /// Adds the next chunk of input.
    public mutating func feed(_ chunk: some Collection<UInt8>) {
        precondition(!isFinished, "feed(_:) after finish()")
        guard mode != .stopped else { return }
        reader.feed(chunk)
        read()
    }

    /// Marks the end of input: reads what is left and reports a document that is not complete.
    public mutating func finish() {
        guard !isFinished else { return }
        isFinished = true
        guard mode != .stopped else { return }
        reader.finish()
        read()
        mode = .stopped
    }

    /// The next complete card, or `nil` when none is ready yet.
    public mutating func nextCard() -> VCard? {
        ready.next()
    }

    /// Returns and forgets the diagnostics collected so far.
    public mutating func takeDiagnostics() -> [Diagnostic] {
        defer { diagnostics.removeAll() }
        return diagnostics
    }

    /// The first deviation met in strict mode; reading stops there.
    public var strictViolation: Diagnostic? { strictFailure }

    // MARK: - Reading

    /// Takes events as far as the input goes.
    private mutating func read() {
        while mode != .stopped {
            let event: JSONEvent?
            do throws(JSONError) {
                event = mode == .cards || mode == .singleCard ? try reader.nextValue() : try reader.next()
            } catch {
                take(error)
                continue
            }
            guard let event else { return }
            take(event)
        }
    }

    private mutating func take(_ event: JSONEvent) {
        switch (mode, event) {
        case (.start, .startArray):
            // The top-level array: its first element tells a single card from an array of cards.
            documentStart = reader.eventPosition
            mode = .cards
        case (.start, _):
            mode = .notCards
            if event == .endOfDocument { take(event) }
        case (.cards, .value(let value)):
            if elements == 0 && singleCardParts.isEmpty && value == .string("vcard") {
                mode = .singleCard
                singleCardParts = [value]
                return
            }
            elements += 1
            takeCard(value, number: elements, at: reader.eventPosition)
        case (.cards, .endOfDocument):
            if elements == 0 && !sawError {
                report(.warning, .emptyInput, "the jCard document holds no card", at: .start)
            }
            mode = .stopped
        case (.singleCard, .value(let value)):
            singleCardParts.append(value)
        case (.singleCard, .endOfDocument):
            elements = 1
            takeCard(.array(singleCardParts), number: 1, at: documentStart)
            mode = .stopped
        case (.notCards, .endOfDocument):
            report(.error, .notJCard, "a jCard document is [\"vcard\", [...]] or an array of them", at: .start)
            mode = .stopped
        default:
            // The top-level array's end (the document's end follows), or the inside of a document
            // that is not jCard.
            break
        }
    }

    private mutating func take(_ error: JSONError) {
        guard error.code == .tooLarge else {
            report(.error, .invalidJSON, "not valid JSON: \(error.message)", at: error.position)
            mode = .stopped
            return
        }
        if mode == .cards {
            // The reader passes over the rest of the card; the cards after it are read. Reported
            // at the line the card starts on.
            elements += 1
            report(.error, .limitExceeded, "card \(elements) is larger than \(options.maximumCardBytes) bytes; it was skipped",
                   at: JSONPosition(offset: error.position.offset, line: error.position.line, column: 1))
        } else {
            report(.error, .limitExceeded, "the card is larger than \(options.maximumCardBytes) bytes; it was skipped",
                   at: documentStart)
            mode = .stopped
        }
    }

    private mutating func takeCard(_ value: JSONValue, number: Int, at position: JSONPosition) {
        if number > options.maximumCards {
            report(.error, .limitExceeded, "more than \(options.maximumCards) cards; the rest were not read", at: position)
            mode = .stopped
            return
        }
        let location = SourceLocation(source: sourceName, line: position.line, column: position.column)
        var notes: [(Diagnostic.Severity, Diagnostic.Code, String)] = []
        let card = JCardReader.card(from: value, number: number, location: location) { notes.append(($0, $1, $2)) }
        for (severity, code, message) in notes {
            report(severity, code, message, at: position)
        }
        if let card, strictFailure == nil { ready.append(card) }
    }

    private mutating func report(_ severity: Diagnostic.Severity, _ code: Diagnostic.Code, _ message: String, at position: JSONPosition) {
        let diagnostic = Diagnostic(severity: options.isStrict ? .error : severity, code: code, message: message,
                                    location: SourceLocation(source: sourceName, line: position.line, column: position.column))
        if diagnostic.severity == .error { sawError = true }
        diagnostics.append(diagnostic)
        if options.isStrict && strictFailure == nil {
            strictFailure = diagnostic
            mode = .stopped
        }
    }
}
