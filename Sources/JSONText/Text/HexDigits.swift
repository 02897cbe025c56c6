/// Lower-case hexadecimal digits written in place, for the fixed-width hexadecimal numbers the
/// package stores (content hashes, journal checksums), without an `Array.append` per digit.
public enum HexDigits {
    /// Writes the `count` low hexadecimal digits of `value` (at most 16), most significant
    /// first, into `out` from `start`.
    ///
    /// ```swift
    /// HexDigits.write(0x1b77_463c, count: 8, into: buffer, at: 0)   // "1b77463c"
    /// ```
    @inlinable
    public static func write(_ value: UInt64, count: Int, into out: UnsafeMutableRawBufferPointer, at start: Int) {
        precondition((0...16).contains(count), "a UInt64 has 16 hexadecimal digits")
        for index in 0..<count {
            let nibble = UInt8(truncatingIfNeeded: value >> UInt64(4 * (count - 1 - index))) & 0xF
            out[start + index] = nibble < 10 ? 0x30 + nibble : 0x57 + nibble
        }
    }
}
