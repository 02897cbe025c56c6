/// Reads a JSON document incrementally: feed it bytes in chunks of any size as they arrive, and
/// pull events (``JSONEvent``) as far as the bytes go. Memory is bounded by the largest value
/// taken whole (``JSONReadingOptions/maximumBytes``) plus one chunk, not by the document, so a
/// `_changes` feed, a `_bulk_docs` body or a jCard array of any length can be walked.
///
/// ```swift
/// // {"results":[row, row, …],"last_seq":"…","pending":0}, a chunk at a time
/// var reader = JSONStreamReader(options: JSONReadingOptions(maximumBytes: 8 << 20))
/// var chunks = body.makeIterator()                      // e.g. an HTTP response's chunks
/// var inResults = false
/// while case let event = inResults ? try reader.nextValue(feeding: { chunks.next() })
///                                  : try reader.next(feeding: { chunks.next() }),
///       event != .endOfDocument {
///     switch event {
///     case .startArray where reader.depth == 2: inResults = true    // the "results" array
///     case .value(let row) where inResults: apply(row)              // one row, built whole
///     case .endArray: inResults = false
///     default: break
///     }
/// }
/// ```
///
/// ``next()`` opens arrays and objects as events; ``nextValue()`` takes the next value whole
/// (a row of a feed, a card of a jCard array), read by ``JSONParser`` with the same limits and
/// the same messages and positions as a whole-document parse. `nil` means that the bytes fed so
/// far end before the next event: feed more (or ``finish()``) and ask again.
///
/// Errors are final (every later call throws the same error), except
/// ``JSONError/Code/tooLarge``: the value larger than ``JSONReadingOptions/maximumBytes`` is
/// passed over as its bytes arrive (its strings and brackets are followed, nothing of it is kept
/// or checked further), and reading goes on after it.
public struct JSONStreamReader: Sendable {
    /// The limits: depth, the largest value taken whole, a byte order mark.
    public let options: JSONReadingOptions

    private enum Container: Sendable { case array, object }

    /// What the grammar allows next.
    private enum Expectation: Sendable {
        case value, valueOrEnd, key, keyOrEnd, colon, commaOrEnd, end
    }

    /// A string, number, literal, or (for `nextValue`) whole value whose end is being looked for,
    /// across feeds if need be.
    private struct PendingValue: Sendable {
        /// Strings, arrays and objects end at a quote or bracket; numbers and literals at the
        /// first byte that cannot continue them.
        var isToken: Bool
        var isKey: Bool
        /// Passed over without being kept: too large, or ``skipValue()``.
        var isSkipped: Bool
        var firstByte: UInt8
        /// The index in `buffer` of the value's first byte, and where it is in the document.
        var start: Int
        var startPosition: JSONPosition
        /// The next byte to scan, and the scanner's state there.
        var index: Int
        var depth = 0
        var inString = false
        var escaped = false
    }

    private enum Step {
        case event(JSONEvent)
        case needsInput
        case passedOver
    }

    private var buffer: [UInt8] = []
    /// The first byte not yet read; the bytes before it are dropped on a later feed.
    private var head = 0
    /// Where `buffer[head]` is in the document.
    private var headPosition = JSONPosition.start
    private var isFinished = false
    private var checkedByteOrderMark = false
    private var containers: [Container] = []
    private var expectation = Expectation.value
    private var pending: PendingValue?
    private var failure: JSONError?
    /// The length of the last value read whole: a value is parsed at once only when the bytes
    /// held are at least twice that, so that one running past them is rarely parsed in vain.
    private var lastValueLength = 0
    /// Where the first byte of the last event returned is (for `endOfDocument`: the end).
    public private(set) var eventPosition = JSONPosition.start

    /// A reader of one document.
    public init(options: JSONReadingOptions = JSONReadingOptions()) {
        self.options = options
    }

    /// The position of the next byte not yet read.
    public var position: JSONPosition { headPosition }

