/// Value encodings shared by vCard 3.0 and 4.0.
enum TextEscaping {
    /// Escapes a TEXT value or one component of a structured value.
    ///
    /// Writes `\\`, `\,`, `\;` and `\n` (RFC 2426 section 4, RFC 6350 section 3.4). A CR LF pair or
    /// a lone CR also becomes `\n`.
    static func text(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == 0x5C || $0 == 0x2C || $0 == 0x3B || $0 == 0x0A || $0 == 0x0D })
        else { return value }
        var bytes = [UInt8]()
        bytes.reserveCapacity(value.utf8.count + 8)
        var previousWasCR = false
        for byte in value.utf8 {
            switch byte {
            case 0x5C, 0x2C, 0x3B:
                bytes.append(0x5C)
                bytes.append(byte)
            case 0x0A:
                if !previousWasCR {
                    bytes.append(0x5C)
                    bytes.append(UInt8(ascii: "n"))
                }
            case 0x0D:
                bytes.append(0x5C)
                bytes.append(UInt8(ascii: "n"))
            default:
                bytes.append(byte)
            }
            previousWasCR = byte == 0x0D
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Escapes each value and joins them with unescaped commas (NICKNAME, CATEGORIES, N components).
    static func list(_ values: [String]) -> String {
        values.map(text).joined(separator: ",")
    }

    /// Escapes each component and joins them with unescaped semicolons (N, ADR, ORG).
    static func structured(_ components: [String]) -> String {
        components.map(text).joined(separator: ";")
    }

    /// Encodes a parameter value per RFC 6868: `^` → `^^`, newline → `^n`, `"` → `^'` (vCard 4.0).
    static func caret(_ value: String) -> String {
        var result = ""
        result.reserveCapacity(value.utf8.count + 8)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "^": result += "^^"
            case "\n": result += "^n"
            case "\"": result += "^'"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
