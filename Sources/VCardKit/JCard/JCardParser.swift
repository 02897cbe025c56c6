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
/// A document that is an array of cards is scanned element by element (strings, escapes and
/// nesting taken into account); each element is then read by the same JSON parser and jCard
/// conversion as a whole document, so problems are reported with the same messages and the
/// same line and column of the file. A single `["vcard", [...]]` document is one card and is
/// read whole, within the card limit. A card larger than the limit is reported
/// (`limit-exceeded`, at its line) and passed over without being kept; the cards after it are
/// read. Broken JSON stops reading where it is found; the cards before it have been returned.
public struct JCardParser: Sendable {
    /// The name used in diagnostics.
    public let sourceName: String
    /// The reading options: strictness, ``VCardReadOptions/maximumCardBytes`` and
    /// ``VCardReadOptions/maximumCards``.
    public let options: VCardReadOptions

    private enum Mode: Sendable {
        /// Before the first byte that is not whitespace (or a byte order mark).
        case start
        /// The top level is not an array of cards: the whole document is kept and read at the end.
        case whole
        /// Inside the top-level array, reading an element.
        case element
        /// Inside the top-level array, passing over an element larger than the card limit.
        case skipping
        /// After the top-level array's `]`: only whitespace may follow.
        case trailing
        /// Reading stopped (broken JSON, too many cards, or a strict violation).
        case stopped
    }

    private var mode = Mode.start
    private var buffer: [UInt8] = []
    /// The first byte of `buffer` still needed; the bytes before it are dropped on the next feed.
    private var bufferStart = 0
    /// Where `buffer[bufferStart]` is in the document (after a byte order mark).
    private var baseLine = 1
    private var baseColumn = 1
    /// The next byte to scan, and where it is.
    private var scanIndex = 0
    private var scanLine = 1
    private var scanColumn = 1
    /// The scanner's view of the element: nesting inside it, and whether in a string.
    private var depth = 0
    private var inString = false
    private var escaped = false
    /// Where the current element's first byte that is not whitespace is, once seen.
    private var elementLine: Int?
    /// The number of elements of the top-level array met so far.
    private var elements = 0
    private var sawByteOrderCheck = false
    private var sawError = false
    private var isFinished = false
    private var ready: [VCard] = []
    private var readyIndex = 0
    private var diagnostics: [Diagnostic] = []
    private var strictFailure: Diagnostic?

    /// Creates a parser.
    /// - Parameters:
    ///   - sourceName: the name diagnostics use for the input (a path, or `-`).
    ///   - options: lenient (default) or strict reading, and size limits.
    public init(sourceName: String = "<input>", options: VCardReadOptions = .lenient) {
        self.sourceName = sourceName
        self.options = options
    }

    /// Adds the next chunk of input.
    public mutating func feed(_ chunk: some Collection<UInt8>) {
        precondition(!isFinished, "feed(_:) after finish()")
        if mode == .stopped { return }
        if bufferStart > 0 {
            buffer.removeFirst(bufferStart)
            scanIndex -= bufferStart
            bufferStart = 0
        }
        buffer.append(contentsOf: chunk)
        scan()
    }

    /// Marks the end of input: reads what is left and reports a document that is not complete.
    public mutating func finish() {
        guard !isFinished else { return }
        isFinished = true
        scan()
        switch mode {
        case .start, .whole:
            readWholeDocument()
        case .element:
            readElement()
            if mode == .element || mode == .skipping { fail("an array is not closed with ']'", line: scanLine, column: scanColumn) }
        case .skipping:
            fail(inString ? "a string is not closed with '\"'" : "an array is not closed with ']'", line: scanLine, column: scanColumn)
        case .trailing, .stopped:
            break
        }
        if mode != .stopped && elements == 0 && !sawError {
            report(.warning, .emptyInput, "the jCard document holds no card", line: 1, column: 1)
        }
        mode = .stopped
        buffer = []
    }

    /// The next complete card, or `nil` when none is ready yet.
    public mutating func nextCard() -> VCard? {
        guard readyIndex < ready.count else {
            if !ready.isEmpty { ready.removeAll(keepingCapacity: true); readyIndex = 0 }
            return nil
        }
        let card = ready[readyIndex]
        readyIndex += 1
        return card
    }

    /// Returns and forgets the diagnostics collected so far.
    public mutating func takeDiagnostics() -> [Diagnostic] {
        defer { diagnostics.removeAll() }
        return diagnostics
    }

    /// The first deviation met in strict mode; reading stops there.
    public var strictViolation: Diagnostic? { strictFailure }

    // MARK: - Scanning

