#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import JSONText

/// Reads one card written in the plain syntax of vCard 3.0 and 4.0 — every logical line a
/// property, folded only by a leading space or tab, in UTF-8, without 2.1 encodings — without
/// the full reader's set-up, checks and diagnostics.
///
/// It gives exactly the ``VCard`` that ``VCardReader/read(_:sourceName:options:)`` gives for such a
/// card (properties, groups, parameters, raw values and the bytes each was read from), and
/// answers `nil` for every card it is not sure about, which the caller then reads with the full
/// reader: no `VERSION:3.0` or `VERSION:4.0` line; a blank line, a lone carriage return or a line
/// that is neither a fold nor `[group.]NAME[;params]:value`; an unclosed quote in a
/// parameter; `ENCODING`, `CHARSET` or a bare `B`, `BASE64` or
/// `QUOTED-PRINTABLE` parameter;
/// a value with a control character, invalid UTF-8 or a trailing backslash (a device quirk the
/// full reader joins with the next line); `AGENT`; a nested card, or any line (a fold too) the
/// card finder takes for a `BEGIN:` or `END:` line; a line longer than the reader's limit.
///
/// This is the fast path of jobs that read many small cards, such as `cardsync duplicates`
/// reading the few properties it needs from each card of a large book.
///
/// ```swift
/// let card = PlainCardReader.read(bytes, sourceName: "book.vcf") ?? (try VCardReader.read(bytes)).cards.first
/// ```
public enum PlainCardReader {
    /// The card in `bytes` (from its `BEGIN:VCARD` line to its `END:VCARD` line and line end),
    /// or `nil` when it must be read by ``VCardReader``.
    ///
    /// - Parameters:
    ///   - names: when given, only the properties with these names (upper case, after
    ///   any group) and `VERSION` are read; the other lines are only checked for the syntax this
    ///   reader needs, and their values are not decoded (a photo is most of a card's bytes).
    ///   - firstLine: the line of the input that `bytes` start on, for the properties' ``VCardProperty/line``.
    public static func read(_ bytes: ArraySlice<UInt8>, sourceName: String, firstLine: Int = 1, selecting names: Set<String>? = nil,
                            options: VCardReadOptions = .lenient) -> VCard? {
        guard bytes.count <= options.maximumCardBytes else { return nil }
        return bytes.withUnsafeBufferPointer { buffer -> VCard? in
            guard let lines = physicalLines(buffer, firstLine: firstLine, maximumLineBytes: options.maximumLineBytes), lines.count >= 2,
                  buffer.matchesUppercaseExactly("BEGIN:VCARD", lines[0]),
                  buffer.matchesUppercaseExactly("END:VCARD", lines[lines.count - 1]),
                  let version = declaredVersion(buffer, lines) else { return nil }
            var properties: [VCardProperty] = []
            properties.reserveCapacity(names == nil ? lines.count - 2 : 8)
            var scratch: [UInt8] = []
            var index = 1
            let last = lines.count - 1
            while index < last {
                let first = lines[index]
                guard first.contentEnd > first.start, !isFold(buffer, first), !isStructureLine(buffer, first),
                      let name = header(buffer, first), name != "AGENT" else { return nil }
                var next = index + 1
                while next < last, isFold(buffer, lines[next]) {
                    // A fold that holds only white space is a blank line to the full reader, and
                    // one the card finder takes for a BEGIN or END line (" x.begin:vcard") ends
                    // or nests a card there.
                    guard !isWhitespaceOnly(buffer, lines[next]), !isStructureLine(buffer, lines[next]) else { return nil }
                    next += 1
                }
                if names == nil || name == "VERSION" || names!.contains(name) {
                    scratch.removeAll(keepingCapacity: true)
                    scratch.append(contentsOf: buffer[first.start..<first.contentEnd])
                    for fold in lines[(index + 1)..<next] {
                        scratch.append(contentsOf: buffer[(fold.start + 1)..<fold.contentEnd])
                    }
                    let original = (bytes.startIndex + first.start)..<(bytes.startIndex + lines[next - 1].end)
                    guard let property = property(scratch, version: version, original: bytes[original], line: first.number)
                    else { return nil }
                    properties.append(property)
                }
                index = next
            }
            let begin = lines[0]
            let end = lines[last]
            return VCard(properties: properties,
                         originalBegin: bytes[bytes.startIndex..<(bytes.startIndex + begin.end)],
                         originalEnd: bytes[(bytes.startIndex + end.start)..<(bytes.startIndex + end.end)],
                         location: SourceLocation(source: sourceName, line: firstLine, column: 1),
                         sourceVersion: version)
        }
    }