    /// The arrays and objects open at this point.
    public var depth: Int { containers.count }

    /// The bytes held: at most about twice the value being read (or a token of a value passed
    /// over) plus the last chunk fed.
    public var heldByteCount: Int { buffer.count }

    /// Adds the next bytes of the document.
    public mutating func feed(_ chunk: some Collection<UInt8>) {
        // Copied as one block where the bytes are contiguous (a generic copy goes byte by byte).
        let copied: Void? = chunk.withContiguousStorageIfAvailable { feed(UnsafeRawBufferPointer($0)) }
        if copied == nil { Array(chunk).withUnsafeBytes { feed($0) } }
    }

    /// Adds the next bytes of the document.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer) {
        precondition(!isFinished, "feed(_:) after finish()")
        guard failure == nil else { return }
        // Bytes already read are dropped once they are at least half of what is held.
        if head > 0 && head * 2 >= buffer.count {
            buffer.removeSubrange(0..<head)
            if pending != nil {
                pending!.start -= head
                pending!.index -= head
            }
            head = 0
        }
        buffer.append(contentsOf: UnsafeBufferPointer(start: chunk.baseAddress?.assumingMemoryBound(to: UInt8.self), count: chunk.count))
    }

    /// Marks the end of the document: what is left is read as it is, and an incomplete document
    /// is an error.
    public mutating func finish() {
        isFinished = true
    }

    /// The next event, arrays and objects opened as ``JSONEvent/startArray`` and
    /// ``JSONEvent/startObject``; `nil` when more bytes are needed first.
    ///
    /// - Throws: ``JSONError`` where the document stops being JSON, is nested too deeply, or
    ///   holds a string or number larger than ``JSONReadingOptions/maximumBytes``.
    public mutating func next() throws(JSONError) -> JSONEvent? {
        try read(wholeValues: false, skipping: false)
    }

    /// The next event, a value taken whole (an array or object built with all it holds) where a
    /// value comes next; `nil` when more bytes are needed first. Where a member name or the end
    /// of an array or object comes next, that event is returned, as ``next()`` does.
    ///
    /// - Throws: ``JSONError`` as ``next()``; ``JSONError/Code/tooLarge`` (at the value's first
    ///   byte) when the value is larger than ``JSONReadingOptions/maximumBytes``: it is passed
    ///   over and the next call reads on after it.
    public mutating func nextValue() throws(JSONError) -> JSONEvent? {
        try read(wholeValues: true, skipping: false)
    }

    /// Passes over the next value without building it (only its strings and brackets are
    /// followed); `nil` while more bytes are needed. Returns the event of what came instead of
    /// a value: ``JSONEvent/value(_:)`` with `null` once a value was passed over, or a member
    /// name or end, as ``nextValue()`` returns them.
    ///
    /// - Throws: ``JSONError`` where the document stops being JSON.
    public mutating func skipValue() throws(JSONError) -> JSONEvent? {
        try read(wholeValues: true, skipping: true)
    }

    /// ``next()``, feeding the reader from `nextChunk` whenever the bytes fed so far end before
    /// the next event; `nil` from `nextChunk` ends the document (``finish()``).
    ///
    /// ```swift
    /// var reader = JSONStreamReader()
    /// var chunks = file.chunks.makeIterator()
    /// while case let event = try reader.next(feeding: { chunks.next() }), event != .endOfDocument { … }
    /// ```
    public mutating func next<Chunk: Collection<UInt8>>(feeding nextChunk: () -> Chunk?) throws(JSONError) -> JSONEvent {
        try read(wholeValues: false, skipping: false, feeding: nextChunk)
    }

    /// ``nextValue()``, feeding the reader from `nextChunk` as ``next(feeding:)`` does.
    public mutating func nextValue<Chunk: Collection<UInt8>>(feeding nextChunk: () -> Chunk?) throws(JSONError) -> JSONEvent {
        try read(wholeValues: true, skipping: false, feeding: nextChunk)
    }

    // MARK: - Reading

    private mutating func read<Chunk: Collection<UInt8>>(wholeValues: Bool, skipping: Bool,
                                                          feeding nextChunk: () -> Chunk?) throws(JSONError) -> JSONEvent {
        while true {
            if let event = try read(wholeValues: wholeValues, skipping: skipping) { return event }
            // Once finished, reading always ends in an event or an error.
            if let chunk = nextChunk() { feed(chunk) } else { finish() }
        }
    }

    private mutating func read(wholeValues: Bool, skipping: Bool) throws(JSONError) -> JSONEvent? {
        if let failure { throw failure }
        do throws(JSONError) {
            while true {
                switch try step(wholeValues: wholeValues, skipping: skipping) {
                case .event(let event): return event
                case .needsInput: return nil
                case .passedOver:
                    if skipping { return .value(.null) }
                }
            }
        } catch {
            if error.code != .tooLarge { failure = error }
            throw error
        }
    }

    private mutating func step(wholeValues: Bool, skipping: Bool) throws(JSONError) -> Step {
        if !checkedByteOrderMark {
            guard passByteOrderMark() else { return .needsInput }
        }
        if pending != nil { return try continuePending() }
        skipWhitespace()
        guard head < buffer.count else {
            return isFinished ? try endOfInput() : .needsInput
        }
        let byte = buffer[head]
        switch expectation {
        case .end:
            throw error("unexpected text after the JSON document")
        case .colon:
            guard byte == UInt8(ascii: ":") else { throw error("expected ':' after a member name") }
            consumeOneByte()
            expectation = .value
            return try step(wholeValues: wholeValues, skipping: skipping)
        case .commaOrEnd:
            let container = containers[containers.count - 1]
            if byte == UInt8(ascii: ",") {
                consumeOneByte()
                expectation = container == .array ? .value : .key
                return try step(wholeValues: wholeValues, skipping: skipping)
            }
            if byte == (container == .array ? UInt8(ascii: "]") : UInt8(ascii: "}")) { return close() }
            throw error(container == .array ? "expected ',' or ']' in an array" : "expected ',' or '}' in an object")
        case .key, .keyOrEnd:
            if byte == UInt8(ascii: "}") && expectation == .keyOrEnd { return close() }
            guard byte == UInt8(ascii: "\"") else { throw error("expected a member name in double quotes") }
            begin(byte, isKey: true, isSkipped: false)
            return try continuePending()
        case .value, .valueOrEnd:
            if byte == UInt8(ascii: "]") && expectation == .valueOrEnd { return close() }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if wholeValues {
                    begin(byte, isKey: false, isSkipped: skipping)
                    return try continuePending()
                }
                if containers.count + 1 > options.maximumDepth {
                    throw error("JSON nested deeper than \(options.maximumDepth) levels", .tooDeep)
                }
                eventPosition = headPosition
                consumeOneByte()
                let isObject = byte == UInt8(ascii: "{")
                containers.append(isObject ? .object : .array)
                expectation = isObject ? .keyOrEnd : .valueOrEnd
                return .event(isObject ? .startObject : .startArray)
            case UInt8(ascii: "\""), UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                begin(byte, isKey: false, isSkipped: skipping && wholeValues)
                return try continuePending()
            default:
                throw error("expected a JSON value")
            }
        }
    }

    /// At the end of the input, with nothing pending: the document is complete, or what it lacks.
    private mutating func endOfInput() throws(JSONError) -> Step {
        switch expectation {
        case .end:
            eventPosition = headPosition
            return .event(.endOfDocument)
        case .value, .valueOrEnd:
            throw error("the JSON document ends too early")
        case .key, .keyOrEnd:
            throw error("expected a member name in double quotes")
        case .colon:
            throw error("expected ':' after a member name")
        case .commaOrEnd:
            throw error(containers.last == .array ? "an array is not closed with ']'" : "an object is not closed with '}'")
        }
    }

    private mutating func close() -> Step {
        eventPosition = headPosition
        consumeOneByte()
        let container = containers.removeLast()
        expectation = containers.isEmpty ? .end : .commaOrEnd
        return .event(container == .array ? .endArray : .endObject)
    }

    private mutating func begin(_ byte: UInt8, isKey: Bool, isSkipped: Bool) {
        let isToken = byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "[") && byte != UInt8(ascii: "{")
        pending = PendingValue(isToken: isToken, isKey: isKey, isSkipped: isSkipped, firstByte: byte,
                               start: head, startPosition: headPosition, index: head)
    }

    /// Scans the pending value for its end; reads it once complete.
    private mutating func continuePending() throws(JSONError) -> Step {
        guard var value = pending else { return .needsInput }
        if isFinished && !value.isSkipped && buffer.count - value.start <= options.maximumBytes {
            // All the input is here, and the value cannot be too large: the parser finds its end
            // itself, in one pass.
            pending = nil
            return try parse(value, upTo: buffer.count)
        }
        if !value.isToken && !value.isSkipped && !value.isKey && value.index == value.start
            && buffer.count - value.start >= 2 * lastValueLength, let step = parseIfWhole(value) {
            // The value is whole among the bytes held (most rows of a feed are, a chunk holding
            // many): the parser found its end while reading it, one pass instead of a scan for
            // the end and then the parse.
            pending = nil
            return step
        }
        let end = scan(&value)
        if value.isSkipped {
            // Nothing of a value passed over is kept.
            advanceHead(to: end.map { $0 + 1 } ?? value.index)
            value.start = head
            guard end != nil else {
                pending = value
                if isFinished {
                    pending = nil
                    throw error(Self.unclosed(value.firstByte, inString: value.inString))
                }
                return .needsInput
            }
            pending = nil
            finishValue(isKey: value.isKey)
            return .passedOver
        }
        let length = (end.map { $0 + 1 } ?? value.index) - value.start
        if length > options.maximumBytes {
            // Reported at once; the rest of the value is passed over by the next calls.
            let failure = JSONError(.tooLarge, "a value is larger than \(options.maximumBytes) bytes", at: value.startPosition)
            if let end {
                pending = nil
                advanceHead(to: end + 1)
                finishValue(isKey: value.isKey)
            } else {
                advanceHead(to: value.index)
                value.isSkipped = true
                value.start = head
                pending = value
            }
            throw failure
        }
        if end == nil && !isFinished {
            pending = value
            return .needsInput
        }
        // Complete (or cut off by the end of the input, which the parser then reports).
        pending = nil
        if !value.isKey { lastValueLength = length }
        return try parse(value, upTo: end.map { $0 + 1 } ?? buffer.count)
    }

    /// Reads the pending value (not a member name) with the parser if it is whole among the bytes
    /// held and no larger than the limit; `nil` when it is not (it runs past them, or is not
    /// JSON): the value is then scanned for its end as it arrives, and read (or refused) as
    /// before, so a value read here is the value that path would have read.
    private mutating func parseIfWhole(_ value: PendingValue) -> Step? {
        let stop = value.start + min(buffer.count - value.start, options.maximumBytes)
        guard case .success(let (result, length)) = parsed(value, upTo: stop) else { return nil }
        lastValueLength = length
        return passed(value, reading: result, length: length)
    }

    /// Reads the pending value from the bytes before `stop` with the parser, and goes past it.
    private mutating func parse(_ value: PendingValue, upTo stop: Int) throws(JSONError) -> Step {
        let (result, length) = try parsed(value, upTo: stop).get()
        return passed(value, reading: result, length: length)
    }

    /// The pending value read by the parser from the bytes before `stop`, and its length.
    private func parsed(_ value: PendingValue, upTo stop: Int) -> Result<(JSONValue, Int), JSONError> {
        let depth = containers.count
        return buffer.withUnsafeBufferPointer { bytes -> Result<(JSONValue, Int), JSONError> in
            var parser = JSONParser(bytes: UnsafeBufferPointer(rebasing: bytes[value.start..<stop]), origin: value.startPosition,
                                    depth: depth, options: options)
            do throws(JSONError) {
                let parsed = value.isKey ? JSONValue.string(try parser.parseString()) : try parser.parseValue()
                return .success((parsed, parser.index))
            } catch {
                return .failure(error)
            }
        }
    }

    /// Goes past the value just read (`length` bytes) and returns its event.
    private mutating func passed(_ value: PendingValue, reading result: JSONValue, length: Int) -> Step {
        advanceHead(to: value.start + length)
        finishValue(isKey: value.isKey)
        eventPosition = value.startPosition
        if value.isKey, case .string(let key) = result { return .event(.key(key)) }
        return .event(.value(result))
    }

    private mutating func finishValue(isKey: Bool) {
        if isKey {
            expectation = .colon
        } else {
            expectation = containers.isEmpty ? .end : .commaOrEnd
        }
    }

    /// Scans on from `value.index`; returns the index of the value's last byte once found.
    private func scan(_ value: inout PendingValue) -> Int? {
        buffer.withUnsafeBufferPointer { bytes -> Int? in
            var index = value.index
            defer { value.index = index }
            if value.isToken {
                while index < bytes.count, Self.continuesToken(bytes[index]) { index += 1 }
                if index < bytes.count || isFinished { return index - 1 }
                return nil
            }
            var depth = value.depth
            var inString = value.inString
            var escaped = value.escaped
            defer {
                value.depth = depth
                value.inString = inString
                value.escaped = escaped
            }
            while index < bytes.count {
                if inString && !escaped {
                    // Straight to the next quote, backslash or control character.
                    index = JSONParser.nextSpecialStringByte(in: bytes, from: index)
                    guard index < bytes.count else { break }
                }
                let byte = bytes[index]
                index += 1
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                        if depth == 0 { return index - 1 }
                    }
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    depth -= 1
                    if depth == 0 { return index - 1 }
                default: break
                }
            }
            return nil
        }
    }

    /// Bytes a number or a literal (`true`, `false`, `null`) can continue with: anything else ends it.
    private static func continuesToken(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
            true
        default:
            false
        }
    }

    private static func unclosed(_ firstByte: UInt8, inString: Bool) -> String {
        if inString { return "a string is not closed with '\"'" }
        return firstByte == UInt8(ascii: "{") ? "an object is not closed with '}'" : "an array is not closed with ']'"
    }

    // MARK: - Positions

    /// Passes a UTF-8 byte order mark at the start when the options allow one; `false` while
    /// too few bytes have come to tell.
    private mutating func passByteOrderMark() -> Bool {
        guard options.allowsByteOrderMark else {
            checkedByteOrderMark = true
            return true
        }
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        let available = buffer.count - head
        if available < 3 && !isFinished && mark.starts(with: buffer[head...]) { return false }
        checkedByteOrderMark = true
        if buffer[head...].starts(with: mark) {
            head += 3
            headPosition.offset += 3
        }
        return true
    }

    private mutating func skipWhitespace() {
        while head < buffer.count {
            switch buffer[head] {
            case 0x0A:
                headPosition.line += 1
                headPosition.column = 1
                headPosition.offset += 1
            case 0x20, 0x0D, 0x09:
                headPosition.advance(overASCIIWithoutLineFeed: 1)
            default:
                return
            }
            head += 1
        }
    }

    /// Reads one ASCII byte that is not a line feed.
    private mutating func consumeOneByte() {
        head += 1
        headPosition.advance(overASCIIWithoutLineFeed: 1)
    }

    private mutating func advanceHead(to index: Int) {
        guard index > head else { return }
        let start = head
        buffer.withUnsafeBufferPointer { bytes in
            headPosition.advance(over: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        }
        head = index
    }

    private func error(_ message: String, _ code: JSONError.Code = .invalidJSON) -> JSONError {
        JSONError(code, message, at: headPosition)
    }
}
