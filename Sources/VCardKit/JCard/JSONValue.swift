/// A JSON value as jCard needs it: numbers keep their text, so `1` and `1.0` stay apart.
enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        default: false
        }
    }

    func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        case .number(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .array(let values): hasher.combine(values)
        case .object(let members): for member in members { hasher.combine(member.key); hasher.combine(member.value) }
        }
    }

    /// Appends the value as compact JSON.
    func write(into output: inout [UInt8]) {
        switch self {
        case .null: output += Array("null".utf8)
        case .bool(let value): output += Array((value ? "true" : "false").utf8)
        case .number(let text): output += Array(text.utf8)
        case .string(let text): Self.writeString(text, into: &output)
        case .array(let values):
            output.append(0x5B)
            for (index, value) in values.enumerated() {
                if index > 0 { output.append(0x2C) }
                value.write(into: &output)
            }
            output.append(0x5D)
        case .object(let members):
            output.append(0x7B)
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(0x2C) }
                Self.writeString(member.key, into: &output)
                output.append(0x3A)
                member.value.write(into: &output)
            }
            output.append(0x7D)
        }
    }

    static func writeString(_ text: String, into output: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        output.append(0x22)
        for byte in text.utf8 {
            switch byte {
            case 0x22: output += [0x5C, 0x22]
            case 0x5C: output += [0x5C, 0x5C]
            case 0x0A: output += [0x5C, 0x6E]
            case 0x0D: output += [0x5C, 0x72]
            case 0x09: output += [0x5C, 0x74]
            case 0..<0x20: output += [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: output.append(byte)
            }
        }
        output.append(0x22)
    }
}

/// A strict JSON parser (RFC 8259) that reports where it failed, by line and column.
struct JSONParser {
    struct Failure: Error {
        var message: String
        var line: Int
        var column: Int
    }

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    /// The deepest nesting accepted, so hostile input cannot exhaust the stack.
    static let maximumDepth = 64

    init(_ bytes: [UInt8]) {
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        self.bytes = Array(bytes[start...])
    }

    /// A parser for part of a document, as ``JCardParser`` hands it over: no byte order mark is
    /// looked for, and `depth` arrays are already open around the bytes.
    init(part bytes: [UInt8], depth: Int) {
        self.bytes = bytes
        self.depth = depth
    }

    /// Parses one element of an array whose `[` (and, for a later element, `,`) has been read:
    /// the value, then the `,` or `]` after it, exactly as ``parseDocument()`` would.
    /// - Returns: the value (`nil` for the `]` of an empty array), the offset of its first byte,
    ///   whether the array closed after it, and the failure after a complete value (a missing
    ///   `,` or `]`), so that the value can still be used.
    /// - Throws: where the value itself is broken.
    mutating func parseArrayElement(isFirst: Bool) throws(Failure)
        -> (value: JSONValue?, start: Int, closesArray: Bool, failureAfter: Failure?) {
        skipWhitespace()
        if isFirst && index < bytes.count && bytes[index] == 0x5D { return (nil, index, true, nil) }
        let start = index
        let value = try parseValue()
        skipWhitespace()
        guard index < bytes.count else { return (value, start, false, failure("an array is not closed with ']'")) }
        if bytes[index] == 0x2C { return (value, start, false, nil) }
        if bytes[index] == 0x5D { return (value, start, true, nil) }
        return (value, start, false, failure("expected ',' or ']' in an array"))
    }

    /// The line and column (counted in characters, from 1) of the byte at `offset`.
    func position(of offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for byte in bytes[..<min(offset, bytes.count)] {
            if byte == 0x0A { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
        }
        return (line, column)
    }

    mutating func parseDocument() throws(Failure) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if index < bytes.count { throw failure("unexpected text after the JSON document") }
        return value
    }