    /// The lines of the card split at LF (a CR right before it is part of the line end); `nil`
    /// when a carriage return stands anywhere else or a line is longer than the limit. Each line
    /// end and stray carriage return is found with `memchr` (a byte loop was a sixth of this
    /// reader's time, most of a card's bytes being a photo's folded lines).
    private static func physicalLines(_ buffer: UnsafeBufferPointer<UInt8>, firstLine: Int, maximumLineBytes: Int) -> [PhysicalLine]? {
        var lines: [PhysicalLine] = []
        lines.reserveCapacity(24)
        guard let base = buffer.baseAddress else { return lines }
        var start = 0
        var number = firstLine
        let count = buffer.count
        while start < count {
            let end = memchr(base + start, 0x0A, count - start).map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? count
            // A carriage return may stand only right before the line's LF.
            let bareReturnsEnd = end < count ? end - 1 : end
            if bareReturnsEnd > start, memchr(base + start, 0x0D, bareReturnsEnd - start) != nil { return nil }
            let contentEnd = end > start && buffer[end - 1] == 0x0D ? end - 1 : end
            guard contentEnd - start <= maximumLineBytes else { return nil }
            let next = end < count ? end + 1 : end
            lines.append(PhysicalLine(start: start, contentEnd: contentEnd, end: next, number: number))
            number += 1
            start = next
        }
        return lines
    }

    /// `3.0` or `4.0` from the card's first `VERSION:` line; `nil` for anything else, for a
    /// `VERSION` with parameters and for a card with none.
    private static func declaredVersion(_ buffer: UnsafeBufferPointer<UInt8>, _ lines: [PhysicalLine]) -> VCardVersion? {
        for line in lines.dropFirst().dropLast() {
            if buffer.matchesUppercase("VERSION;", at: line.start, end: line.contentEnd) { return nil }
            guard buffer.matchesUppercase("VERSION:", at: line.start, end: line.contentEnd) else { continue }
            var start = line.start + 8
            var end = line.contentEnd
            while start < end && buffer[start] == 0x20 { start += 1 }
            while end > start && buffer[end - 1] == 0x20 { end -= 1 }
            guard end - start == 3, buffer[start + 1] == 0x2E, buffer[start + 2] == 0x30 else { return nil }
            switch buffer[start] {
            case 0x33: return .v3_0
            case 0x34: return .v4_0
            default: return nil
            }
        }
        return nil
    }

    private static func isFold(_ buffer: UnsafeBufferPointer<UInt8>, _ line: PhysicalLine) -> Bool {
        line.contentEnd > line.start && (buffer[line.start] == 0x20 || buffer[line.start] == 0x09)
    }

    /// Whether the card finder (``VCardParser``) takes the line for a `BEGIN:` or `END:` line,
    /// a group prefix allowed: such a line inside a card nests or cuts it, which only the full
    /// reader follows.
    private static func isStructureLine(_ buffer: UnsafeBufferPointer<UInt8>, _ line: PhysicalLine) -> Bool {
        buffer.structureMarker(of: line).0 != .none
    }

    private static func isWhitespaceOnly(_ buffer: UnsafeBufferPointer<UInt8>, _ line: PhysicalLine) -> Bool {
        for offset in line.start..<line.contentEnd where buffer[offset] != 0x20 && buffer[offset] != 0x09 { return false }
        return true
    }

    /// The upper-case name (without group) of the property a line starts, when the line is `[group.]NAME` and
    /// then `;` or `:`, its parameters end on this line, and they do not mention
    /// `QUOTED-PRINTABLE` (whose soft line breaks the full reader follows onto the next line).
    private static func header(_ buffer: UnsafeBufferPointer<UInt8>, _ line: PhysicalLine) -> String? {
        var position = line.start
        var nameStart = line.start
        while position < line.contentEnd {
            let byte = buffer[position]
            if byte == 0x3A || byte == 0x3B { break }
            if byte == 0x2E {
                guard nameStart == line.start, position > line.start else { return nil }
                nameStart = position + 1
            } else if !isNameByte(byte) {
                return nil
            }
            position += 1
        }
        guard position < line.contentEnd, position > nameStart else { return nil }
        // Built in place: a short name is a small string, with no allocation.
        let length = position - nameStart
        let upper = String(unsafeUninitializedCapacity: length) { out in
            for offset in 0..<length {
                let byte = buffer[nameStart + offset]
                out[offset] = byte >= 0x61 && byte <= 0x7A ? byte - 0x20 : byte
            }
            return length
        }
        // The parameters, read as the full reader reads them (a quote opens a value only at its
        // start, or anywhere in TYPE), up to the value's ':', which must be on this line: a line
        // whose value the full reader cannot find — it drops the line and keeps its bytes with
        // the property before — is left to it even when the line is not selected. An encoding
        // does not matter here (the value is decoded only if the line is selected), except
        // quoted-printable, whose soft line breaks move where the line ends.
        let first = UnsafeBufferPointer(rebasing: buffer[line.start..<line.contentEnd])
        var end = position - line.start
        while end < first.count && first[end] == 0x3B {
            guard let next = parameterEnd(first, at: end + 1) else { return nil }
            end = next
        }
        guard end < first.count, first[end] == 0x3A else { return nil }
        for scan in position..<(line.start + end) where buffer[scan] == 0x3B || buffer[scan] == 0x3D {
            if buffer.matchesUppercase("QUOTED-PRINTABLE", at: scan + 1, end: line.contentEnd) { return nil }
        }
        return upper
    }

