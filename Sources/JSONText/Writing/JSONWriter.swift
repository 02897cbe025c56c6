/// Writes compact JSON text: no white space, strings as UTF-8 with only what RFC 8259 requires
/// escaped, numbers as they are kept, members in order or sorted by name.
///
/// ```swift
/// let value: JSONValue = ["b": "x\n", "a": [1, 2.5, nil]]
/// JSONWriter().bytes(for: value)                    // {"b":"x\n","a":[1,2.5,null]}
/// JSONWriter(sortsKeys: true).bytes(for: value)     // {"a":[1,2.5,null],"b":"x\n"}
/// ```
///
/// Strings are written as Python's `json.dumps(…, ensure_ascii=False)` and JavaScript's
/// `JSON.stringify` write them: `"` and `\` escaped, `\b \f \n \r \t` for those control
/// characters and `\u00XX` (lower-case hex) for the others, everything else as it is. Sorted
/// keys are in Unicode code point order (the UTF-8 bytes compared), as Python sorts them, so
/// the output is the same on every platform.
public struct JSONWriter: Sendable {
    /// Whether object members are written sorted by name (a stable sort: members of one name
    /// keep their order) instead of in their order.
    public var sortsKeys: Bool

    /// A writer.
    public init(sortsKeys: Bool = false) {
        self.sortsKeys = sortsKeys
    }

    /// The JSON text of `value`.
    public func bytes(for value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(128)
        write(value, to: &output)
        return output
    }

    /// Appends the JSON text of `value` to `output`.
    public func write(_ value: JSONValue, to output: inout [UInt8]) {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): flag ? output.append(contentsOf: "true".utf8) : output.append(contentsOf: "false".utf8)
        case .number(let text): output.append(contentsOf: text.utf8)
        case .string(let text): Self.writeString(text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                write(element, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            write(object, to: &output)
        }
    }

    /// Appends the JSON text of `object` to `output`.
    public func write(_ object: JSONObject, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
        var first = true
        for member in sortsKeys ? Self.sorted(object.members) : object.members {
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            Self.writeString(member.key, to: &output)
            output.append(UInt8(ascii: ":"))
            write(member.value, to: &output)
        }
        output.append(UInt8(ascii: "}"))
    }

    private static func sorted(_ members: [JSONObject.Member]) -> [JSONObject.Member] {
        var isSorted = true
        for index in members.indices.dropFirst() where members[index].key.utf8.lexicographicallyPrecedes(members[index - 1].key.utf8) {
            isSorted = false
            break
        }
        if isSorted { return members }
        // Stable: equal names keep their order.
        return members.enumerated().sorted { a, b in
            if a.element.key == b.element.key { return a.offset < b.offset }
            return a.element.key.utf8.lexicographicallyPrecedes(b.element.key.utf8)
        }.map(\.element)
    }

    /// Appends `text` as a JSON string literal, quotes included.
    public static func writeString(_ text: some StringProtocol, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { buffer in
            writeEscaped(buffer, to: &output)
        }
        if copied == nil {
            var contiguous = String(text)
            contiguous.makeContiguousUTF8()
            contiguous.utf8.withContiguousStorageIfAvailable { buffer in
                writeEscaped(buffer, to: &output)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Appends UTF-8 bytes escaped for a JSON string; runs that need no escape are copied whole.
    ///
    /// The next byte that needs an escape (a quote, a backslash or a control character below
    /// U+0020) is found eight bytes at a time, by the search the parser uses for the end of a
    /// run: a card's text has two at the end of every line.
    public static func writeEscaped(_ buffer: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        let count = buffer.count
        var runStart = 0
        while runStart < count {
            let special = JSONParser.nextSpecialStringByte(in: buffer, from: runStart)
            if runStart < special { output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<special])) }
            guard special < count else { return }
            let byte = buffer[special]
            switch byte {
            case UInt8(ascii: "\""): output.append(0x5C); output.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): output.append(0x5C); output.append(0x5C)
            case 0x0A: output.append(0x5C); output.append(UInt8(ascii: "n"))
            case 0x0D: output.append(0x5C); output.append(UInt8(ascii: "r"))
            case 0x09: output.append(0x5C); output.append(UInt8(ascii: "t"))
            case 0x08: output.append(0x5C); output.append(UInt8(ascii: "b"))
            case 0x0C: output.append(0x5C); output.append(UInt8(ascii: "f"))
            default:
                // \u00XX: the two digits written in the place kept for them.
                output.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), 0, 0])
                output.withUnsafeMutableBytes { HexDigits.write(UInt64(byte), count: 2, into: $0, at: $0.count - 2) }
            }
            runStart = special + 1
        }
    }
}
