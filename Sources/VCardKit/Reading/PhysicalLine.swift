/// One line of the input as written: where its content starts and ends, and where its line end
/// ends. Offsets are into the card's byte buffer.
struct PhysicalLine: Sendable {
    /// The first byte of the line.
    var start: Int
    /// One past the last content byte (the line end excluded).
    var contentEnd: Int
    /// One past the line end (equal to `contentEnd` for a last line without one).
    var end: Int
    /// The 1-based line number in the input.
    var number: Int

    var isEmpty: Bool { start == contentEnd }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether the bytes in `range` equal `literal` ignoring ASCII case (`literal` must be upper-case).
    @inline(__always)
    func matchesUppercase(_ literal: StaticString, at start: Int, end: Int) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard end - start >= count else { return false }
        let p = literal.utf8Start
        for k in 0..<count {
            var b = self[start + k]
            if b >= 97 && b <= 122 { b -= 32 }
            if b != p[k] { return false }
        }
        return true
    }

    /// Whether the bytes in `range` are `literal` exactly, ignoring ASCII case (`literal` must be
    /// upper-case): a parameter or property name compared in place.
    @inline(__always)
    func isName(_ literal: StaticString, _ range: Range<Int>) -> Bool {
        range.count == literal.utf8CodeUnitCount && matchesUppercase(literal, at: range.lowerBound, end: range.upperBound)
    }
}

/// What a line means to the structure of the input: the start or end of a card, the start or end
/// of another component (`BEGIN:VCALENDAR`), or anything else.
enum StructureMarker {
    case beginCard, endCard, beginOther, endOther, none
}

extension UnsafeBufferPointer<UInt8> {
    /// The structure marker of `line` (`BEGIN:VCARD`, `END:VCARD`, …), ignoring ASCII case,
    /// trailing white space and an optional group prefix (`home.begin:vcard`); `grouped` tells
    /// whether there was one. The card reader and the card parser share it, so that they agree on
    /// where nested cards start and end.
    @inline(__always)
    func structureMarker(of line: PhysicalLine) -> (StructureMarker, grouped: Bool) {
        var start = line.start
        var end = line.contentEnd
        while end > start && (self[end - 1] == 0x20 || self[end - 1] == 0x09) { end -= 1 }
        var grouped = false
        // An optional group prefix: "home.begin:vcard".
        var k = start
        while k < end && k - start < 64 {
            let b = self[k]
            if b == 0x2E {
                if k == start { return (.none, false) }
                grouped = true
                start = k + 1
                break
            }
            if b == 0x3A || b == 0x3B { break }
            k += 1
        }
        if matchesUppercase("BEGIN:", at: start, end: end) {
            if matchesUppercase("BEGIN:VCARD", at: start, end: end) && end - start == 11 { return (.beginCard, grouped) }
            return (.beginOther, grouped)
        }
        if matchesUppercase("END:", at: start, end: end) {
            if matchesUppercase("END:VCARD", at: start, end: end) && end - start == 9 { return (.endCard, grouped) }
            return (.endOther, grouped)
        }
        return (.none, grouped)
    }

    /// Whether `line` ends in `:VCARD` (any case, trailing white space ignored): a cheap test that
    /// rules out ``structureMarker(of:)`` being `.beginCard` or `.endCard` for nearly every
    /// property line.
    @inline(__always)
    func endsWithColonVCard(_ line: PhysicalLine) -> Bool {
        var end = line.contentEnd
        while end > line.start && (self[end - 1] == 0x20 || self[end - 1] == 0x09) { end -= 1 }
        guard end - line.start >= 9, self[end - 6] == 0x3A, self[end - 1] | 0x20 == 0x64 else { return false }
        return matchesUppercase("VCARD", at: end - 5, end: end)
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// The index of the first CR or LF in `start..<end`, or `end` when there is none.
    ///
    /// Eight bytes at a time: a byte equal to CR or LF becomes zero after an exclusive or with it,
    /// and `(x - 0x01…01) & ~x & 0x80…80` marks zero bytes (a borrow can only mark bytes above a
    /// true zero, so the lowest mark is always exact).
    @inline(__always)
    func firstLineBreak(from start: Int, to end: Int) -> Int {
        var index = start
        if let base = baseAddress {
            let raw = UnsafeRawPointer(base)
            while index &+ 8 <= end {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let lf = word ^ 0x0A0A_0A0A_0A0A_0A0A
                let cr = word ^ 0x0D0D_0D0D_0D0D_0D0D
                let marks = ((lf &- 0x0101_0101_0101_0101) & ~lf | (cr &- 0x0101_0101_0101_0101) & ~cr) & 0x8080_8080_8080_8080
                if marks != 0 { return index &+ marks.trailingZeroBitCount >> 3 }
                index &+= 8
            }
        }
        while index < end {
            let byte = self[index]
            if byte == 0x0A || byte == 0x0D { return index }
            index += 1
        }
        return end
    }
}
