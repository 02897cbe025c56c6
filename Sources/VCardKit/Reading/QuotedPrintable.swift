/// Quoted-printable decoding (RFC 2045 §6.7) as vCard 2.1 uses it.
enum QuotedPrintable {
    /// Decodes `=XX` escapes and removes soft line breaks (`=` before a line end, or at the very
    /// end). An `=` that starts no valid escape is kept literally, and `isValid` is then `false`.
    static func decode(_ input: [UInt8]) -> (bytes: [UInt8], isValid: Bool) {
        guard input.contains(0x3D) else { return (input, true) }
        var out: [UInt8] = []
        out.reserveCapacity(input.count)
        var valid = true
        var i = 0
        let count = input.count
        while i < count {
            let b = input[i]
            guard b == 0x3D else {
                out.append(b)
                i += 1
                continue
            }
            if i + 1 == count {
                i += 1
                continue
            }
            if input[i + 1] == 0x0D || input[i + 1] == 0x0A {
                i += 1
                if input[i] == 0x0D && i + 1 < count && input[i + 1] == 0x0A { i += 1 }
                i += 1
                continue
            }
            if i + 2 < count, let high = hexValue(input[i + 1]), let low = hexValue(input[i + 2]) {
                out.append(high << 4 | low)
                i += 3
                continue
            }
            valid = false
            out.append(b)
            i += 1
        }
        return (out, valid)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
