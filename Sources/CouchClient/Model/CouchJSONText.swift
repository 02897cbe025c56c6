import Foundation

/// JSON text for ``CouchJSON``, read and written byte by byte (the Codable route through
/// `JSONEncoder`/`JSONDecoder` costs several times more, and a sync moves a lot of JSON).
enum CouchJSONText {
    struct Failure: Error, CustomStringConvertible {
        var offset: Int
        var reason: String
        var description: String { "invalid JSON at byte \(offset + 1): \(reason)" }
    }

    // MARK: - Writing

    /// The compact JSON text of `value`, object keys sorted.
    static func bytes(_ value: CouchJSON) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, to: &out)
        return out
    }

    static func write(_ value: CouchJSON, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(let flag): out.append(contentsOf: flag ? Array("true".utf8) : Array("false".utf8))
        case .integer(let number): out.append(contentsOf: String(number).utf8)
        case .number(let number):
            if number.isFinite, number == number.rounded(), abs(number) < 1e15 {
                out.append(contentsOf: (String(Int64(number)) + ".0").utf8)  // stays a number, not an integer, when read back
            } else if number.isFinite {
                out.append(contentsOf: "\(number)".utf8)
            } else {
                out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
            }
        case .string(let text): writeString(text, to: &out)
        case .array(let items):
            out.append(0x5B)
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(0x2C) }
                write(item, to: &out)
            }
            out.append(0x5D)
        case .object(let members):
            out.append(0x7B)
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { out.append(0x2C) }
                writeString(key, to: &out)
                out.append(0x3A)
                write(members[key]!, to: &out)
            }
            out.append(0x7D)
        }
    }

    static func writeString(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.makeContiguousUTF8()
        out.append(0x22)
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        // Runs of bytes that need no escape are copied whole.
        text.utf8.withContiguousStorageIfAvailable { buffer in
            var runStart = 0
            for index in 0..<buffer.count {
                let byte = buffer[index]
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
                out.append(contentsOf: buffer[runStart..<index])
                runStart = index + 1
                switch byte {
                case 0x22: out.append(contentsOf: [0x5C, 0x22])
                case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
                case 0x0D: out.append(contentsOf: [0x5C, 0x72])
                case 0x09: out.append(contentsOf: [0x5C, 0x74])
                default: out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                }
            }
            out.append(contentsOf: buffer[runStart..<buffer.count])
        }
        out.append(0x22)
    }

    // MARK: - Reading

    /// Parses `bytes` as one JSON value (white space around it allowed).
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> CouchJSON {
        var reader = Reader(bytes: bytes)
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.index == bytes.count else { throw Failure(offset: reader.index, reason: "text after the value") }
        return value
    }

    struct Reader {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count {
                let byte = bytes[index]
                guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
                index += 1
            }
        }

        func fail(_ reason: String) -> Failure { Failure(offset: index, reason: reason) }

        mutating func value(depth: Int) throws(Failure) -> CouchJSON {
            guard depth < 512 else { throw fail("nested too deeply") }
            guard index < bytes.count else { throw fail("unexpected end") }
            switch bytes[index] {
            case 0x7B:
                index += 1
                var members: [String: CouchJSON] = [:]
                skipSpace()
                if index < bytes.count, bytes[index] == 0x7D { index += 1; return .object(members) }
                while true {
                    skipSpace()
                    guard index < bytes.count, bytes[index] == 0x22 else { throw fail("expected a member name") }
                    let key = try string()
                    skipSpace()
                    guard index < bytes.count, bytes[index] == 0x3A else { throw fail("expected ':'") }
                    index += 1
                    skipSpace()
                    members[key] = try value(depth: depth + 1)
                    skipSpace()
                    guard index < bytes.count else { throw fail("unterminated object") }
                    if bytes[index] == 0x2C { index += 1; continue }
                    if bytes[index] == 0x7D { index += 1; return .object(members) }
                    throw fail("expected ',' or '}'")
                }
            case 0x5B:
                index += 1
                var items: [CouchJSON] = []
                skipSpace()
                if index < bytes.count, bytes[index] == 0x5D { index += 1; return .array(items) }
                while true {
                    skipSpace()
                    items.append(try value(depth: depth + 1))
                    skipSpace()
                    guard index < bytes.count else { throw fail("unterminated array") }
                    if bytes[index] == 0x2C { index += 1; continue }
                    if bytes[index] == 0x5D { index += 1; return .array(items) }
                    throw fail("expected ',' or ']'")
                }
            case 0x22: return .string(try string())
            case 0x74: try literal("true"); return .bool(true)
            case 0x66: try literal("false"); return .bool(false)
            case 0x6E: try literal("null"); return .null
            default: return try number()
            }
        }

        mutating func literal(_ word: String) throws(Failure) {
            for byte in word.utf8 {
                guard index < bytes.count, bytes[index] == byte else { throw fail("expected \(word)") }
                index += 1
            }
        }

        mutating func number() throws(Failure) -> CouchJSON {
            let start = index
            var isInteger = true
            if index < bytes.count, bytes[index] == 0x2D { index += 1 }
            while index < bytes.count {
                let byte = bytes[index]
                if byte >= 0x30 && byte <= 0x39 { index += 1; continue }
                if byte == 0x2E || byte == 0x65 || byte == 0x45 || byte == 0x2B || byte == 0x2D { isInteger = false; index += 1; continue }
                break
            }
            guard index > start else { throw fail("unexpected character") }
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            if isInteger, let integer = Int(text) { return .integer(integer) }
            guard let double = Double(text) else { throw Failure(offset: start, reason: "bad number \(text)") }
            return .number(double)
        }

        mutating func string() throws(Failure) -> String {
            index += 1  // the opening quote
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == 0x22 {
                    let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                    index += 1
                    return text
                }
                if byte == 0x5C { break }
                guard byte >= 0x20 else { throw fail("control character in a string") }
                index += 1
            }
            // Escapes: decode from the start.
            var out: [UInt8] = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
            while index < bytes.count {
                let byte = bytes[index]
                if byte == 0x22 { index += 1; return String(decoding: out, as: UTF8.self) }
                guard byte >= 0x20 else { throw fail("control character in a string") }
                guard byte == 0x5C else { out.append(byte); index += 1; continue }
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case 0x22, 0x5C, 0x2F: out.append(escape)
                case 0x62: out.append(0x08)
                case 0x66: out.append(0x0C)
                case 0x6E: out.append(0x0A)
                case 0x72: out.append(0x0D)
                case 0x74: out.append(0x09)
                case 0x75:
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar), index + 1 < bytes.count, bytes[index] == 0x5C, bytes[index + 1] == 0x75 {
                        index += 2
                        let low = try hex4()
                        if (0xDC00...0xDFFF).contains(low) {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            out.append(contentsOf: Array(String(Unicode.Scalar(0xFFFD)!).utf8))
                            scalar = low
                        }
                    }
                    let character = Unicode.Scalar(scalar) ?? Unicode.Scalar(0xFFFD)!
                    out.append(contentsOf: Array(String(character).utf8))
                default: throw fail("bad escape")
                }
            }
            throw fail("unterminated string")
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            guard index + 4 <= bytes.count else { throw fail("short \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case 0x30...0x39: digit = UInt32(byte - 0x30)
                case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
                case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
                default: throw fail("bad \\u escape")
                }
                value = value << 4 | digit
                index += 1
            }
            return value
        }
    }
}
