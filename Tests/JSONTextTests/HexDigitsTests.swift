import JSONText
import Testing

/// Fixed-width lower-case hexadecimal digits, most significant first, written in place.
@Suite struct HexDigitsTests {
    @Test(arguments: [
        (UInt64(0x1b77_463c), 8, "1b77463c"),
        (UInt64(0xAB), 8, "000000ab"),
        (UInt64(0x0123_4567_89AB_CDEF), 16, "0123456789abcdef"),
        (UInt64.max, 16, "ffffffffffffffff"),
        (UInt64(0xFFFF_0000), 4, "0000"),
        (UInt64(7), 0, ""),
    ])
    func writesTheLowDigitsOfAValue(value: UInt64, count: Int, expected: String) {
        var bytes = [UInt8](repeating: UInt8(ascii: "."), count: count + 2)
        bytes.withUnsafeMutableBytes { HexDigits.write(value, count: count, into: $0, at: 1) }
        #expect(String(decoding: bytes, as: UTF8.self) == "." + expected + ".")
    }
}
