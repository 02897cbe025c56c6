import VCardKit

/// Prints diagnostics like a compiler: the location, the severity, the message and code, and the
/// line of input with a caret under the column.
///
/// ```
/// contacts.vcf:12:7: warning: parameter "HOME" has no name; it was read as TYPE=HOME [bare-parameter]
///  12 | TEL;HOME:+1 555 0100
///     |       ^
/// ```
struct DiagnosticPrinter {
    /// Whether to colour the severity (only on terminals).
    var usesColor: Bool
    /// Snippets are shown for at most this many diagnostics per file, so huge outputs stay readable.
    var snippetLimit = 50
    /// When set, at most this many diagnostics of each code are printed; the rest are counted in
    /// one closing line per code.
    var limitPerCode: Int?

    /// The printable text of `diagnostics`, all from the file `path`.
    func render(_ all: [Diagnostic], path: String) -> String {
        var diagnostics = all
        var omitted: [(Diagnostic.Code, Diagnostic.Severity, Int)] = []
        if let limit = limitPerCode {
            var seen: [Diagnostic.Code: Int] = [:]
            diagnostics = all.filter { diagnostic in
                seen[diagnostic.code, default: 0] += 1
                return seen[diagnostic.code]! <= limit
            }
            for (code, count) in seen.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where count > limit {
                let severity = all.first { $0.code == code }?.severity ?? .warning
                omitted.append((code, severity, count - limit))
            }
        }
        let wanted = Set(diagnostics.prefix(snippetLimit).map(\.location.line))
        let lines = path == "-" ? [:] : Self.lines(wanted, of: path)
        var out = ""
        for (index, diagnostic) in diagnostics.enumerated() {
            let severity = diagnostic.severity.rawValue
            let painted = usesColor ? (diagnostic.severity == .error ? "\u{1B}[1;31m\(severity)\u{1B}[0m" : "\u{1B}[1;35m\(severity)\u{1B}[0m") : severity
            out += "\(TerminalText.escaped(diagnostic.location.description)): \(painted): \(TerminalText.escaped(diagnostic.message)) [\(diagnostic.code)]\n"
            if index < snippetLimit, let text = lines[diagnostic.location.line] {
                let number = String(diagnostic.location.line)
                let gutter = String(repeating: " ", count: number.count)
                let shown = String(text.unicodeScalars.prefix(160).map { $0.value < 0x20 ? "·" : Character($0) })
                out += " \(number) | \(shown)\n"
                out += " \(gutter) | \(String(repeating: " ", count: max(0, min(diagnostic.location.column - 1, 160))))^\n"
            }
        }
        for (code, severity, count) in omitted {
            out += "\(path): note: \(count) more \(severity.rawValue)\(count == 1 ? "" : "s") like the ones above [\(code)]\n"
        }
        return out
    }

    /// The text of the requested physical lines of a file (UTF-8 or UTF-16, any line ends).
    private static func lines(_ wanted: Set<Int>, of path: String) -> [Int: String] {
        guard !wanted.isEmpty, let source = try? ByteSource(path: path) else { return [:] }
        var found: [Int: String] = [:]
        var number = 1
        var current: [UInt8] = []
        var previousCR = false
        let maxWanted = wanted.max() ?? 0
        var isUTF16 = false
        var first = true
        try? source.forEachChunk { chunk in
            if first {
                first = false
                isUTF16 = chunk.count > 1 && (chunk[0] == 0 || chunk[1] == 0 || chunk.starts(with: [0xFF, 0xFE]) || chunk.starts(with: [0xFE, 0xFF]))
            }
            guard !isUTF16, number <= maxWanted else { return }
            for byte in chunk {
                if byte == 0x0A && previousCR { previousCR = false; continue }
                previousCR = byte == 0x0D
                if byte == 0x0A || byte == 0x0D {
                    if wanted.contains(number) { found[number] = String(decoding: current, as: UTF8.self) }
                    number += 1
                    current.removeAll(keepingCapacity: true)
                    if number > maxWanted { return }
                } else if current.count < 400 {
                    current.append(byte)
                }
            }
        }
        if wanted.contains(number), !current.isEmpty { found[number] = String(decoding: current, as: UTF8.self) }
        return found
    }
}
