/// The contact formats cardsync reads and writes.
public enum ContactFormat: String, Sendable, Hashable, CaseIterable {
    /// vCard text (2.1, 3.0, 4.0).
    case vcard
    /// jCard, RFC 7095.
    case jcard
    /// xCard, RFC 6351.
    case xcard

    /// Guesses the format from the first bytes of an input (not from its name): `[` starts
    /// jCard, `<` starts xCard, anything else is read as vCard text. A byte order mark and
    /// leading white space are skipped; UTF-16 input is vCard text.
    public static func detect(_ head: some Collection<UInt8>) -> ContactFormat {
        var iterator = head.makeIterator()
        var index = 0
        while let byte = iterator.next() {
            defer { index += 1 }
            if index < 3 && (byte == 0xEF || byte == 0xBB || byte == 0xBF) { continue }
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { continue }
            switch byte {
            case 0x5B: return .jcard
            case 0x3C: return .xcard
            default: return .vcard
            }
        }
        return .vcard
    }
}
