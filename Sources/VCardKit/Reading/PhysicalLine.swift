/// One line of the input as written: where its content starts and ends, and where its line end
/// ends. Offsets are into the card's byte buffer.
struct PhysicalLine: Sendable {
    /// The first byte of the line.
    var start: Int
    /// One past the last content byte (the line end excluded).
    var contentEnd: Int
    /// One past the line end (equal to `contentEnd` for a last line without one).
    var end: Int
    /// The 1-based line number in the input.
    var number: Int

    var isEmpty: Bool { start == contentEnd }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether the bytes in `range` equal `literal` ignoring ASCII case (`literal` must be upper-case).
    @inline(__always)
    func matchesUppercase(_ literal: StaticString, at start: Int, end: Int) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard end - start >= count else { return false }
        let p = literal.utf8Start
        for k in 0..<count {
            var b = self[start + k]
            if b >= 97 && b <= 122 { b -= 32 }
            if b != p[k] { return false }
        }
        return true
    }
}
