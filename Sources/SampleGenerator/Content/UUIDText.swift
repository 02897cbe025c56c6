/// Formats 128 random bits as an RFC 9562 version 4 UUID.
enum UUIDText {
    private static let lowerDigits = Array("0123456789abcdef".utf8)
    private static let upperDigits = Array("0123456789ABCDEF".utf8)

    /// Returns `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx` built from `random`'s next 128 bits.
    static func make(using random: inout SeededRandom, uppercase: Bool = false) -> String {
        let high = (random.next() & ~0xF000) | 0x4000
        let low = (random.next() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        let digits = uppercase ? upperDigits : lowerDigits
        var bytes = [UInt8]()
        bytes.reserveCapacity(36)
        for (position, shift) in stride(from: 60, through: 0, by: -4).enumerated() {
            if position == 8 || position == 12 { bytes.append(UInt8(ascii: "-")) }
            bytes.append(digits[Int(high >> UInt64(shift) & 0xF)])
        }
        for (position, shift) in stride(from: 60, through: 0, by: -4).enumerated() {
            if position == 0 || position == 4 { bytes.append(UInt8(ascii: "-")) }
            bytes.append(digits[Int(low >> UInt64(shift) & 0xF)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