    /// One unfolded logical line as a property, or `nil` when the full reader must read it.
    private static func property(_ line: [UInt8], version: VCardVersion, original: ArraySlice<UInt8>,
                                 line number: Int) -> VCardProperty? {
        line.withUnsafeBufferPointer { p -> VCardProperty? in
            let count = p.count
            var position = 0
            var groupEnd: Int?
            while position < count {
                let byte = p[position]
                if byte == 0x3A || byte == 0x3B { break }
                if byte == 0x2E {
                    guard groupEnd == nil else { return nil }
                    groupEnd = position
                } else if !isNameByte(byte) {
                    return nil
                }
                position += 1
            }
            guard position < count else { return nil }
            let nameStart = groupEnd.map { $0 + 1 } ?? 0
            guard position > nameStart, groupEnd != 0 else { return nil }
            let name = String(decoding: UnsafeBufferPointer(rebasing: p[nameStart..<position]), as: UTF8.self)
            let traits = PropertyTraits.of(name)
            guard traits.kind != .embeddedCard else { return nil }
            let group = groupEnd.map { String(decoding: UnsafeBufferPointer(rebasing: p[0..<$0]), as: UTF8.self) }
            var parameters: [VCardParameter] = []
            while position < count && p[position] == 0x3B {
                guard let (parameter, next) = parameter(p, at: position + 1) else { return nil }
                parameters.append(parameter)
                position = next
            }
            guard position < count, p[position] == 0x3A else { return nil }
            let valueStart = position + 1
            var nonASCII = false
            for offset in valueStart..<count {
                let byte = p[offset]
                if byte < 0x20 && byte != 0x09 { return nil }
                if byte >= 0x80 { nonASCII = true }
            }
            var backslashes = 0
            var offset = count - 1
            while offset >= valueStart && p[offset] == 0x5C { backslashes += 1; offset -= 1 }
            guard backslashes % 2 == 0 else { return nil }
            let valueBytes = UnsafeBufferPointer(rebasing: p[valueStart..<count])
            let value: String
            if nonASCII {
                guard let valid = String(exactUTF8: valueBytes) else { return nil }
                value = valid
            } else {
                value = String(decoding: valueBytes, as: UTF8.self)
            }
            return VCardProperty(group: group, name: name, traits: traits, parameters: parameters, rawValue: value,
                                 original: original, line: number)
        }
    }

