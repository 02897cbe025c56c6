/// HTML text built from strings: every value that came from a card, a form or a file name goes
/// through ``escape(_:)``; nothing else builds markup.
enum HTML {
    /// Escapes `&`, `<`, `>`, `"` and `'` for text and attribute values.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    /// A link to `path` with `query` (values percent-encoded), escaped for an attribute.
    static func link(_ path: String, _ query: [(String, String)] = []) -> String {
        guard !query.isEmpty else { return escape(path) }
        return escape(path + "?" + query.map { FormFields.encode($0.0) + "=" + FormFields.encode($0.1) }.joined(separator: "&"))
    }
}
