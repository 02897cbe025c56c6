/// A streaming vCard reader: feed it bytes in chunks of any size and take complete cards as they
/// appear. Memory is bounded by the largest card plus one chunk, not by the input.
///
/// ```swift
/// var parser = VCardParser(sourceName: "contacts.vcf")
/// for chunk in chunks {
///     parser.feed(chunk)
///     while let card = parser.nextCard() { handle(card) }
/// }
/// parser.finish()
/// while let card = parser.nextCard() { handle(card) }
/// for diagnostic in parser.takeDiagnostics() { print(diagnostic) }
/// ```
///
/// The parser accepts UTF-8 (with or without a byte order mark) and UTF-16 (either byte order,
/// with or without a byte order mark); CRLF, LF, CR and CR CR LF line ends; and text before,
/// between and after cards, which it reports. A card that cannot be recovered (no `END`, too
/// large) is reported as an error and not returned; nothing is returned half-read.
public struct VCardParser: Sendable {
    /// The name used in diagnostics.
    public let sourceName: String
    /// The reading options.
    public let options: VCardReadOptions

    private enum State: Sendable {
        case outside
        case inCard
        case skippingComponent(depth: Int)
        case skippingCard(depth: Int)
    }

    private enum Encoding: Sendable { case undetermined, utf8, utf16LittleEndian, utf16BigEndian }

    private var buffer: [UInt8] = []
    private var consumed = 0
    private var scanPosition = 0
    private var lineNumber = 1
    private var state = State.outside
    private var cardStart = 0
    private var cardLines: [PhysicalLine] = []
    private var nestingDepth = 0
    private var agentOpenedOnLine = false
    /// The index in `cardLines` of a `BEGIN:VCARD` met inside the card with no `AGENT` line
    /// before it: a nested card, unless the outer card turns out to have no `END:VCARD`.
    private var agentlessNestedStart: Int?
    /// The blank lines read since the last card or other text, kept for the next card.
    private var blankLines: [UInt8] = []
    /// The blank lines before the card being read.
    private var cardBlankLinesBefore: [UInt8] = []
    private var trailingBlankLines: [UInt8] = []
    private var ready = HandOffQueue<VCard>()
    private var readyFrames = HandOffQueue<VCardFrame>()
    private let defersParsing: Bool
    private var diagnostics: [Diagnostic] = []
    private var encoding = Encoding.undetermined
    private var undecoded: [UInt8] = []
    private var pendingHighSurrogate: UInt16?
    private var cardsRead = 0
    private var sawText = false
    private var inJunkRun = false
    private var discardingLongLine = false
    private var isFinished = false
    private var strictFailure: Diagnostic? {
        didSet { stopped = strictFailure != nil }
    }
    /// Whether strict reading met a deviation: checked for every line, cheaper than the optional.
    private var stopped = false

    /// Creates a parser.
    /// - Parameters:
    ///   - sourceName: the name diagnostics use for the input (a path, or `-`).
    ///   - options: lenient (default) or strict reading, and size limits.
    public init(sourceName: String = "<input>", options: VCardReadOptions = .lenient) {
        self.sourceName = sourceName
        self.options = options
        self.defersParsing = false
    }

    /// Creates a parser that only finds cards and hands them out as ``VCardFrame``s through
    /// ``nextFrame()``, so that the caller can parse them concurrently (`VCardFrame.parse()`).
    /// Lenient reading only.
    public init(framingOnly sourceName: String, options: VCardReadOptions = .lenient) {
        precondition(!options.isStrict, "strict reading parses cards in order; use init(sourceName:options:)")
        self.sourceName = sourceName
        self.options = options
        self.defersParsing = true
    }

    /// The next complete, not yet parsed card of a parser made with ``init(framingOnly:options:)``.
    public mutating func nextFrame() -> VCardFrame? {
        readyFrames.next()
    }

