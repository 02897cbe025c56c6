#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing to standard error, for diagnostics and progress (standard output carries results only).
enum StandardError {
    /// Writes `text` and a line end to standard error.
    static func print(_ text: String) {
        var line = CredentialRedaction.redact(text)
        line.append("\n")
        var remaining = Array(line.utf8)[...]
        while !remaining.isEmpty {
            let written = remaining.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            if written <= 0 { return }
            remaining = remaining.dropFirst(written)
        }
    }

    /// Whether standard error is a terminal (colour and progress only then).
    static var isTerminal: Bool { isatty(2) == 1 }

    /// Whether standard output is a terminal.
    static var isOutputTerminal: Bool { isatty(1) == 1 }
}