    private mutating func scan() {
        if mode == .start && !startDocument() { return }
        while true {
            switch mode {
            case .whole:
                if buffer.count - bufferStart > options.maximumCardBytes {
                    report(.error, .limitExceeded, "the card is larger than \(options.maximumCardBytes) bytes; it was skipped",
                           line: baseLine, column: baseColumn)
                    stop()
                }
                return
            case .element, .skipping:
                guard scanElement() else { return }
            case .trailing:
                scanTrailing()
                return
            case .start, .stopped:
                return
            }
        }
    }

    /// Drops a byte order mark and whitespace; decides the mode on the first other byte.
    /// Returns `false` while more input is needed.
    private mutating func startDocument() -> Bool {
        if !sawByteOrderCheck {
            if buffer.count < 3 && !isFinished && [0xEF, 0xBB, 0xBF].starts(with: buffer) { return false }
            sawByteOrderCheck = true
            if buffer.starts(with: [0xEF, 0xBB, 0xBF]) { buffer.removeFirst(3) }
        }
        var index = 0
        while index < buffer.count, Self.isWhitespace(buffer[index]) {
            advance(over: buffer[index], line: &baseLine, column: &baseColumn)
            index += 1
        }
        buffer.removeFirst(index)
        guard let first = buffer.first else { return false }
        if first == 0x5B {
            // The top-level array: its first element tells a single card from an array of cards.
            mode = .element
            scanIndex = 1
            scanLine = baseLine
            scanColumn = baseColumn + 1
        } else {
            mode = .whole
        }
        return true
    }

    /// Scans the current element; reads it when its `,` or `]` is found. Returns whether the
    /// element ended (so the next one can be scanned).
    private mutating func scanElement() -> Bool {
        let skipping = mode == .skipping
        var index = scanIndex
        var line = scanLine
        var column = scanColumn
        var ended = false
        var tooDeep = false
        buffer.withUnsafeBufferPointer { bytes in
            while index < bytes.count {
                let byte = bytes[index]
                if inString {
                    if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
                } else {
                    if elementLine == nil && !Self.isWhitespace(byte) { elementLine = line }
                    switch byte {
                    case 0x22: inString = true
                    case 0x5B, 0x7B:
                        depth += 1
                        // The top-level array counts as one level.
                        if !skipping && depth + 1 > JSONParser.maximumDepth { tooDeep = true }
                    case 0x5D, 0x7D:
                        if depth == 0 { ended = true } else { depth -= 1 }
                    case 0x2C:
                        if depth == 0 { ended = true }
                    default: break
                    }
                }
                if ended || tooDeep { break }
                advance(over: byte, line: &line, column: &column)
                index += 1
            }
        }
        scanIndex = index
        scanLine = line
        scanColumn = column
        if tooDeep && !skipping {
            // The JSON parser reports the nesting where it is, as for a whole document.
            readElement()
            return mode != .element
        }
        if skipping {
            if ended { return finishSkipped() }
            rebase(droppingTo: scanIndex)
            return false
        }
        if ended {
            readElement()
            return true
        }
        if scanIndex - bufferStart > options.maximumCardBytes {
            elements += 1
            mode = .skipping
            rebase(droppingTo: scanIndex)
            report(.error, .limitExceeded,
                   "card \(elements) is larger than \(options.maximumCardBytes) bytes; it was skipped",
                   line: elementLine ?? baseLine, column: 1)
        }
        return false
    }

    /// After an element passed over: the `,` or `]` that ended it.
    private mutating func finishSkipped() -> Bool {
        let byte = buffer[scanIndex]
        guard byte != 0x7D else {
            fail("expected ',' or ']' in an array", line: scanLine, column: scanColumn)
            return false
        }
        advance(over: byte, line: &scanLine, column: &scanColumn)
        scanIndex += 1
        rebase(droppingTo: scanIndex)
        startElement(closed: byte == 0x5D)
        return true
    }

    /// Reads the element scanned so far (up to and including its `,` or `]`, or up to the end of
    /// the input) with the JSON parser.
    private mutating func readElement() {
        let end = min(scanIndex + 1, buffer.count)
        let isFirst = elements == 0
        // The first element follows the '[' kept at the start of the buffer.
        let elementStart = bufferStart + (isFirst ? 1 : 0)
        var parser = JSONParser(part: Array(buffer[elementStart..<end]), depth: 1)
        let startLine = baseLine
        let startColumn = isFirst ? baseColumn + 1 : baseColumn
        let parsed: (value: JSONValue?, start: Int, closesArray: Bool, failureAfter: JSONParser.Failure?)
        do {
            parsed = try parser.parseArrayElement(isFirst: isFirst)
        } catch {
            let (line, column) = Self.absolute(error.line, error.column, fromLine: startLine, column: startColumn)
            fail(error.message, line: line, column: column)
            return
        }
        let opensSingleCard = isFirst && parsed.value == .string("vcard")
        if opensSingleCard && parsed.failureAfter == nil {
            // A single card: the whole document is the card, kept from its '['.
            mode = .whole
            return
        }
        if let value = parsed.value, !opensSingleCard {
            elements += 1
            let (line, column) = parser.position(of: parsed.start)
            let location = Self.absolute(line, column, fromLine: startLine, column: startColumn)
            takeCard(value, number: elements, line: location.line, column: location.column)
        }
        guard mode != .stopped else { return }
        if let error = parsed.failureAfter {
            // The card before broken JSON has been read; reading stops here.
            let (line, column) = Self.absolute(error.line, error.column, fromLine: startLine, column: startColumn)
            fail(error.message, line: line, column: column)
            return
        }
        if scanIndex < buffer.count {
            advance(over: buffer[scanIndex], line: &scanLine, column: &scanColumn)
        }
        scanIndex = end
        rebase(droppingTo: end)
        startElement(closed: parsed.closesArray)
    }