    /// Adds the next chunk of input.
    public mutating func feed(_ chunk: some Collection<UInt8>) {
        precondition(!isFinished, "feed(_:) after finish()")
        if encoding == .undetermined {
            undecoded.append(contentsOf: chunk)
            if undecoded.count >= 4 { determineEncoding() }
            return
        }
        appendDecoded(chunk)
        scan(final: false)
    }

    /// Adds the next chunk of input, read by `read` straight into the parser's buffer instead of
    /// into an array of its own that would then be copied there: `read` is given room for up to
    /// `capacity` bytes and returns how many it wrote (0 at the end of the input). Returns that
    /// count. The same as reading into an array and passing it to ``feed(_:)``, one copy of the
    /// input fewer.
    @discardableResult
    public mutating func feed<Failure: Error>(
        readingUpTo capacity: Int, _ read: (UnsafeMutableBufferPointer<UInt8>) throws(Failure) -> Int
    ) throws(Failure) -> Int {
        precondition(!isFinished, "feed(readingUpTo:_:) after finish()")
        precondition(capacity > 0, "feed(readingUpTo:_:) needs room for at least one byte")
        guard encoding == .utf8 else {
            // The encoding is known only after the first bytes, and UTF-16 is decoded as it is
            // appended: through an array of its own.
            let chunk = try [UInt8](unsafeUninitializedCapacity: capacity) { (room, count) throws(Failure) in
                count = try read(room)
                precondition(count >= 0 && count <= capacity, "read(_:) wrote outside the room it was given")
            }
            if !chunk.isEmpty { feed(chunk) }
            return chunk.count
        }
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: capacity))
        let count: Int
        do throws(Failure) {
            count = try buffer.withUnsafeMutableBufferPointer { (bytes) throws(Failure) in
                try read(UnsafeMutableBufferPointer(rebasing: bytes[start...]))
            }
        } catch {
            // A failed read adds nothing: the input read so far stays as it was.
            buffer.removeLast(capacity)
            throw error
        }
        precondition(count >= 0 && count <= capacity, "read(_:) wrote outside the room it was given")
        buffer.removeLast(capacity - count)
        if count > 0 { scan(final: false) }
        return count
    }

    /// The blank lines that follow the last card of the input, as read (available after
    /// ``finish()``): with each card's ``VCard/blankLinesBefore`` they make the whole input, so that
    /// ``VCardWriter`` can write a file nobody edited back byte for byte.
    public var blankLinesAtEnd: [UInt8] { trailingBlankLines }

    /// Marks the end of input: reads the last line and reports a card left without `END`.
    public mutating func finish() {
        guard !isFinished else { return }
        if encoding == .undetermined { determineEncoding() }
        if !undecoded.isEmpty && encoding != .utf8 {
            report(.warning, .utf16, "the input ends in the middle of a UTF-16 character; the last byte was ignored",
                   line: lineNumber, column: 1)
            undecoded.removeAll()
        }
        isFinished = true
        scan(final: true)
        // A card that held a nested card without an AGENT line and then ended with the input had
        // no END:VCARD: the nested card was a card of its own.
        while case .inCard = state, agentlessNestedStart != nil {
            readNestedCardAsACardOfItsOwn()
        }
        switch state {
        case .inCard:
            report(.error, .missingEnd,
                   "card has no END:VCARD before the end of the input; the card was not read (add END:VCARD after its last property)",
                   line: cardLines.first?.number ?? lineNumber, column: 1)
        case .skippingComponent, .skippingCard, .outside:
            break
        }
        state = .outside
        trailingBlankLines = blankLines
        blankLines = []
        if cardsRead == 0 && !diagnostics.contains(where: { $0.severity == .error }) {
            if sawText {
                report(.error, .missingBegin, "no BEGIN:VCARD found: the input holds no vCard", line: 1, column: 1)
            } else {
                report(.error, .emptyInput, "the input is empty: it holds no vCard", line: 1, column: 1)
            }
        }
        buffer = []
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

    // MARK: - Encoding

    private mutating func determineEncoding() {
        let head = undecoded
        var skip = 0
        if head.starts(with: [0xEF, 0xBB, 0xBF]) {
            encoding = .utf8
            skip = 3
            report(.warning, .byteOrderMark, "the input starts with a UTF-8 byte order mark; it was ignored", line: 1, column: 1)
        } else if head.starts(with: [0xFF, 0xFE]) {
            encoding = .utf16LittleEndian
            skip = 2
        } else if head.starts(with: [0xFE, 0xFF]) {
            encoding = .utf16BigEndian
            skip = 2
        } else if head.count >= 2 && head[0] == 0 && head[1] != 0 {
            encoding = .utf16BigEndian
        } else if head.count >= 2 && head[0] != 0 && head[1] == 0 {
            encoding = .utf16LittleEndian
        } else {
            encoding = .utf8
        }
        if encoding != .utf8 {
            report(.warning, .utf16, "the input is UTF-16 (\(encoding == .utf16LittleEndian ? "little" : "big")-endian); it was read as such, and cards are written as UTF-8",
                   line: 1, column: 1)
        }
        let rest = Array(head[skip...])
        undecoded = []
        appendDecoded(rest)
        if !isFinished { scan(final: false) }
    }

    private mutating func appendDecoded(_ chunk: some Collection<UInt8>) {
        switch encoding {
        case .utf8, .undetermined:
            buffer.append(contentsOf: chunk)
        case .utf16LittleEndian, .utf16BigEndian:
            undecoded.append(contentsOf: chunk)
            let usable = undecoded.count & ~1
            var index = 0
            while index < usable {
                let unit = encoding == .utf16LittleEndian
                    ? UInt16(undecoded[index]) | UInt16(undecoded[index + 1]) << 8
                    : UInt16(undecoded[index]) << 8 | UInt16(undecoded[index + 1])
                index += 2
                appendUTF16(unit)
            }
            undecoded.removeFirst(usable)
        }
    }

    private mutating func appendUTF16(_ unit: UInt16) {
        if let high = pendingHighSurrogate {
            pendingHighSurrogate = nil
            if unit >= 0xDC00 && unit <= 0xDFFF {
                let scalar = 0x10000 + ((UInt32(high) - 0xD800) << 10) + (UInt32(unit) - 0xDC00)
                appendScalar(scalar)
                return
            }
            appendScalar(0xFFFD)
        }
        if unit >= 0xD800 && unit <= 0xDBFF {
            pendingHighSurrogate = unit
        } else if unit >= 0xDC00 && unit <= 0xDFFF {
            appendScalar(0xFFFD)
        } else {
            appendScalar(UInt32(unit))
        }
    }

    private mutating func appendScalar(_ value: UInt32) {
        guard let scalar = Unicode.Scalar(value) else { return }
        if value == 0xFEFF && buffer.isEmpty { return }
        buffer.append(contentsOf: UTF8.encode(scalar)!)
    }

    // MARK: - Lines

    private mutating func scan(final: Bool) {
        while !stopped {
            let count = buffer.count
            var index = scanPosition
            if discardingLongLine {
                while index < count && buffer[index] != 0x0A && buffer[index] != 0x0D { index += 1 }
                if index == count { dropScanned(upTo: count); if !final { return } else { discardingLongLine = false; return } }
                discardingLongLine = false
            }
            // Find the end of the line.
            index = buffer.withUnsafeBufferPointer { $0.firstLineBreak(from: index, to: count) }
            let found = index < count
            if !found {
                if count - scanPosition > options.maximumLineBytes {
                    tooLongLine()
                    continue
                }
                if final && scanPosition < count {
                    processLine(PhysicalLine(start: scanPosition, contentEnd: count, end: count, number: lineNumber))
                    scanPosition = count
                }
                compact()
                return
            }
            let contentEnd = index
            var end: Int
            if buffer[index] == 0x0A {
                end = index + 1
            } else if index + 1 < count {
                if buffer[index + 1] == 0x0A {
                    end = index + 2
                } else if buffer[index + 1] == 0x0D {
                    if index + 2 < count {
                        end = buffer[index + 2] == 0x0A ? index + 3 : index + 1
                    } else if final {
                        end = index + 1
                    } else {
                        compact()
                        return
                    }
                } else {
                    end = index + 1
                }
            } else if final {
                end = index + 1
            } else {
                compact()
                return
            }
            if contentEnd - scanPosition > options.maximumLineBytes {
                scanPosition = end
                lineNumber += 1
                tooLongLine(alreadySkipped: true)
                continue
            }
            let line = PhysicalLine(start: scanPosition, contentEnd: contentEnd, end: end, number: lineNumber)
            scanPosition = end
            lineNumber += 1
            processLine(line)
        }
    }

    private mutating func tooLongLine(alreadySkipped: Bool = false) {
        report(.error, .limitExceeded,
               "line is longer than \(options.maximumLineBytes) bytes; \(stateIsCard ? "its card was skipped" : "it was skipped")",
               line: lineNumber, column: 1)
        if !alreadySkipped {
            discardingLongLine = true
            dropScanned(upTo: buffer.count)
        }
        if case .inCard = state {
            state = .skippingCard(depth: nestingDepth)
            cardLines.removeAll()
        }
    }

    private var stateIsCard: Bool {
        if case .inCard = state { return true }
        return false
    }

    private mutating func dropScanned(upTo position: Int) {
        scanPosition = position
        if case .inCard = state { return }
        consumed = position
        compact()
    }

    private mutating func compact() {
        let keepFrom: Int
        if case .inCard = state { keepFrom = cardStart } else { keepFrom = consumed < scanPosition ? scanPosition : consumed }
        guard keepFrom > 0, keepFrom >= 65_536 || keepFrom == buffer.count else { return }
        guard keepFrom * 2 >= buffer.count || keepFrom == buffer.count else { return }
        buffer.removeFirst(keepFrom)
        scanPosition -= keepFrom
        consumed = max(0, consumed - keepFrom)
        if case .inCard = state {
            cardStart -= keepFrom
            for i in cardLines.indices {
                cardLines[i].start -= keepFrom
                cardLines[i].contentEnd -= keepFrom
                cardLines[i].end -= keepFrom
            }
        }
    }

    // MARK: - Structure

    private func marker(of line: PhysicalLine) -> (StructureMarker, grouped: Bool) {
        buffer.withUnsafeBufferPointer { $0.structureMarker(of: line) }
    }

    private func isBlank(_ line: PhysicalLine) -> Bool {
        for i in line.start..<line.contentEnd where buffer[i] != 0x20 && buffer[i] != 0x09 { return false }
        return true
    }

    private mutating func processLine(_ line: PhysicalLine) {
        switch state {
        case .outside:
            let (mark, grouped) = marker(of: line)
            switch mark {
            case .beginCard:
                if grouped {
                    report(.warning, .groupedBegin, "BEGIN:VCARD carries a group prefix; the prefix was ignored", line: line.number, column: 1)
                }
                state = .inCard
                agentOpenedOnLine = false
                agentlessNestedStart = nil
                cardStart = line.start
                // The list keeps its capacity from card to card (a card's frame gets a copy).
                cardLines.removeAll(keepingCapacity: true)
                cardLines.append(line)
                nestingDepth = 0
                inJunkRun = false
                swap(&cardBlankLinesBefore, &blankLines)
                blankLines.removeAll()
            case .beginOther:
                blankLines.removeAll()
                report(.warning, .otherComponent, "skipping a component that is not a vCard: \(text(of: line))", line: line.number, column: 1)
                state = .skippingComponent(depth: 1)
                consumed = line.end
            case .endCard:
                report(.error, .unexpectedEnd, "END:VCARD without a BEGIN:VCARD before it; the lines before it were not read as a card",
                       line: line.number, column: 1)
                sawText = true
                blankLines.removeAll()
                consumed = line.end
            case .endOther, .none:
                if isBlank(line) {
                    // Blank lines between cards are part of the file, not of a card.
                    if blankLines.count + (line.end - line.start) <= Self.maximumBlankLineBytes {
                        blankLines.append(contentsOf: buffer[line.start..<line.end])
                    }
                } else {
                    blankLines.removeAll()
                    sawText = true
                    if !inJunkRun {
                        report(.warning, .textOutsideCard, "text outside a vCard was ignored: \(text(of: line).prefix(60))",
                               line: line.number, column: 1)
                        inJunkRun = true
                    }
                }
                consumed = line.end
            }
        case .skippingComponent(let depth):
            let (mark, _) = marker(of: line)
            switch mark {
            case .beginOther, .beginCard: state = .skippingComponent(depth: depth + 1)
            case .endOther, .endCard: state = depth == 1 ? .outside : .skippingComponent(depth: depth - 1)
            case .none: break
            }
            consumed = line.end
        case .skippingCard(let depth):
            let (mark, _) = marker(of: line)
            switch mark {
            case .beginCard: state = .skippingCard(depth: depth + 1)
            case .endCard: state = depth == 0 ? .outside : .skippingCard(depth: depth - 1)
            default: break
            }
            consumed = line.end
        case .inCard:
            // Inside a card only BEGIN:VCARD and END:VCARD matter, and both end in ":VCARD".
            let mark = buffer.withUnsafeBufferPointer { $0.endsWithColonVCard(line) ? $0.structureMarker(of: line).0 : .none }
            switch mark {
            case .beginCard:
                agentOpenedOnLine = false
                if previousLineOpensAgent() || (nestingDepth > 0 && agentlessNestedStart == nil) {
                    nestingDepth += 1
                    cardLines.append(line)
                } else if nestingDepth == 0 && agentlessNestedStart == nil {
                    // vCard 2.1 writers nest a card without the AGENT line, too. It is read as the
                    // card's AGENT, unless the card turns out to have no END:VCARD of its own.
                    agentlessNestedStart = cardLines.count
                    nestingDepth = 1
                    cardLines.append(line)
                } else {
                    // A second card without an AGENT line: the first one was no nested card,
                    // and the card before it had no END:VCARD.
                    readNestedCardAsACardOfItsOwn()
                    processLine(line)
                }
            case .endCard:
                if agentOpenedOnLine { nestingDepth += 1 }
                agentOpenedOnLine = false
                cardLines.append(line)
                if nestingDepth > 0 {
                    nestingDepth -= 1
                } else {
                    completeCard()
                }
            default:
                if agentOpenedOnLine && !(line.contentEnd > line.start && (buffer[line.start] == 0x20 || buffer[line.start] == 0x09)) {
                    // `AGENT:BEGIN:VCARD` followed by unindented lines: a nested 2.1 card.
                    nestingDepth += 1
                }
                agentOpenedOnLine = agentLineOpensCard(line)
                cardLines.append(line)
                if line.end - cardStart > options.maximumCardBytes {
                    report(.error, .limitExceeded,
                           "card is larger than \(options.maximumCardBytes) bytes; it was skipped",
                           line: cardLines.first?.number ?? line.number, column: 1)
                    state = .skippingCard(depth: nestingDepth)
                    cardLines.removeAll()
                    consumed = line.end
                }
            }
        }
    }

    /// The most bytes of blank lines kept between two cards; more are read but not kept.
    static let maximumBlankLineBytes = 65_536

    /// The card being read had no `END:VCARD`: it is reported and dropped, and the card taken
    /// for a nested one (from its `BEGIN:VCARD` on) is read again as a card of its own.
    private mutating func readNestedCardAsACardOfItsOwn() {
        guard let start = agentlessNestedStart else { return }
        report(.error, .missingEnd,
               "card has no END:VCARD before the next BEGIN:VCARD; the card was not read (add END:VCARD after its last property)",
               line: cardLines.first?.number ?? 1, column: 1)
        let again = Array(cardLines[start...])
        state = .outside
        cardLines.removeAll(keepingCapacity: true)
        cardBlankLinesBefore.removeAll()
        agentlessNestedStart = nil
        nestingDepth = 0
        agentOpenedOnLine = false
        for line in again { processLine(line) }
    }

    /// `AGENT:` with an empty value, right before a nested `BEGIN:VCARD` (vCard 2.1).
    private func previousLineOpensAgent() -> Bool {
        guard let last = cardLines.last, cardLines.count > 1 else { return false }
        return buffer.withUnsafeBufferPointer { p in
            var s = last.start
            if let dot = (s..<last.contentEnd).first(where: { p[$0] == 0x2E || p[$0] == 0x3A || p[$0] == 0x3B }), p[dot] == 0x2E { s = dot + 1 }
            guard p.matchesUppercase("AGENT", at: s, end: last.contentEnd) else { return false }
            var e = last.contentEnd
            while e > s && (p[e - 1] == 0x20 || p[e - 1] == 0x09) { e -= 1 }
            return e > s && p[e - 1] == 0x3A
        }
    }

    /// `AGENT:BEGIN:VCARD` on one line opens a nested card.
    private func agentLineOpensCard(_ line: PhysicalLine) -> Bool {
        buffer.withUnsafeBufferPointer { p in
            guard p.matchesUppercase("AGENT", at: line.start, end: line.contentEnd) else { return false }
            var e = line.contentEnd
            while e > line.start && (p[e - 1] == 0x20 || p[e - 1] == 0x09) { e -= 1 }
            return e - line.start >= 17 && p.matchesUppercase(":BEGIN:VCARD", at: e - 12, end: e)
        }
    }

    private mutating func completeCard() {
        state = .outside
        agentlessNestedStart = nil
        var blankLinesBefore: [UInt8] = []
        swap(&blankLinesBefore, &cardBlankLinesBefore)
        let endLine = cardLines[cardLines.count - 1]
        consumed = endLine.end
        inJunkRun = false
        cardsRead += 1
        if cardsRead > options.maximumCards {
            if cardsRead == options.maximumCards + 1 {
                report(.error, .limitExceeded, "more than \(options.maximumCards) cards; the rest were not read",
                       line: cardLines[0].number, column: 1)
            }
            return
        }
        let base = cardStart
        let bytes = Array(buffer[base..<endLine.end])
        let lines = cardLines.map {
            PhysicalLine(start: $0.start - base, contentEnd: $0.contentEnd - base, end: $0.end - base, number: $0.number)
        }
        cardLines.removeAll(keepingCapacity: true)
        if defersParsing {
            readyFrames.append(VCardFrame(bytes: bytes, lines: lines, blankLinesBefore: blankLinesBefore,
                                          sourceName: sourceName, options: options))
            return
        }
        var cardParser = CardParser(bytes: bytes, lines: lines, blankLinesBefore: blankLinesBefore, sourceName: sourceName, options: options)
        let card = cardParser.parse()
        for diagnostic in cardParser.diagnostics { record(diagnostic) }
        if let card, !stopped { ready.append(card) }
    }

    private func text(of line: PhysicalLine) -> String {
        String(decoding: buffer[line.start..<line.contentEnd], as: UTF8.self)
    }

    private mutating func report(_ severity: Diagnostic.Severity, _ code: Diagnostic.Code, _ message: String, line: Int, column: Int) {
        record(Diagnostic(severity: severity, code: code, message: message,
                          location: SourceLocation(source: sourceName, line: line, column: column)))
    }

    private mutating func record(_ diagnostic: Diagnostic) {
        var diagnostic = diagnostic
        if options.isStrict {
            diagnostic.severity = .error
            if strictFailure == nil { strictFailure = diagnostic }
        }
        diagnostics.append(diagnostic)
    }
}