    /// The parameter that starts at `start` (after its `;`) and the index of the `;` or `:` that
    /// ends it, read as the full reader reads it: `NAME=v1,v2` (values in double quotes may hold
    /// `;`, `:` and, except in `TYPE`, `,`), or a bare value whose name is implied. `nil` for what
    /// the full reader decodes or reports: the encodings and charsets, an unclosed quote, an
    /// empty parameter, a name with characters names cannot have. (A line whose value is not
    /// read is only scanned, by ``parameterEnd(_:at:)``, which takes the encodings.)
    private static func parameter(_ p: UnsafeBufferPointer<UInt8>, at start: Int) -> (VCardParameter, Int)? {
        let count = p.count
        guard var position = parameterNameEnd(p, at: start) else { return nil }
        guard p[position] == 0x3D else {
            // A bare value (vCard 2.1 style): its name is implied.
            let value = String(decoding: UnsafeBufferPointer(rebasing: p[start..<position]), as: UTF8.self)
            let name = CardParser.inferredParameterName(for: value)
            guard name != "ENCODING" else { return nil }
            return (VCardParameter(name: name, values: [value], isNameless: true), position)
        }
        let name = String(decoding: UnsafeBufferPointer(rebasing: p[start..<position]), as: UTF8.self)
        guard !name.equalsIgnoringASCIICase("ENCODING") && !name.equalsIgnoringASCIICase("CHARSET") else { return nil }
        let isType = name.equalsIgnoringASCIICase("TYPE")
        let isSingleValued = name.equalsIgnoringASCIICase("LABEL") || name.equalsIgnoringASCIICase("GEO") || name.equalsIgnoringASCIICase("TZ")
        position += 1
        var values: [String] = []
        var current: [UInt8] = []
        var quoted = false
        while position < count {
            let byte = p[position]
            if byte < 0x20 && byte != 0x09 { return nil }
            if byte == 0x5E && position + 1 < count {
                // RFC 6868: ^n is a line break, ^^ a caret, ^' a double quote.
                let decoded: UInt8? = switch p[position + 1] {
                case 0x6E: 0x0A
                case 0x5E: 0x5E
                case 0x27: 0x22
                default: nil
                }
                if let decoded {
                    current.append(decoded)
                    position += 2
                    continue
                }
            }
            if byte == 0x22 {
                if quoted {
                    quoted = false
                } else if current.isEmpty || isType {
                    quoted = true
                } else {
                    current.append(byte)
                }
                position += 1
                continue
            }
            if !quoted && (byte == 0x3B || byte == 0x3A) { break }
            if byte == 0x2C && (!quoted || isType) && !isSingleValued {
                guard let value = String(exactUTF8: current) else { return nil }
                values.append(value)
                current.removeAll(keepingCapacity: true)
                position += 1
                continue
            }
            current.append(byte)
            position += 1
        }
        guard !quoted, position < count, let value = String(exactUTF8: current) else { return nil }
        values.append(value)
        return (VCardParameter(name: name, values: values), position)
    }

    /// Where the parameter starting at `start` ends, scanned exactly as ``parameter(_:at:)``
    /// reads it except that encodings and charsets are taken (the same lines give `nil`
    /// otherwise), but with nothing built: the header of every line is checked this way,
    /// and building each parameter's name and values was a third of this reader's time in a push.
    ///
    /// The values are checked as UTF-8 in one piece, as written. The reader's pieces differ from
    /// that only by ASCII bytes (it splits at commas, decodes `^` escapes to ASCII and drops the
    /// quotes around a value), so whatever passes here passes there. The one difference is the
    /// other way: a quote dropped between the bytes of one character fails here and passes
    /// there, and such a line is left to the full reader, as lines this reader does not take are.
    private static func parameterEnd(_ p: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        let count = p.count
        guard var position = parameterNameEnd(p, at: start) else { return nil }
        guard p[position] == 0x3D else { return position }  // a bare value (vCard 2.1 style)
        let name = start..<position
        let isType = p.isName("TYPE", name)
        let isSingleValued = p.isName("LABEL", name) || p.isName("GEO", name) || p.isName("TZ", name)
        position += 1
        let valueStart = position
        var currentLength = 0
        var quoted = false
        while position < count {
            let byte = p[position]
            if byte < 0x20 && byte != 0x09 { return nil }
            if byte == 0x5E && position + 1 < count, p[position + 1] == 0x6E || p[position + 1] == 0x5E || p[position + 1] == 0x27 {
                currentLength += 1
                position += 2
                continue
            }
            if byte == 0x22 {
                if quoted {
                    quoted = false
                } else if currentLength == 0 || isType {
                    quoted = true
                } else {
                    currentLength += 1
                }
                position += 1
                continue
            }
            if !quoted && (byte == 0x3B || byte == 0x3A) { break }
            if byte == 0x2C && (!quoted || isType) && !isSingleValued {
                currentLength = 0
            } else {
                currentLength += 1
            }
            position += 1
        }
        guard !quoted, position < count, UnsafeBufferPointer(rebasing: p[valueStart..<position]).isValidUTF8 else { return nil }
        return position
    }

    /// Where the name of the parameter starting at `start` ends: at its `=`, or at the `;` or
    /// `:` after a bare value. `nil` when the name is empty, holds a byte a name may not hold, or
    /// runs to the end of the line.
    private static func parameterNameEnd(_ p: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        var position = start
        while position < p.count, p[position] != 0x3D, p[position] != 0x3B, p[position] != 0x3A {
            guard isNameByte(p[position]) else { return nil }
            position += 1
        }
        guard position < p.count, position > start else { return nil }
        return position
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether the line's content, trailing spaces and tabs ignored, is `literal` (upper case) ignoring ASCII case.
    fileprivate func matchesUppercaseExactly(_ literal: StaticString, _ line: PhysicalLine) -> Bool {
        var end = line.contentEnd
        while end > line.start && (self[end - 1] == 0x20 || self[end - 1] == 0x09) { end -= 1 }
        return end - line.start == literal.utf8CodeUnitCount && matchesUppercase(literal, at: line.start, end: end)
    }
}
