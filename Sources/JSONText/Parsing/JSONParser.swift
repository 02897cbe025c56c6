/// The package's JSON parser: strict RFC 8259, numbers kept as written, members in order, and
/// errors that name the line and column.
///
/// ```swift
/// let value = try JSONParser.parse(bytes)                       // the whole text is one value
/// let card = try JSONParser.parse(bytes, options: JSONReadingOptions(maximumDepth: 64))
/// ```
///
/// What it accepts is exactly RFC 8259's grammar: no comments, no trailing commas, no leading
/// zeros, `+` or `.5`, strings of valid UTF-8 with every control character escaped. A `\u`
/// escape of a lone UTF-16 surrogate becomes U+FFFD unless
/// ``JSONReadingOptions/replacesLoneSurrogates`` is off. Nesting is limited by
/// ``JSONReadingOptions/maximumDepth`` (the parser recurses once per level) and the text by
/// ``JSONReadingOptions/maximumBytes``. ``JSONStreamReader`` reads with this parser too, one
/// value at a time, so both report the same problem at the same place.
public struct JSONParser {
    /// The text; `index` is the next byte to read.
    let bytes: UnsafeBufferPointer<UInt8>
    var index: Int
    /// Arrays and objects open around the current byte (including those around `bytes`).
    var depth: Int
    let options: JSONReadingOptions
    /// Where `bytes[0]` is in the document.
    let origin: JSONPosition

    /// A parser of `bytes`, which sit at `origin` in their document inside `depth` open
    /// arrays and objects.
    init(bytes: UnsafeBufferPointer<UInt8>, origin: JSONPosition = .start, depth: Int = 0, options: JSONReadingOptions) {
        self.bytes = bytes
        self.index = 0
        self.depth = depth
        self.options = options
        self.origin = origin
    }

    /// Parses JSON text holding exactly one value (white space around it allowed).
    ///
    /// - Parameters:
    ///   - bytes: UTF-8 JSON text.
    ///   - options: limits, and whether a byte order mark is allowed.
    /// - Throws: ``JSONError`` naming the line and column where the text stops being JSON.
    public static func parse(_ bytes: some Collection<UInt8>, options: JSONReadingOptions = JSONReadingOptions()) throws(JSONError) -> JSONValue {
        let result = bytes.withContiguousStorageIfAvailable { buffer in
            parseDocument(buffer, options: options)
        } ?? Array(bytes).withUnsafeBufferPointer { buffer in
            parseDocument(buffer, options: options)
        }
        return try result.get()
    }

    /// Checks that `bytes` hold JSON text of exactly one value without building the value: what
    /// ``parse(_:options:)`` accepts and nothing else, refused with the same ``JSONError``. For a
    /// reader that only needs to know a stored value is whole (a journal line's body) and not
    /// what it holds: no string, array or object is made.
    ///
    /// - Parameters:
    ///   - bytes: UTF-8 JSON text.
    ///   - depth: the arrays and objects open around the text in its document (for
    ///     ``JSONReadingOptions/maximumDepth``; 1 for a member of a top-level object).
    ///   - options: limits, and whether a byte order mark is allowed.
    public static func validate(_ bytes: UnsafeBufferPointer<UInt8>, depth: Int = 0,
                                options: JSONReadingOptions = JSONReadingOptions()) throws(JSONError) {
        var text = bytes
        var origin = JSONPosition.start
        if options.allowsByteOrderMark, text.count >= 3, text[0] == 0xEF, text[1] == 0xBB, text[2] == 0xBF {
            text = UnsafeBufferPointer(rebasing: text[3...])
            origin.offset = 3
        }
        var parser = JSONParser(bytes: text, origin: origin, depth: depth, options: options)
        if text.count > options.maximumBytes {
            throw JSONError(.tooLarge, "the JSON text is larger than \(options.maximumBytes) bytes", at: origin)
        }
        parser.skipWhitespace()
        try parser.skipValue()
        parser.skipWhitespace()
        if parser.index < text.count { throw parser.failure("unexpected text after the JSON document") }
    }

