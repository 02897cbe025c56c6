/// Finds the cards of plain vCard text without parsing them: the byte ranges from each
/// `BEGIN:VCARD` line to its `END:VCARD` line (nested cards included), as slices of the input.
///
/// It answers `nil` — and the caller frames the input with the full ``VCardKit/VCardParser`` —
/// for anything it is not sure about: UTF-16, text outside cards, a card left open. So a
/// comparison can pair identical cards without copying or parsing them, and leave every
/// unusual input to the parser.
enum CardSplitter {
    /// One card: its bytes and the line its `BEGIN:VCARD` is on (1-based).
    struct Card {
        var range: Range<Int>
        var line: Int
    }

    static func split(_ bytes: [UInt8]) -> [Card]? {
        bytes.withUnsafeBufferPointer { buffer -> [Card]? in
            let count = buffer.count
            if count >= 2 && ((buffer[0] == 0xFF && buffer[1] == 0xFE) || (buffer[0] == 0xFE && buffer[1] == 0xFF)) { return nil }
            if count >= 2 && (buffer[0] == 0 || buffer[1] == 0) { return nil }
            var cards: [Card] = []
            var depth = 0
            var start = 0
            var startLine = 0
            var line = 1
            var position = 0
            if count >= 3 && buffer[0] == 0xEF && buffer[1] == 0xBB && buffer[2] == 0xBF { position = 3 }
            while position < count {
                var end = position
                while end < count && buffer[end] != 0x0A { end += 1 }
                let next = end < count ? end + 1 : end
                var contentEnd = end
                while contentEnd > position && (buffer[contentEnd - 1] == 0x0D || buffer[contentEnd - 1] == 0x20 || buffer[contentEnd - 1] == 0x09) {
                    contentEnd -= 1
                }
                if matches(buffer, position, contentEnd, "BEGIN:VCARD") {
                    if depth == 0 { start = position; startLine = line }
                    depth += 1
                } else if matches(buffer, position, contentEnd, "END:VCARD") {
                    guard depth > 0 else { return nil }
                    depth -= 1
                    if depth == 0 { cards.append(Card(range: start..<next, line: startLine)) }
                } else if depth == 0 && contentEnd > position {
                    return nil  // text outside a card: let the parser report it
                }
                line += 1
                position = next
            }
            return depth == 0 && !cards.isEmpty ? cards : nil
        }
    }

    /// Whether the bytes from `start` to `end` are `literal` (upper-case ASCII), ignoring case.
    private static func matches(_ buffer: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ literal: StaticString) -> Bool {
        guard end - start == literal.utf8CodeUnitCount else { return false }
        let pointer = literal.utf8Start
        for offset in 0..<(end - start) {
            var byte = buffer[start + offset]
            if byte >= 0x61 && byte <= 0x7A { byte -= 0x20 }
            if byte != pointer[offset] { return false }
        }
        return true
    }
}
