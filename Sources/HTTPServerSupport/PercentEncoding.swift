/// `%XX` escapes in URLs, query strings and form bodies, as both servers of the package (`cardsync
/// serve` and `cardsync web`) read and write them.
public enum PercentEncoding {
    /// Decodes `%XX` escapes, and `+` as a space when `plusIsSpace` (query strings and
    /// `application/x-www-form-urlencoded` bodies).
    /// - Returns: the text, or `nil` for a broken escape or bytes that are not UTF-8.
    public static func decode(_ text: some StringProtocol, plusIsSpace: Bool = false) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            } else if plusIsSpace, byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Encodes every byte of `text` as `%XX` except ASCII letters and digits and the punctuation
    /// in `keeping`.
    ///
    /// ```swift
    /// PercentEncoding.encode("a b/é", keeping: PercentEncoding.unreserved)   // "a%20b%2F%C3%A9"
    /// ```
    public static func encode(_ text: String, keeping: Set<UInt8>) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                output.append(byte)
            case _ where keeping.contains(byte):
                output.append(byte)
            default:
                output.append(contentsOf: [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// RFC 3986's unreserved punctuation (`- . _ ~`): what a query string built for a browser keeps.
    public static let unreserved: Set<UInt8> = Set("-._~".utf8)

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
