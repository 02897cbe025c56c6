#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import JSONText

/// Decoding of the charsets vCard files name in `CHARSET` parameters, through the C library's
/// iconv: UTF-8, US-ASCII, ISO-8859-1…15, Windows-1250…1258, Shift_JIS, EUC-JP, GB2312, GBK,
/// GB18030, Big5, KOI8-R and every other charset iconv knows.
enum Charsets {
    /// Whether `name` names UTF-8 or a subset of it.
    static func isUTF8(_ name: String) -> Bool {
        let upper = name.asciiUppercased
        return upper == "UTF-8" || upper == "UTF8" || upper == "US-ASCII" || upper == "ASCII"
    }

    /// Decodes `bytes` from the charset `name`; `nil` when the charset is unknown or the bytes
    /// are not valid in it.
    static func decode(_ bytes: [UInt8], charset name: String) -> String? {
        if isUTF8(name) { return String(exactUTF8: bytes) }
        let upper = name.asciiUppercased
        if upper == "ISO-8859-1" || upper == "LATIN1" || upper == "ISO8859-1" {
            var scalars = String.UnicodeScalarView()
            scalars.append(contentsOf: bytes.map { Unicode.Scalar($0) })
            return String(scalars)
        }
        let alias: String
        switch upper {
        case "SHIFT-JIS", "SJIS", "X-SJIS": alias = "SHIFT_JIS"
        case "WINDOWS-31J": alias = "CP932"
        default: alias = upper
        }
        return iconvDecode(bytes, from: alias)
    }

    private static func iconvDecode(_ bytes: [UInt8], from charset: String) -> String? {
        let descriptor = iconv_open("UTF-8", charset)
        if descriptor == iconv_t(bitPattern: -1) { return nil }
        defer { iconv_close(descriptor) }
        if bytes.isEmpty { return "" }
        var input = bytes.map { CChar(bitPattern: $0) }
        var output = [CChar](repeating: 0, count: bytes.count * 4 + 16)
        let produced: Int? = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                var inPointer: UnsafeMutablePointer<CChar>? = inBuffer.baseAddress
                var inLeft = inBuffer.count
                var outPointer: UnsafeMutablePointer<CChar>? = outBuffer.baseAddress
                var outLeft = outBuffer.count
                let result = iconv(descriptor, &inPointer, &inLeft, &outPointer, &outLeft)
                if result == -1 || inLeft != 0 { return nil }
                return outBuffer.count - outLeft
            }
        }
        guard let produced else { return nil }
        return String(exactUTF8: output[0..<produced].map { UInt8(bitPattern: $0) })
    }
}
