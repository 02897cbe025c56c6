import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The last line of the terminal behind standard error, as far as progress goes: whether a
/// progress line is on it, so that other text clears it first.
///
/// `@unchecked Sendable`: `isDrawn` and the writes are guarded by `lock`.
final class TerminalLine: @unchecked Sendable {
    /// The one terminal line.
    static let shared = TerminalLine()

    private let lock = NSLock()
    private var isDrawn = false

    /// Replaces the line with `text`.
    func draw(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        Self.put("\r\u{1B}[K" + text)
        isDrawn = true
    }

    /// Clears the line, if a progress line is on it.
    func clear() {
        lock.lock()
        defer { lock.unlock() }
        if isDrawn { Self.put("\r\u{1B}[K") }
        isDrawn = false
    }

    /// Writes `text` (whole lines) to standard error, clearing a progress line first; the next
    /// progress update draws it again below.
    func print(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        Self.put((isDrawn ? "\r\u{1B}[K" : "") + text)
        isDrawn = false
    }

    /// Writes all of `text` to standard error (file descriptor 2), unbuffered.
    private static func put(_ text: String) {
        var remaining = Array(text.utf8)[...]
        while !remaining.isEmpty {
            let written = remaining.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            if written <= 0 { return }
            remaining = remaining.dropFirst(written)
        }
    }
}