    private static func parseDocument(_ buffer: UnsafeBufferPointer<UInt8>, options: JSONReadingOptions) -> Result<JSONValue, JSONError> {
        var text = buffer
        var origin = JSONPosition.start
        if options.allowsByteOrderMark, text.count >= 3, text[0] == 0xEF, text[1] == 0xBB, text[2] == 0xBF {
            text = UnsafeBufferPointer(rebasing: text[3...])
            origin.offset = 3
        }
        var parser = JSONParser(bytes: text, origin: origin, options: options)
        do throws(JSONError) {
            if text.count > options.maximumBytes {
                throw JSONError(.tooLarge, "the JSON text is larger than \(options.maximumBytes) bytes", at: origin)
            }
            parser.skipWhitespace()
            let value = try parser.parseValue()
            parser.skipWhitespace()
            if parser.index < text.count { throw parser.failure("unexpected text after the JSON document") }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }

    // MARK: - Positions and failures

    /// The position of `bytes[offset]` in the document.
    func position(of offset: Int) -> JSONPosition {
        var position = origin
        position.advance(over: UnsafeBufferPointer(rebasing: bytes[..<min(offset, bytes.count)]))
        return position
    }

    func failure(_ message: String, _ code: JSONError.Code = .invalidJSON) -> JSONError {
        JSONError(code, message, at: position(of: index))
    }

    // MARK: - Grammar

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// Parses the value at `index` (no white space before it) and stops after it.
    mutating func parseValue() throws(JSONError) -> JSONValue {
        guard index < bytes.count else { throw failure("the JSON document ends too early") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return .object(try parseObject())
        case UInt8(ascii: "["): return .array(try parseArray())
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw failure("expected a JSON value")
        }
    }

    /// Passes over the value at `index` (no white space before it) as ``parseValue()`` reads it,
    /// refusing what it refuses, without building it; stops after it.
    mutating func skipValue() throws(JSONError) {
        guard index < bytes.count else { throw failure("the JSON document ends too early") }
        switch bytes[index] {
        case UInt8(ascii: "{"): try skipObject()
        case UInt8(ascii: "["): try skipArray()
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "t"): try expectLiteral("true")
        case UInt8(ascii: "f"): try expectLiteral("false")
        case UInt8(ascii: "n"): try expectLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try scanNumber()
        default: throw failure("expected a JSON value")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let count = literal.utf8CodeUnitCount
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        guard index + count <= bytes.count else { throw failure("expected \(literal)") }
        for offset in 0..<count where bytes[index + offset] != expected[offset] {
            throw failure("expected \(literal)")
        }
        index += count
    }

    /// Enters an array or object at `index`.
    private mutating func enter() throws(JSONError) {
        depth += 1
        if depth > options.maximumDepth { throw failure("JSON nested deeper than \(options.maximumDepth) levels", .tooDeep) }
        index += 1
        skipWhitespace()
    }

    private mutating func parseArray() throws(JSONError) -> [JSONValue] {
        try enter()
        var elements: [JSONValue] = []
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return elements
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw failure("an array is not closed with ']'") }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return elements
            default:
                throw failure("expected ',' or ']' in an array")
            }
        }
    }

    /// ``parseArray()`` without building the elements.
    private mutating func skipArray() throws(JSONError) {
        try enter()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return
        }
        while true {
            skipWhitespace()
            try skipValue()
            skipWhitespace()
            guard index < bytes.count else { throw failure("an array is not closed with ']'") }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return
            default:
                throw failure("expected ',' or ']' in an array")
            }
        }
    }

    /// ``parseObject()`` without building the members.
    private mutating func skipObject() throws(JSONError) {
        try enter()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a member name in double quotes") }
            try skipString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':' after a member name") }
            index += 1
            skipWhitespace()
            try skipValue()
            skipWhitespace()
            guard index < bytes.count else { throw failure("an object is not closed with '}'") }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return
            default:
                throw failure("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func parseObject() throws(JSONError) -> JSONObject {
        try enter()
        var members: [JSONObject.Member] = []
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return JSONObject(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a member name in double quotes") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':' after a member name") }
            index += 1
            skipWhitespace()
            members.append(JSONObject.Member(key: key, value: try parseValue()))
            skipWhitespace()
            guard index < bytes.count else { throw failure("an object is not closed with '}'") }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return JSONObject(members)
            default:
                throw failure("expected ',' or '}' in an object")
            }
        }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as written.
    mutating func parseNumber() throws(JSONError) -> String {
        let start = index
        try scanNumber()
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    /// Passes over the number at `index` (``parseNumber()``'s grammar).
    private mutating func scanNumber() throws(JSONError) {
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, Self.isDigit(bytes[index]) else { throw failure("expected a digit in a number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, Self.isDigit(bytes[index]) else { throw failure("expected a digit in a number") }
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, Self.isDigit(bytes[index]) else { throw failure("expected a digit in a number") }
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    /// A string at `index` (its opening quote), decoded.
    mutating func parseString() throws(JSONError) -> String {
        index += 1
        let start = index
        // Fast path: no escape, so the bytes are the string.
        index = Self.nextSpecialStringByte(in: bytes, from: index)
        if index < bytes.count && bytes[index] == UInt8(ascii: "\"") {
            guard let text = String(exactUTF8: UnsafeBufferPointer(rebasing: bytes[start..<index])) else {
                index = start + Self.firstInvalidUTF8(UnsafeBufferPointer(rebasing: bytes[start..<index]))
                throw failure("a string is not valid UTF-8")
            }
            index += 1
            return text
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(index - start + 16)
        var runStart = start
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                decoded.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                guard let text = String(exactUTF8: decoded) else {
                    index = start
                    throw failure("a string is not valid UTF-8")
                }
                index += 1
                return text
            case UInt8(ascii: "\\"):
                decoded.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                try parseEscape(into: &decoded)
                runStart = index
            default:
                throw failure("a control character must be escaped in a JSON string")
            }
            index = Self.nextSpecialStringByte(in: bytes, from: index)
        }
        throw failure("a string is not closed with '\"'")
    }

    /// Passes over the string at `index` (its opening quote) as ``parseString()`` reads it,
    /// refusing what it refuses at the same place, without decoding it. Escapes are checked one
    /// by one; the bytes of the string as written must be UTF-8, checked once at its end, which
    /// is what ``parseString()`` checks of the decoded string: escapes are ASCII and decode to
    /// whole characters, so neither can make or break a sequence around them.
    private mutating func skipString() throws(JSONError) {
        index += 1
        let start = index
        var sawEscape = false
        var scratch: [UInt8] = []
        while true {
            index = Self.nextSpecialStringByte(in: bytes, from: index)
            guard index < bytes.count else { throw failure("a string is not closed with '\"'") }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                let written = UnsafeBufferPointer(rebasing: bytes[start..<index])
                if !Self.isUTF8(written) {
                    // parseString reports it where the string starts when an escape came
                    // first, else at the first byte that is not UTF-8.
                    index = sawEscape ? start : start + Self.firstInvalidUTF8(written)
                    throw failure("a string is not valid UTF-8")
                }
                index += 1
                return
            case UInt8(ascii: "\\"):
                sawEscape = true
                if index + 1 < bytes.count {
                    switch bytes[index + 1] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                         UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        index += 2
                        continue
                    default:
                        break
                    }
                }
                // `\u`, an unknown escape, or the end: read (and refused) as parseString does.
                scratch.removeAll(keepingCapacity: true)
                try parseEscape(into: &scratch)
            default:
                throw failure("a control character must be escaped in a JSON string")
            }
        }
    }

    /// Whether `bytes` are well-formed UTF-8 (the Unicode Standard's table 3-7: no overlong
    /// form, no surrogate, nothing above U+10FFFF), without making anything: ASCII is passed
    /// over eight bytes at a time.
    static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = bytes.count
        var index = 0
        while index < count {
            if let base = bytes.baseAddress {
                let raw = UnsafeRawPointer(base)
                while index + 8 <= count, raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                    index += 8
                }
            }
            guard index < count else { return true }
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            // The range the second byte must fall in, and how many bytes the sequence has.
            let low: UInt8, high: UInt8, length: Int
            switch lead {
            case 0xC2...0xDF: (low, high, length) = (0x80, 0xBF, 2)
            case 0xE0: (low, high, length) = (0xA0, 0xBF, 3)
            case 0xE1...0xEC, 0xEE...0xEF: (low, high, length) = (0x80, 0xBF, 3)
            case 0xED: (low, high, length) = (0x80, 0x9F, 3)
            case 0xF0: (low, high, length) = (0x90, 0xBF, 4)
            case 0xF1...0xF3: (low, high, length) = (0x80, 0xBF, 4)
            case 0xF4: (low, high, length) = (0x80, 0x8F, 4)
            default: return false
            }
            guard index + length <= count, (low...high).contains(bytes[index + 1]) else { return false }
            for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 { return false }
            index += length
        }
        return true
    }

    /// The index of the first byte from `start` that a JSON string cannot hold as it is (`"`,
    /// `\` or a control character), or `bytes.count`. Eight bytes at a time.
    static func nextSpecialStringByte(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        #if _endian(little)
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            while index + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let quotes = word ^ (ones &* 0x22)
                let backslashes = word ^ (ones &* 0x5C)
                // A byte is flagged where it is zero (or below 0x20); only flags above a true one can be
                // false, so the lowest flag is right.
                let found = ((quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes | (word &- ones &* 0x20) & ~word) & highs
                if found != 0 { return index + found.trailingZeroBitCount >> 3 }
                index += 8
            }
        }
        #endif
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { return index }
            index += 1
        }
        return index
    }

    /// One escape at `index` (its backslash), appended to `decoded` as UTF-8.
    private mutating func parseEscape(into decoded: inout [UInt8]) throws(JSONError) {
        index += 1
        guard index < bytes.count else { throw failure("a string is not closed with '\"'") }
        let escape = bytes[index]
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "n"): decoded.append(0x0A)
        case UInt8(ascii: "r"): decoded.append(0x0D)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4(at: index + 1)
            index += 4
            switch scalar {
            case 0xD800...0xDBFF:
                // A high surrogate pairs with a low one in the next escape; without it, it is alone.
                if index + 6 < bytes.count, bytes[index + 1] == UInt8(ascii: "\\"), bytes[index + 2] == UInt8(ascii: "u"),
                   let low = try? hex4(at: index + 3), (0xDC00...0xDFFF).contains(low) {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    index += 6
                } else {
                    try loneSurrogate()
                    scalar = 0xFFFD
                }
            case 0xDC00...0xDFFF:
                try loneSurrogate()
                scalar = 0xFFFD
            default:
                break
            }
            let unicodeScalar = Unicode.Scalar(scalar) ?? "\u{FFFD}"
            decoded.append(contentsOf: UTF8.encode(unicodeScalar)!)
        default:
            throw failure("unknown escape in a JSON string")
        }
        index += 1
    }

    private func loneSurrogate() throws(JSONError) {
        guard options.replacesLoneSurrogates else {
            throw JSONError(.invalidJSON, "a \\u escape holds half of a UTF-16 surrogate pair", at: position(of: index - 5))
        }
    }

    /// The four hex digits from `start`.
    private func hex4(at start: Int) throws(JSONError) -> UInt32 {
        guard start + 4 <= bytes.count else { throw failure("\\u needs four hex digits") }
        var value: UInt32 = 0
        for offset in 0..<4 {
            let byte = bytes[start + offset]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure("\\u needs four hex digits")
            }
            value = value << 4 | digit
        }
        return value
    }

    /// The offset of the first byte of `bytes` that does not belong to valid UTF-8.
    private static func firstInvalidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var offset = 0
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput, .error: return offset
            }
        }
    }
}
