extension UnsafeBufferPointer<UInt8> {
    /// Whether the bytes are well-formed UTF-8, as `String(validating:as:)` decides (the Unicode
    /// Standard's table of well-formed byte sequences: no overlong forms, no surrogates, nothing
    /// above U+10FFFF, no sequence cut short), without making a `String` of them.
    ///
    /// ASCII is skipped eight bytes at a time.
    public var isValidUTF8: Bool {
        guard let base = baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        let count = self.count
        var index = 0
        while index < count {
            if index &+ 8 <= count,
               raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index &+= 8
                continue
            }
            let lead = self[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            @inline(__always) func isContinuation(_ offset: Int) -> Bool { self[index + offset] & 0xC0 == 0x80 }
            switch lead {
            case 0xC2...0xDF:
                guard index + 1 < count, isContinuation(1) else { return false }
                index += 2
            case 0xE0...0xEF:
                guard index + 2 < count else { return false }
                let second = self[index + 1]
                // E0 needs A0…BF (no overlong form), ED needs 80…9F (no surrogate).
                let lowest: UInt8 = lead == 0xE0 ? 0xA0 : 0x80
                let highest: UInt8 = lead == 0xED ? 0x9F : 0xBF
                guard second >= lowest, second <= highest, isContinuation(2) else { return false }
                index += 3
            case 0xF0...0xF4:
                guard index + 3 < count else { return false }
                let second = self[index + 1]
                // F0 needs 90…BF (no overlong form), F4 needs 80…8F (nothing above U+10FFFF).
                let lowest: UInt8 = lead == 0xF0 ? 0x90 : 0x80
                let highest: UInt8 = lead == 0xF4 ? 0x8F : 0xBF
                guard second >= lowest, second <= highest, isContinuation(2), isContinuation(3) else { return false }
                index += 4
            default:
                // A continuation byte without a lead, C0/C1 (overlong) or F5…FF.
                return false
            }
        }
        return true
    }
}