    private func failure(_ message: String) -> Failure {
        let (line, column) = position(of: index)
        return Failure(message: message, line: line, column: column)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    private mutating func parseValue() throws(Failure) -> JSONValue {
        guard index < bytes.count else { throw failure("the JSON document ends too early") }
        switch bytes[index] {
        case 0x5B: return try parseArray()
        case 0x7B: return try parseObject()
        case 0x22: return .string(try parseString())
        case 0x74: try expect("true"); return .bool(true)
        case 0x66: try expect("false"); return .bool(false)
        case 0x6E: try expect("null"); return .null
        case 0x2D, 0x30...0x39: return .number(try parseNumber())
        default: throw failure("expected a JSON value")
        }
    }

    private mutating func expect(_ literal: String) throws(Failure) {
        let literalBytes = Array(literal.utf8)
        guard bytes.count - index >= literalBytes.count, Array(bytes[index..<index + literalBytes.count]) == literalBytes else {
            throw failure("expected \(literal)")
        }
        index += literalBytes.count
    }

    private mutating func parseArray() throws(Failure) -> JSONValue {
        depth += 1
        if depth > Self.maximumDepth { throw failure("JSON nested deeper than \(Self.maximumDepth) levels") }
        defer { depth -= 1 }
        index += 1
        var values: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == 0x5D { index += 1; return .array(values) }
        while true {
            skipWhitespace()
            values.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw failure("an array is not closed with ']'") }
            if bytes[index] == 0x2C { index += 1; continue }
            if bytes[index] == 0x5D { index += 1; return .array(values) }
            throw failure("expected ',' or ']' in an array")
        }
    }

    private mutating func parseObject() throws(Failure) -> JSONValue {
        depth += 1
        if depth > Self.maximumDepth { throw failure("JSON nested deeper than \(Self.maximumDepth) levels") }
        defer { depth -= 1 }
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == 0x7D { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == 0x22 else { throw failure("expected a member name in double quotes") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == 0x3A else { throw failure("expected ':' after a member name") }
            index += 1
            skipWhitespace()
            members.append((key, try parseValue()))
            skipWhitespace()
            guard index < bytes.count else { throw failure("an object is not closed with '}'") }
            if bytes[index] == 0x2C { index += 1; continue }
            if bytes[index] == 0x7D { index += 1; return .object(members) }
            throw failure("expected ',' or '}' in an object")
        }
    }

    private mutating func parseNumber() throws(Failure) -> String {
        let start = index
        if bytes[index] == 0x2D { index += 1 }
        var digits = 0
        while index < bytes.count, let byte = Optional(bytes[index]),
              (byte >= 0x30 && byte <= 0x39) || byte == 0x2E || byte == 0x65 || byte == 0x45 || byte == 0x2B || byte == 0x2D {
            digits += 1
            index += 1
        }
        if digits == 0 { throw failure("a number has no digits") }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if Double(text) == nil { throw failure("\(text) is not a JSON number") }
        return text
    }

    private mutating func parseString() throws(Failure) -> String {
        index += 1
        var out: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x22 {
                index += 1
                guard let text = String(validating: out, as: UTF8.self) else { throw failure("a string is not valid UTF-8") }
                return text
            }
            if byte < 0x20 { throw failure("a control character must be escaped in a JSON string") }
            if byte == 0x5C {
                index += 1
                guard index < bytes.count else { break }
                switch bytes[index] {
                case 0x22: out.append(0x22)
                case 0x5C: out.append(0x5C)
                case 0x2F: out.append(0x2F)
                case 0x62: out.append(0x08)
                case 0x66: out.append(0x0C)
                case 0x6E: out.append(0x0A)
                case 0x72: out.append(0x0D)
                case 0x74: out.append(0x09)
                case 0x75:
                    var scalar = try parseHex4()
                    if (0xD800...0xDBFF).contains(scalar), index + 2 < bytes.count, bytes[index + 1] == 0x5C, bytes[index + 2] == 0x75 {
                        index += 2
                        let low = try parseHex4()
                        if (0xDC00...0xDFFF).contains(low) {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            // A high surrogate not followed by a low one (this overflowed before;
                            // found by fuzzing): U+FFFD for it, and the second escape on its own.
                            out += Array("\u{FFFD}".utf8)
                            scalar = low
                        }
                    }
                    out += Array(String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8)
                default: throw failure("unknown escape in a JSON string")
                }
                index += 1
                continue
            }
            out.append(byte)
            index += 1
        }
        throw failure("a string is not closed with '\"'")
    }

    private mutating func parseHex4() throws(Failure) -> UInt32 {
        guard index + 4 < bytes.count else { throw failure("\\u needs four hex digits") }
        var value: UInt32 = 0
        for k in 1...4 {
            let byte = bytes[index + k]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw failure("\\u needs four hex digits")
            }
            value = value << 4 | digit
        }
        index += 4
        return value
    }
}
