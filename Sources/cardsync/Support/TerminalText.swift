/// Text that quotes input, made safe for a terminal: control characters (C0, DEL, C1) are shown
/// as escapes (`\0`, `\t`, `\x1B`, `\u{85}`) instead of reaching the terminal, where a NUL, a
/// carriage return or an escape sequence would hide or rewrite what is printed.
enum TerminalText {
    /// `text` with every control character escaped; line feeds too unless `keepingLineFeeds`.
    static func escaped(_ text: String, keepingLineFeeds: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) && !(keepingLineFeeds && $0 == "\n") }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard isControl(scalar), !(keepingLineFeeds && scalar == "\n") else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\0": out += "\\0"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += scalar.value < 0x80 ? "\\x" + (hex.count == 1 ? "0" : "") + hex : "\\u{" + hex + "}"
            }
        }
        return out
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