    private mutating func startElement(closed: Bool) {
        mode = closed ? .trailing : .element
        depth = 0
        inString = false
        escaped = false
        elementLine = nil
    }

    /// Only whitespace may follow the document.
    private mutating func scanTrailing() {
        var index = scanIndex
        while index < buffer.count {
            let byte = buffer[index]
            guard Self.isWhitespace(byte) else {
                fail("unexpected text after the JSON document", line: scanLine, column: scanColumn)
                return
            }
            advance(over: byte, line: &scanLine, column: &scanColumn)
            index += 1
        }
        scanIndex = index
        rebase(droppingTo: index)
    }

    /// Reads a document kept whole: a single card, or a top level that is not an array.
    private mutating func readWholeDocument() {
        var parser = JSONParser(part: Array(buffer[bufferStart...]), depth: 0)
        let document: JSONValue
        do {
            document = try parser.parseDocument()
        } catch {
            let (line, column) = Self.absolute(error.line, error.column, fromLine: baseLine, column: baseColumn)
            fail(error.message, line: line, column: column)
            return
        }
        guard case .array(let items) = document, items.first == .string("vcard") else {
            report(.error, .notJCard, "a jCard document is [\"vcard\", [...]] or an array of them", line: 1, column: 1)
            mode = .stopped
            return
        }
        elements = 1
        takeCard(document, number: 1, line: baseLine, column: baseColumn)
    }

    private mutating func takeCard(_ value: JSONValue, number: Int, line: Int, column: Int) {
        if number > options.maximumCards {
            report(.error, .limitExceeded, "more than \(options.maximumCards) cards; the rest were not read", line: line, column: column)
            stop()
            return
        }
        let location = SourceLocation(source: sourceName, line: line, column: column)
        var notes: [(Diagnostic.Severity, Diagnostic.Code, String)] = []
        let card = JCardReader.card(from: value, number: number, location: location) { notes.append(($0, $1, $2)) }
        for (severity, code, message) in notes {
            report(severity, code, message, line: line, column: column)
        }
        if let card, strictFailure == nil { ready.append(card) }
    }

    // MARK: - Positions and reports

    /// Forgets the buffer up to `offset`, which is at `scanLine:scanColumn` (or just after it).
    private mutating func rebase(droppingTo offset: Int) {
        bufferStart = min(offset, buffer.count)
        if mode == .skipping {
            // Nothing of an element passed over is kept.
            buffer.removeFirst(bufferStart)
            scanIndex -= bufferStart
            bufferStart = 0
        }
        baseLine = scanLine
        baseColumn = scanColumn
    }

    private func advance(over byte: UInt8, line: inout Int, column: inout Int) {
        if byte == 0x0A { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
    }

    /// A position inside a part of the document made a position in the document.
    private static func absolute(_ line: Int, _ column: Int, fromLine startLine: Int, column startColumn: Int) -> (line: Int, column: Int) {
        line == 1 ? (startLine, startColumn + column - 1) : (startLine + line - 1, column)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private mutating func fail(_ message: String, line: Int, column: Int) {
        report(.error, .invalidJSON, "not valid JSON: \(message)", line: line, column: column)
        stop()
    }

    private mutating func stop() {
        mode = .stopped
        buffer = []
        bufferStart = 0
        scanIndex = 0
    }

    private mutating func report(_ severity: Diagnostic.Severity, _ code: Diagnostic.Code, _ message: String, line: Int, column: Int) {
        let diagnostic = Diagnostic(severity: options.isStrict ? .error : severity, code: code, message: message,
                                    location: SourceLocation(source: sourceName, line: line, column: column))
        if diagnostic.severity == .error { sawError = true }
        diagnostics.append(diagnostic)
        if options.isStrict && strictFailure == nil {
            strictFailure = diagnostic
            stop()
        }
    }
}
