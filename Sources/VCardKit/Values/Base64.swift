import ExtrasBase64

/// Base64 (RFC 4648) for inline binary values, with the leniency vCard data needs, over
/// swift-extras-base64 (the package's one Base64; faster than Foundation's `Data` base64 on the
/// corpus photos, see BENCHMARKS.md).
///
/// Decoding accepts what vCard writers produce: white space and line breaks anywhere (2.1 and 3.0
/// fold or indent long `PHOTO` values), the URL-safe alphabet (`-`, `_`), padding or none, and
/// text after the first `=` is ignored; any other character makes the value invalid. Encoding
/// writes the standard alphabet with padding and no line breaks.
///
/// ```swift
/// Base64.decode("SGVs\r\n bG8=")   // [72, 101, 108, 108, 111]
/// Base64.encode(Array("Hello".utf8))   // "SGVsbG8="
/// ```
public enum Base64 {
    /// What a byte of base64 text is: 0–63 a standard digit, or one of the kinds below.
    private static let kinds: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (index, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(byte)] = UInt8(index)
        }
        table[Int(UInt8(ascii: "-"))] = urlSafe
        table[Int(UInt8(ascii: "_"))] = urlSafe
        table[Int(UInt8(ascii: "="))] = padding
        for byte: UInt8 in [0x20, 0x09, 0x0A, 0x0D] { table[Int(byte)] = skipped }
        return table
    }()
    private static let urlSafe: UInt8 = 0xFC
    private static let padding: UInt8 = 0xFD
    private static let skipped: UInt8 = 0xFE
    private static let invalid: UInt8 = 0xFF

    /// Decodes base64, ignoring white space; `nil` when a character is not base64.
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { bytes in kinds.withUnsafeBufferPointer { decode(utf8: bytes, kinds: $0) } }
    }

    private static func decode(utf8 bytes: UnsafeBufferPointer<UInt8>, kinds: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        // Most values are standard digits and padding only: the library decodes the digits before
        // the first `=` as they are, and refuses anything else, which is then read the long way.
        let digitsEnd = firstPadding(in: bytes)
        if digitsEnd % 4 != 1,
           let decoded = try? ExtrasBase64.Base64.decode(bytes: UnsafeBufferPointer(rebasing: bytes[..<digitsEnd]), options: .omitPaddingCharacter) {
            return decoded
        }
        // The digits before the first `=`, checked one by one; text that holds nothing else is decoded in place.
        var end = bytes.count
        var isClean = true
        for index in 0..<bytes.count {
            let kind = kinds[Int(bytes[index])]
            if kind < 64 { continue }
            if kind == padding {
                end = index
                break
            }
            if kind == invalid { return nil }
            isClean = false
        }
        let text = UnsafeBufferPointer(rebasing: bytes[..<end])
        if isClean { return decodeDigits(text) }
        let digits = [UInt8](unsafeUninitializedCapacity: end) { buffer, count in
            count = 0
            for byte in text {
                let kind = kinds[Int(byte)]
                if kind < 64 {
                    buffer[count] = byte
                    count += 1
                } else if kind == urlSafe {
                    buffer[count] = byte == UInt8(ascii: "-") ? UInt8(ascii: "+") : UInt8(ascii: "/")
                    count += 1
                }
            }
        }
        return digits.withUnsafeBufferPointer { decodeDigits($0) }
    }

    /// The index of the first `=`, or `bytes.count`; eight bytes at a time.
    private static func firstPadding(in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var index = 0
        #if _endian(little)
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= bytes.count {
                let equals = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) ^ 0x3D3D_3D3D_3D3D_3D3D
                let found = (equals &- 0x0101_0101_0101_0101) & ~equals & 0x8080_8080_8080_8080
                if found != 0 { return index + found.trailingZeroBitCount >> 3 }
                index += 8
            }
        }
        #endif
        while index < bytes.count && bytes[index] != UInt8(ascii: "=") { index += 1 }
        return index
    }

    /// Standard-alphabet digits without padding; a last digit alone (six bits, no byte) is dropped.
    private static func decodeDigits(_ digits: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let usable = digits.count % 4 == 1 ? UnsafeBufferPointer(rebasing: digits.dropLast()) : digits
        return try? ExtrasBase64.Base64.decode(bytes: usable, options: .omitPaddingCharacter)
    }

    /// Encodes bytes as base64 with padding and no line breaks.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        ExtrasBase64.Base64.encodeToString(bytes: bytes)
    }
}
