/// Standard Base64 (RFC 4648, with padding), written directly as ASCII bytes.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Returns the Base64 text of `bytes`.
    static func encode(_ bytes: [UInt8]) -> String {
        var output = [UInt8]()
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let word = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            output.append(alphabet[Int(word >> 18 & 0x3F)])
            output.append(alphabet[Int(word >> 12 & 0x3F)])
            output.append(alphabet[Int(word >> 6 & 0x3F)])
            output.append(alphabet[Int(word & 0x3F)])
            index += 3
        }
        let remaining = bytes.count - index
        if remaining > 0 {
            let first = UInt32(bytes[index]) << 16
            let second = remaining == 2 ? UInt32(bytes[index + 1]) << 8 : 0
            let word = first | second
            output.append(alphabet[Int(word >> 18 & 0x3F)])
            output.append(alphabet[Int(word >> 12 & 0x3F)])
            output.append(remaining == 2 ? alphabet[Int(word >> 6 & 0x3F)] : UInt8(ascii: "="))
            output.append(UInt8(ascii: "="))
        }
        return String(decoding: output, as: UTF8.self)
    }
}
