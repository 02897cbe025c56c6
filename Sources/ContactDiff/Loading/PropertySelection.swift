/// Cuts a card of plain vCard text down to the properties a job reads, so that the full
/// ``VCardKit/VCardReader`` parses a few short lines instead of the whole card (a photo is most
/// of the bytes of a card that has one).
///
/// The result is the card's `BEGIN:VCARD` line, its `VERSION` lines, every property whose name
/// (after an optional group) is one of `names` with its folded continuation lines, and its
/// `END:VCARD` line, each byte as written. Each logical line of a card is read on its own, given
/// the version, so the properties kept read exactly as they do in the whole card.
///
/// It answers `nil` — the caller parses the whole card — for any card where a line could
/// continue a property other than by folding, or where the version is guessed rather than
/// declared: a blank line inside the card (vCard 2.1 base64 blocks end with one), a line that
/// is neither a fold nor `NAME[;…]:` (unindented base64, a value continued after a backslash),
/// a quoted-printable value whose last line ends with `=` (a soft line break), `AGENT` or a
/// nested card, a lone carriage return, no `VERSION`.
///
/// ```swift
/// let short = PropertySelection.select(["FN", "EMAIL"], from: cardBytes)
/// ```
enum PropertySelection {
    /// The selected lines of the card in `bytes` (from `BEGIN:VCARD` to `END:VCARD` and its line
    /// end), or `nil` when the card must be parsed whole. Names are upper-case.
    static func select(_ names: Set<String>, from bytes: ArraySlice<UInt8>) -> [UInt8]? {
        bytes.withUnsafeBufferPointer { buffer -> [UInt8]? in
            let count = buffer.count
            // Physical lines: [start, next) with content up to the CR/LF (and trailing space) trimmed.
            var lineStart = 0
            var lineIndex = 0
            var selected: [UInt8] = []
            selected.reserveCapacity(512)
            var keeping = false        // whether the current logical line is kept
            var quotedPrintable = false // whether the current logical line's header says quoted-printable
            var lastContentEnd = 0, lastContentStart = 0
            var sawVersion = false
            var sawEnd = false
            while lineStart < count {
                var end = lineStart
                while end < count && buffer[end] != 0x0A { end += 1 }
                let next = end < count ? end + 1 : end
                var contentEnd = end
                if contentEnd > lineStart && buffer[contentEnd - 1] == 0x0D { contentEnd -= 1 }
                // A carriage return anywhere else is a line end the parser would see.
                for offset in lineStart..<contentEnd where buffer[offset] == 0x0D { return nil }
                defer { lineStart = next; lineIndex += 1 }
                if lineIndex == 0 {
                    // BEGIN:VCARD (CardSplitter made sure).
                    selected.append(contentsOf: buffer[lineStart..<next])
                    continue
                }
                let first = contentEnd > lineStart ? buffer[lineStart] : 0
                if first == 0x20 || first == 0x09 {
                    // A folded continuation of the logical line before.
                    if keeping { selected.append(contentsOf: buffer[lineStart..<next]) }
                    lastContentStart = lineStart
                    lastContentEnd = contentEnd
                    continue
                }
                // A new logical line: the previous one must not end in a quoted-printable soft break.
                if quotedPrintable && endsWithEquals(buffer, lastContentStart, lastContentEnd) { return nil }
                if isBlank(buffer, lineStart, contentEnd) { return nil }
                if matches(buffer, lineStart, contentEnd, "END:VCARD") {
                    guard next == count else { return nil }  // a nested card
                    selected.append(contentsOf: buffer[lineStart..<next])
                    sawEnd = true
                    continue
                }
                if matches(buffer, lineStart, contentEnd, "BEGIN:VCARD") { return nil }
                guard let header = header(buffer, lineStart, contentEnd) else { return nil }
                let name = String(decoding: UnsafeBufferPointer(rebasing: buffer[header.name]), as: UTF8.self).uppercased()
                if name == "AGENT" { return nil }
                if name == "VERSION" { sawVersion = true }
                quotedPrintable = header.mentionsQuotedPrintable
                keeping = name == "VERSION" || names.contains(name)
                if keeping { selected.append(contentsOf: buffer[lineStart..<next]) }
                lastContentStart = lineStart
                lastContentEnd = contentEnd
            }
            return sawVersion && sawEnd ? selected : nil
        }
    }

    /// The name's range (after any group) of a line that starts a property, and whether its
    /// parameters mention quoted-printable; `nil` when the line does not start with
    /// `[group.]NAME` followed by `;` or `:` (the parser's own test for a property line).
    private static func header(_ buffer: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int)
        -> (name: Range<Int>, mentionsQuotedPrintable: Bool)? {
        var nameStart = start
        var position = start
        while position < end {
            let byte = buffer[position]
            if byte == 0x3A || byte == 0x3B { break }
            let isNameByte = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x2D || byte == 0x5F
            if byte == 0x2E {
                guard nameStart == start else { return nil }  // one group at most
                nameStart = position + 1
            } else if !isNameByte {
                return nil
            }
            position += 1
        }
        guard position < end, position > nameStart else { return nil }
        // Parameters up to the value's ':', which must be on this line (parameters folded onto
        // the next one are left to the parser): any mention of QUOTED-PRINTABLE, quoted or not,
        // counts, erring on the side of parsing the whole card.
        var mentionsQuotedPrintable = false
        var scan = position
        while scan < end && buffer[scan] != 0x3A {
            if !mentionsQuotedPrintable && scan + 16 <= end && matches(buffer, scan, scan + 16, "QUOTED-PRINTABLE") {
                mentionsQuotedPrintable = true
            }
            scan += 1
        }
        guard scan < end else { return nil }
        return (nameStart..<position, mentionsQuotedPrintable)
    }

    private static func isBlank(_ buffer: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        for offset in start..<end where buffer[offset] != 0x20 && buffer[offset] != 0x09 { return false }
        return true
    }

    /// Whether the line's content ends with `=`, ignoring trailing spaces and tabs.
    private static func endsWithEquals(_ buffer: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        var position = end
        while position > start && (buffer[position - 1] == 0x20 || buffer[position - 1] == 0x09) { position -= 1 }
        return position > start && buffer[position - 1] == 0x3D
    }

    /// Whether the bytes from `start` to `end` (trailing spaces and tabs ignored) are `literal`, ignoring case.
    private static func matches(_ buffer: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ literal: StaticString) -> Bool {
        var end = end
        while end > start && (buffer[end - 1] == 0x20 || buffer[end - 1] == 0x09) { end -= 1 }
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
