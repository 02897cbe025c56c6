extension JSONValue {
    /// The value as compact JSON text (no whitespace), members in order, UTF-8 unescaped.
    public func serialized() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(64)
        write(to: &output)
        return output
    }

    /// Appends the value as compact JSON text to `output`.
    public func write(to output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let text): output.append(contentsOf: text.utf8)
        case .string(let text): Self.writeString(text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                element.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            object.write(to: &output)
        }
    }

    /// Appends `text` as a JSON string literal.
    static func writeString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): output.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: output.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x08: output.append(contentsOf: [0x5C, UInt8(ascii: "b")])
            case 0x0C: output.append(contentsOf: [0x5C, UInt8(ascii: "f")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                           hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}

extension JSONObject {
    /// The object as compact JSON text.
    public func serialized() -> [UInt8] {
        var output: [UInt8] = []
        write(to: &output)
        return output
    }

    /// Appends the object as compact JSON text to `output`.
    public func write(to output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
        for (offset, member) in members.enumerated() {
            if offset > 0 { output.append(UInt8(ascii: ",")) }
            JSONValue.writeString(member.key, to: &output)
            output.append(UInt8(ascii: ":"))
            member.value.write(to: &output)
        }
        output.append(UInt8(ascii: "}"))
    }
}
