/// Hides credentials in URLs before text reaches the terminal: `http://user:secret@host/db`
/// prints as `http://***@host/db`. Applied to everything cardsync prints on standard error and
/// in `--format json` output, so a URL given as an argument never echoes its password.
enum CredentialRedaction {
    /// `text` with the user-information part of every `scheme://user:password@host` replaced.
    static func redact(_ text: String) -> String {
        guard text.contains("://") else { return text }
        var output = ""
        var rest = Substring(text)
        while let separator = rest.range(of: "://") {
            output += rest[..<separator.upperBound]
            rest = rest[separator.upperBound...]
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" || $0.isWhitespace || $0 == "\"" || $0 == "'" }
                ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@") {
                output += "***"
                rest = rest[at...]
            }
        }
        return output + rest
    }
}
