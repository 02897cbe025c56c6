import VCardKit

/// The physical lines of one property, rewritten when only its value changed: the name, group
/// and parameters are copied from the bytes as read (their case and spelling included), the
/// new value follows the colon, folded at 75 octets with the line end the property had.
enum PropertyLine {
    /// The bytes of `property` read as `original` with its value set to `rawValue`; `nil` when
    /// the original cannot be rewritten this way (quoted-printable or other encodings).
    static func replacingValue(original: ArraySlice<UInt8>, with rawValue: String) -> [UInt8]? {
        // The property's own physical lines: the first and its continuations; what follows
        // (blank or unreadable lines kept with it) is written back after the new line.
        var unfolded: [UInt8] = []
        var index = original.startIndex
        var lineEnd: [UInt8] = [0x0D, 0x0A]
        var first = true
        while index < original.endIndex {
            guard first || original[index] == 0x20 || original[index] == 0x09 else { break }
            var position = first ? index : original.index(after: index)
            while position < original.endIndex && original[position] != 0x0A && original[position] != 0x0D {
                unfolded.append(original[position])
                position += 1
            }
            if position < original.endIndex && original[position] == 0x0D {
                lineEnd = position + 1 < original.endIndex && original[position + 1] == 0x0A ? [0x0D, 0x0A] : [0x0D]
            } else if position < original.endIndex {
                lineEnd = [0x0A]
            }
            position += lineEnd.count
            index = min(position, original.endIndex)
            first = false
        }
        let rest = original[index...]
        // The colon that ends the parameters (a quoted parameter value may hold one).
        var quoted = false
        var colon: Int?
        for (offset, byte) in unfolded.enumerated() {
            if byte == UInt8(ascii: "\"") { quoted.toggle() }
            if byte == UInt8(ascii: ":") && !quoted { colon = offset; break }
        }
        guard let colon else { return nil }
        let head = unfolded[..<colon]
        let upper = String(decoding: head, as: UTF8.self).uppercased()
        if upper.contains("ENCODING=") || upper.contains("QUOTED-PRINTABLE") || upper.contains("CHARSET=") { return nil }
        var line = Array(head)
        line.append(UInt8(ascii: ":"))
        line.append(contentsOf: rawValue.utf8)
        var output = fold(line, lineEnd: lineEnd)
        output.append(contentsOf: rest)
        return output
    }

    /// `line` folded into physical lines of at most 75 octets (never inside a UTF-8 sequence).
    static func fold(_ line: [UInt8], lineEnd: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var start = 0
        var limit = 75
        while line.count - start > limit {
            var cut = start + limit
            while cut > start && (line[cut] & 0xC0) == 0x80 { cut -= 1 }
            output.append(contentsOf: line[start..<cut])
            output.append(contentsOf: lineEnd)
            output.append(0x20)
            start = cut
            limit = 74
        }
        output.append(contentsOf: line[start...])
        output.append(contentsOf: lineEnd)
        return output
    }
}
