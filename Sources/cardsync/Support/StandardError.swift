#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing to standard error, for diagnostics and progress (standard output carries results only).
enum StandardError {
    /// Writes `text` and a line end to standard error (clearing a progress line first).
    static func print(_ text: String) {
        TerminalLine.shared.print(CredentialRedaction.redact(text) + "\n")
    }

    /// Whether standard error is a terminal (colour and progress only then).
    static var isTerminal: Bool { isatty(2) == 1 }

    /// Whether standard output is a terminal.
    static var isOutputTerminal: Bool { isatty(1) == 1 }
}
