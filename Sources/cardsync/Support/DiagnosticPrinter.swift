#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
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

    /// The text of the requested physical lines of a file (UTF-8 or UTF-16, any line ends), each
    /// cut at 400 bytes. The file is read only up to the last line wanted, and line ends are found
    /// with `memchr`: a warning near the end of a large file does not cost a byte-by-byte walk.
    private static func lines(_ wanted: Set<Int>, of path: String) -> [Int: String] {
        guard !wanted.isEmpty, let source = try? ByteSource(path: path) else { return [:] }
        let targets = wanted.sorted()
        var nextTarget = 0
        var found: [Int: String] = [:]
        var number = 1
        var current: [UInt8] = []
        var previousCR = false
        var buffer: [UInt8] = []
        var first = true
        reading: while nextTarget < targets.count {
            guard (try? source.read(into: &buffer)) != nil, !buffer.isEmpty else { break }
            if first {
                first = false
                let isUTF16 = buffer.count > 1 && (buffer[0] == 0 || buffer[1] == 0 || buffer.starts(with: [0xFF, 0xFE]) || buffer.starts(with: [0xFE, 0xFF]))
                if isUTF16 { return [:] }
            }
            let finished = buffer.withUnsafeBufferPointer { chunk -> Bool in
                guard let base = chunk.baseAddress else { return false }
                let count = chunk.count
                var nextCR = -1, nextLF = -1
                var k = 0
                while k < count {
                    if nextCR < k { nextCR = memchr(base + k, 0x0D, count - k).map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base } ?? count }
                    if nextLF < k { nextLF = memchr(base + k, 0x0A, count - k).map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base } ?? count }
                    let end = min(nextCR, nextLF)
                    if end > k {
                        previousCR = false
                        if number == targets[nextTarget] && current.count < 400 {
                            current.append(contentsOf: chunk[k..<min(end, k + 400 - current.count)])
                        }
                    }
                    if end == count { break }
                    let lineEnd = chunk[end]
                    k = end + 1
                    // (`previousCR` holds only while nothing followed the CR: this LF completes a CRLF.)
                    if lineEnd == 0x0A && previousCR {
                        previousCR = false
                        continue
                    }
                    previousCR = lineEnd == 0x0D
                    if number == targets[nextTarget] {
                        found[number] = String(decoding: current, as: UTF8.self)
                        current.removeAll(keepingCapacity: true)
                        nextTarget += 1
                        if nextTarget == targets.count { return true }
                    }
                    number += 1
                }
                return false
            }
            if finished { break reading }
        }
        if nextTarget < targets.count, number == targets[nextTarget], !current.isEmpty {
            found[number] = String(decoding: current, as: UTF8.self)
        }
        return found
    }
}
