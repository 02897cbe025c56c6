#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import JSONText

/// Reads the lines of one card (from `BEGIN:VCARD` to `END:VCARD`) into a ``VCard``.
///
/// Unfolding, quoted-printable soft line breaks, vCard 2.1 base64 blocks, parameter syntax,
/// charsets and the card-level checks live here; finding the card in the input is
/// ``VCardParser``'s job.
struct CardParser {
    let bytes: [UInt8]
    let lines: [PhysicalLine]
    let blankLinesBefore: [UInt8]
    let sourceName: String
    let options: VCardReadOptions
    private(set) var diagnostics: [Diagnostic] = []
    private var version: VCardVersion = .v3_0
    private var declaredVersion: String?
    private var scratch: [UInt8] = []
    private var segments: [Segment] = []
    /// The bytes of the parameter value being read, reused from one parameter to the next.
    private var parameterValue: [UInt8] = []
    /// The parameters of the last plain line found (see ``plainLine(in:)``), reused from line to line.
    private var plainParameters: [PlainParameter] = []
    /// The list ``property(ofLogicalLineAt:end:)`` builds a property in, reused from line to line.
    private var builtLine: [VCardProperty] = []

    /// Where a piece of an unfolded logical line comes from, to locate diagnostics.
    private struct Segment {
        var logicalStart: Int
        var line: Int
        var offsetInLine: Int
    }

    /// Where a property being built came from: its first line and its original bytes (kept
    /// beside the properties, so that the properties are built in place and never copied).
    private struct Span {
        var firstLine: Int
        var originalStart: Int
        var originalEnd: Int
    }

    /// What a logical line turned out to be.
    private enum LogicalLine {
        /// A property, appended to the card's list (built in place there, never copied).
        case property
        /// No `:` after a name (and parameters), or a `#` comment: not a content line.
        case notAContentLine
        /// A content line that cannot be read (reported where it was found).
        case unreadable
    }

    init(bytes: [UInt8], lines: [PhysicalLine], blankLinesBefore: [UInt8] = [], sourceName: String, options: VCardReadOptions) {
        self.bytes = bytes
        self.lines = lines
        self.blankLinesBefore = blankLinesBefore
        self.sourceName = sourceName
        self.options = options
    }

    mutating func parse() -> VCard? {
        detectVersion()
        checkLineEndings()
        if options.deferredVersions.contains(version), let card = checkedWithoutBuilding() { return card }
        var properties: [VCardProperty] = []
        var spans: [Span] = []
        properties.reserveCapacity(lines.count)
        spans.reserveCapacity(lines.count)
        let last = lines.count - 1
        let beginEnd = lines[0].end
        var beginOriginalEnd = beginEnd
        var index = 1
        var sawBlank = false
        // The line right after the last property read: a line there that is no content line is
        // the rest of that property's value, broken off by a line break that was not folded.
        var lastPropertyEnd = -1
        while index < last {
            let line = lines[index]
            if line.isEmpty || isWhitespaceOnly(line) && !startsWithWhitespace(line) {
                // vCard 2.1 ends a base64 block with a blank line: that one is expected.
                let endsBase64Block = version == .v2_1 && (properties.last?.isInlineBinary ?? false)
                    && (index == 0 || !lines[index - 1].isEmpty)
                if !sawBlank && !endsBase64Block {
                    warn(.blankLine, "blank line inside a card was ignored", line: index, offset: 0)
                    sawBlank = true
                }
                extendTrivia(&spans, &beginOriginalEnd, to: line.end)
                index += 1
                continue
            }
            if startsWithWhitespace(line) {
                error(.continuationWithoutProperty, "a folded continuation line with no property before it was ignored",
                      line: index, offset: 0)
                extendTrivia(&spans, &beginOriginalEnd, to: line.end)
                index += 1
                continue
            }
            if endsWithColonVCard(line) && marker(of: line) == .beginCard {
                // A card nested without an AGENT line before it (vCard 2.1 writers do this).
                let end = endOfNestedCard(openedAt: index, last: last)
                let value = TextEscaping.escape(String(decoding: bytes[line.start..<lines[end - 1].end], as: UTF8.self).replacingLineEndsWithLF())
                if let agent = properties.last, agent.traits.kind == .embeddedCard, agent.rawValue.isEmpty,
                   (lastPropertyEnd..<index).allSatisfy({ isWhitespaceOnly(lines[$0]) }) {
                    // `AGENT:`, blank lines, then the card: the blank lines were reported.
                    properties[properties.count - 1].rawValue = value
                } else {
                    warn(.nestedCardWithoutAgent, "a card is nested in this card without an AGENT line before it; it was read as the card's AGENT",
                         line: index, offset: 0)
                    properties.append(VCardProperty(group: nil, name: "AGENT", traits: PropertyTraits.of("AGENT"), parameters: [],
                                                    rawValue: value, original: nil, line: line.number))
                    spans.append(Span(firstLine: index, originalStart: line.start, originalEnd: line.start))
                }
                extendTrivia(&spans, &beginOriginalEnd, to: lines[end - 1].end)
                lastPropertyEnd = end
                index = end
                continue
            }
            let (assembledEnd, nestedCard) = assemble(from: index, last: last)
            switch parseLogicalLine(firstLine: index, nestedCard: nestedCard, into: &properties) {
            case .property:
                spans.append(Span(firstLine: index, originalStart: line.start, originalEnd: lines[assembledEnd - 1].end))
                lastPropertyEnd = assembledEnd
            case .notAContentLine:
                if index == lastPropertyEnd && scratch.first != 0x23 && !looksLikeProperty(line), let previous = properties.indices.last {
                    continueValue(of: &properties[previous], line: index)
                    lastPropertyEnd = assembledEnd
                } else {
                    error(.notAContentLine,
                          "line is not a content line (no ':' after a property name\(scratch.first == 0x23 ? "; vCard has no comments" : "")); it was ignored: \(preview(0..<scratch.count))",
                          line: index, offset: 0)
                }
                extendTrivia(&spans, &beginOriginalEnd, to: lines[assembledEnd - 1].end)
            case .unreadable:
                extendTrivia(&spans, &beginOriginalEnd, to: lines[assembledEnd - 1].end)
            }
            index = assembledEnd
        }
        for index in properties.indices {
            properties[index].original = bytes[spans[index].originalStart..<spans[index].originalEnd]
        }
        let endLine = lines[last]
        var card = VCard(properties: properties,
                         originalBegin: bytes[0..<beginOriginalEnd],
                         originalEnd: bytes[endLine.start..<endLine.end],
                         blankLinesBefore: blankLinesBefore,
                         location: SourceLocation(source: sourceName, line: lines[0].number, column: 1),
                         sourceVersion: version)
        // Every property keeps its original bytes, which follow each other: the card's text is
        // the whole frame, written back as one block while nothing changes.
        card.originalText = bytes[...]
        checkCard(&card, firstLines: spans.map(\.firstLine))
        return card
    }

    private func extendTrivia(_ spans: inout [Span], _ beginEnd: inout Int, to end: Int) {
        if spans.isEmpty { beginEnd = end } else { spans[spans.count - 1].originalEnd = end }
    }

    /// Whether the line ends in `:VCARD` (any case, trailing white space ignored): a cheap test
    /// that rules out ``marker(of:)`` for nearly every property line.
    @inline(__always)
    private func endsWithColonVCard(_ line: PhysicalLine) -> Bool {
        bytes.withUnsafeBufferPointer { $0.endsWithColonVCard(line) }
    }

    private func marker(of line: PhysicalLine) -> StructureMarker {
        bytes.withUnsafeBufferPointer { $0.structureMarker(of: line).0 }
    }

    /// The index of the line after the `END:VCARD` that closes the card opened at `first` (or
    /// `last` when none closes it before the end of this card).
    private func endOfNestedCard(openedAt first: Int, last: Int) -> Int {
        var depth = 0
        var k = first
        while k < last {
            switch marker(of: lines[k]) {
            case .beginCard: depth += 1
            case .endCard: depth -= 1
            default: break
            }
            k += 1
            if depth == 0 { break }
        }
        return k
    }

    /// The logical line in `scratch`, which starts at line `index` right after `property`, is the
    /// rest of the property's value, broken off by a line break that was not folded: reported as
    /// an error, and joined to a text value with a line break so that no text is lost.
    private mutating func continueValue(of property: inout VCardProperty, line index: Int) {
        let kind = property.traits.kind
        let joins = [.text, .textList, .structured, .structuredText, .unknown].contains(kind) && property.parameter("ENCODING") == nil
        error(.unfoldedLineBreak,
              "the value of \(property.name) (line \(property.line ?? 0)) is broken by a line break that is not folded (a folded continuation line starts with a space or tab); "
                + (joins ? "this line was joined to the value with a line break" : "this line was ignored"),
              line: index, offset: 0)
        guard joins else { return }
        let text = decodeText(scratch[...])
        property.rawValue += "\\n" + (version == .v2_1 ? Self.modernize(text, kind: kind) : text.replacingLineEndsWithEscapes())
    }

    // MARK: - Version

    private mutating func detectVersion() {
        var depth = 0
        var sawTwoOneSyntax = false
        for (i, line) in lines.enumerated() where i > 0 && i < lines.count - 1 {
            let found: String? = bytes.withUnsafeBufferPointer { p in
                switch p.structureMarker(of: line).0 {
                case .beginCard: depth += 1
                case .endCard: depth -= 1
                default: break
                }
                if depth == 0 && p.matchesUppercase("VERSION:", at: line.start, end: line.contentEnd) {
                    return String(decoding: p[(line.start + 8)..<line.contentEnd], as: UTF8.self).trimmingASCIISpaces
                }
                if p.matchesUppercase("VERSION;", at: line.start, end: line.contentEnd),
                   let colon = (line.start..<line.contentEnd).first(where: { p[$0] == 0x3A }) {
                    return String(decoding: p[(colon + 1)..<line.contentEnd], as: UTF8.self).trimmingASCIISpaces
                }
                return nil
            }
            if let found, declaredVersion == nil { declaredVersion = found; break }
        }
        if declaredVersion == nil {
            sawTwoOneSyntax = lines.dropFirst().contains { headerMentions21Syntax($0) }
        }
        switch declaredVersion {
        case "2.1"?: version = .v2_1
        case "3.0"?: version = .v3_0
        case "4.0"?: version = .v4_0
        case let other?:
            version = other.hasPrefix("4") ? .v4_0 : other.hasPrefix("2") || other.hasPrefix("1") ? .v2_1 : .v3_0
            warn(.unsupportedVersion, "VERSION:\(other) is not a vCard version cardsync knows; the card was read as \(version.rawValue)",
                 line: 0, offset: 0)
        case nil:
            version = sawTwoOneSyntax ? .v2_1 : .v3_0
            // (An empty card is reported as such.)
            if lines.count > 2 {
                warn(.missingVersion, "card has no VERSION; it was read as \(version.rawValue)", line: 0, offset: 0)
            }
        }
    }

    /// Whether the name and parameters of a line (up to its first ':') use vCard 2.1 syntax.
    private func headerMentions21Syntax(_ line: PhysicalLine) -> Bool {
        bytes.withUnsafeBufferPointer { p in
            var k = line.start
            while k < line.contentEnd && p[k] != 0x3A {
                if p[k] == 0x3B {
                    if p.matchesUppercase("QUOTED-PRINTABLE", at: k + 1, end: line.contentEnd)
                        || p.matchesUppercase("ENCODING=QUOTED-PRINTABLE", at: k + 1, end: line.contentEnd)
                        || p.matchesUppercase("CHARSET=", at: k + 1, end: line.contentEnd) {
                        return true
                    }
                }
                k += 1
            }
            return false
        }
    }

    private mutating func checkLineEndings() {
        // One bit per kind of line end: LF, CR, CRLF, CR CR LF.
        var kinds: UInt8 = 0
        for line in lines where line.end > line.contentEnd {
            switch line.end - line.contentEnd {
            case 1: kinds |= bytes[line.contentEnd] == 0x0A ? 1 : 2
            case 2: kinds |= 4
            default: kinds |= 8
            }
        }
        if kinds & 8 != 0 {
            warn(.lineEnding, "lines end in CR CR LF; read as one line end each", line: 0, offset: 0)
        } else if kinds.nonzeroBitCount > 1 {
            warn(.lineEnding, "the card mixes line ends (CRLF, LF, CR); each was read as a line end", line: 0, offset: 0)
        }
    }

    // MARK: - Unfolding

    private func startsWithWhitespace(_ line: PhysicalLine) -> Bool {
        line.contentEnd > line.start && (bytes[line.start] == 0x20 || bytes[line.start] == 0x09)
    }

    private func isWhitespaceOnly(_ line: PhysicalLine) -> Bool {
        for i in line.start..<line.contentEnd where bytes[i] != 0x20 && bytes[i] != 0x09 { return false }
        return true
    }

    /// Builds the logical line that starts at `first` into `scratch`; returns the index of the
    /// first line after it and, for `AGENT`, the embedded card text.
    private mutating func assemble(from first: Int, last: Int) -> (Int, String?) {
        scratch.removeAll(keepingCapacity: true)
        segments.removeAll(keepingCapacity: true)
        append(line: first, from: lines[first].start)
        var next = first + 1
        // Folded continuation lines (space or tab), possibly after stray blank lines.
        while next < last {
            let line = lines[next]
            if startsWithWhitespace(line) {
                if isWhitespaceOnly(line) {
                    warn(.blankLine, "a folded continuation line holds only white space (a blank line inside the card?); it added nothing",
                         line: next, offset: 0)
                }
                appendContinuation(line: next)
                next += 1
                continue
            }
            if line.isEmpty {
                var probe = next
                while probe < last && lines[probe].isEmpty { probe += 1 }
                if probe < last && startsWithWhitespace(lines[probe]) {
                    error(.foldAfterBlankLine,
                          "a folded continuation line follows a blank line, which breaks the fold; the continuation was joined to the property above",
                          line: probe, offset: 0)
                    appendContinuation(line: probe)
                    next = probe + 1
                    continue
                }
            }
            break
        }
        let header = headerEnd()
        let flags = headerFlags(upTo: header ?? scratch.count)
        let isQuotedPrintable = flags.isQuotedPrintable
        // Quoted-printable soft line breaks: "=" at the end, the next line continues (with or
        // without leading white space, which then belongs to the value).
        if isQuotedPrintable {
            while next < last, scratch.last == 0x3D {
                scratch.removeLast()
                append(line: next, from: lines[next].start)
                next += 1
            }
        }
        // vCard 2.1 base64 blocks whose continuation lines are not indented; a blank line ends them.
        let isBase64 = flags.isBase64
        if isBase64 {
            while next < last, isBase64Line(lines[next]) {
                append(line: next, from: lines[next].start)
                next += 1
            }
        }
        // A device quirk: a value continued after a trailing backslash on the next, unindented line.
        if header != nil && !isQuotedPrintable && !isBase64 {
            while next < last, endsWithOddBackslash(), !looksLikeProperty(lines[next]), !lines[next].isEmpty {
                warn(.backslashContinuation,
                     "a value continues after a trailing backslash on the next line; the lines were joined with a line break",
                     line: next, offset: 0)
                scratch.append(0x6E) // "\" + "n": an escaped line break
                append(line: next, from: lines[next].start)
                next += 1
            }
        }
        // vCard 2.1 AGENT with an embedded card on the following lines.
        var nested: String?
        if flags.isAgent, next < last, scratch.count > 12, scratch.suffix(12).startsWithUppercase(":BEGIN:VCARD"),
           !startsWithWhitespace(lines[next]) {
            // `AGENT:BEGIN:VCARD` with the embedded card's other lines unindented (vCard 2.1).
            var depth = 1
            var k = next
            while k < last && depth > 0 {
                switch marker(of: lines[k]) {
                case .beginCard: depth += 1
                case .endCard: depth -= 1
                default: break
                }
                k += 1
            }
            let text = "BEGIN:VCARD\n" + String(decoding: bytes[lines[next].start..<lines[k - 1].end], as: UTF8.self)
            scratch.removeLast(11)
            nested = text
            next = k
        } else if flags.isAgent, next < last, scratch.last == 0x3A, marker(of: lines[next]) == .beginCard {
            let k = endOfNestedCard(openedAt: next, last: last)
            let text = bytes[lines[next].start..<lines[k - 1].end]
            nested = String(decoding: text, as: UTF8.self)
            next = k
        }
        return (next, nested)
    }

    /// What the name and parameters say about how the value continues.
    private struct HeaderFlags {
        var isQuotedPrintable = false
        var isBase64 = false
        var isAgent = false
    }

    private func headerFlags(upTo end: Int) -> HeaderFlags {
        scratch.withUnsafeBufferPointer { p in
            var flags = HeaderFlags()
            var nameStart = 0
            var k = 0
            while k < end {
                let b = p[k]
                if b == 0x2E && nameStart == 0 { nameStart = k + 1 }
                if b == 0x3B { break }
                k += 1
            }
            flags.isAgent = p.matchesUppercase("AGENT", at: nameStart, end: end) && (k == nameStart + 5 || end == nameStart + 5)
            while k < end {
                if p[k] == 0x3B || p[k] == 0x3D {
                    let s = k + 1
                    if p.matchesUppercase("QUOTED-PRINTABLE", at: s, end: end) { flags.isQuotedPrintable = true }
                    if p.matchesUppercase("BASE64", at: s, end: end) { flags.isBase64 = true }
                    if p.matchesUppercase("B", at: s, end: end) && (s + 1 == end || p[s + 1] == 0x3B || p[s + 1] == 0x3A) { flags.isBase64 = true }
                }
                k += 1
            }
            return flags
        }
    }

    private mutating func append(line index: Int, from start: Int) {
        segments.append(Segment(logicalStart: scratch.count, line: index, offsetInLine: start - lines[index].start))
        scratch.append(contentsOf: bytes[start..<lines[index].contentEnd])
    }

    private mutating func appendContinuation(line index: Int) {
        let line = lines[index]
        let base64Block = version == .v2_1
        var start = line.start + 1
        if base64Block {
            // vCard 2.1 folds at existing white space, sometimes with several spaces; base64 ignores them all.
            if headerFlags(upTo: headerEnd() ?? scratch.count).isBase64 {
                while start < line.contentEnd && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
            }
        }
        // A fold that splits a UTF-8 sequence is legal only in the sense that unfolding repairs it.
        if let lastByte = scratch.last, lastByte >= 0x80, start < line.contentEnd, bytes[start] & 0xC0 == 0x80 {
            warn(.invalidUTF8, "a fold splits a UTF-8 character; the character was rejoined", line: index, offset: 0)
        }
        append(line: index, from: start)
    }

    private func isBase64Line(_ line: PhysicalLine) -> Bool {
        guard !line.isEmpty else { return false }
        for i in line.start..<line.contentEnd {
            let b = bytes[i]
            let ok = (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39)
                || b == 0x2B || b == 0x2F || b == 0x3D || b == 0x20 || b == 0x09
            if !ok { return false }
        }
        return true
    }

    private func endsWithOddBackslash() -> Bool {
        var count = 0
        var i = scratch.count - 1
        while i >= 0 && scratch[i] == 0x5C { count += 1; i -= 1 }
        return count % 2 == 1
    }

    private func looksLikeProperty(_ line: PhysicalLine) -> Bool {
        var i = line.start
        while i < line.contentEnd {
            let b = bytes[i]
            if b == 0x3A || b == 0x3B { return i > line.start }
            let nameChar = (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x2E || b == 0x5F
            if !nameChar { return false }
            i += 1
        }
        return false
    }

    /// The index in `scratch` of the colon that ends name and parameters, outside quotes.
    private func headerEnd() -> Int? {
        var inQuotes = false
        for i in scratch.indices {
            let b = scratch[i]
            if b == 0x22 { inQuotes.toggle() } else if b == 0x3A && !inQuotes { return i }
        }
        if inQuotes {
            // An unclosed quote: fall back to the first colon.
            return scratch.firstIndex(of: 0x3A)
        }
        return nil
    }

    // MARK: - Checking without building

    /// A logical line that a full parse reads without a word and whose value is its bytes: the
    /// name and value of ``parseLogicalLine(firstLine:nestedCard:into:)``'s property, located
    /// instead of built. Ranges are in the buffer the line was located in.
    private struct PlainLine {
        var name: Range<Int>
        var traits: PropertyTraits
        var valueStart: Int
        var hasEncodingOrValue: Bool
        /// The versions a conversion to which may change the line because of its parameters (see
        /// ``VersionConverter/leavesUnchanged(_:changedFor:to:cardHasLabel:cardHasSortString:)``).
        var changedFor: ConversionTargets
    }

    /// A parameter of a plain line: `NAME=value[,value…]` or `NAME="value[,value…]"`, every value
    /// non-empty; `values` leaves the quotes out. An unquoted value is printable ASCII without
    /// `^`, and so is its value as read; a quoted one may hold RFC 6868 escapes (`^n`) and UTF-8
    /// text, which reading decodes (`isDecoded`), and then its value is not its bytes.
    private struct PlainParameter {
        var name: Range<Int>
        var values: Range<Int>
        var isQuoted: Bool
        var isDecoded: Bool
    }

    /// Checks the card as ``parse()`` does, with the same diagnostics in the same order, without
    /// building its properties, and returns it with its properties deferred (built from its text
    /// on first use). Returns `nil`, with nothing reported, when the card holds anything but
    /// plain content lines (see ``plainLine(in:)``), which only the full parse reads right.
    private mutating func checkedWithoutBuilding() -> VCard? {
        let last = lines.count - 1
        guard last > 1 else { return nil }
        let mark = diagnostics.count
        // The per-property checks come after every line's own diagnostics, as in checkCard.
        var propertyChecks: [Diagnostic] = []
        var logicalLines: [DeferredLine] = []
        logicalLines.reserveCapacity(last - 1)
        // Local, so that the checks (which change `self`) can run while these bytes are read.
        let bytes = self.bytes
        var index = 1
        while index < last {
            let line = lines[index]
            if line.isEmpty || startsWithWhitespace(line) || isWhitespaceOnly(line)
                || endsWithColonVCard(line) && marker(of: line) == .beginCard {
                diagnostics.removeSubrange(mark...)
                return nil
            }
            let next = lines[index + 1]
            let lastByte = bytes[line.contentEnd - 1]
            var found: DeferredLine?
            var end = index + 1
            if index + 1 < last && (next.isEmpty || startsWithWhitespace(next) || isBase64Line(next)) || lastByte == 0x3D || lastByte == 0x5C {
                // Folded, or ending where quoted-printable, a backslash or an unindented base64
                // block may continue it: the logical line is assembled (reporting what a full
                // parse reports there).
                let (assembledEnd, nestedCard) = assemble(from: index, last: last)
                end = assembledEnd
                if nestedCard == nil {
                    let logical = scratch
                    logical.withUnsafeBufferPointer { buffer in
                        found = deferredLine(in: buffer, at: index, mayOpenNestedCard: false, checks: &propertyChecks)
                    }
                }
            } else {
                // A line on its own is its logical line: read in place.
                bytes.withUnsafeBufferPointer { all in
                    let buffer = UnsafeBufferPointer(rebasing: all[line.start..<line.contentEnd])
                    // An AGENT may open a card on the lines that follow: a full parse reads those.
                    found = deferredLine(in: buffer, at: index, mayOpenNestedCard: true, checks: &propertyChecks)
                }
            }
            guard let found = found.take() else {
                diagnostics.removeSubrange(mark...)
                return nil
            }
            logicalLines.append(found)
            index = end
        }
        diagnostics += propertyChecks
        logicalLines.withUnsafeBufferPointer { checkCardLevel($0, firstLines: logicalLines.lazy.map(\.firstLine)) }
        let frame = VCardFrame(bytes: bytes, lines: lines, blankLinesBefore: blankLinesBefore, sourceName: sourceName, options: options)
        return VCard(deferring: frame, logicalLines: logicalLines, beginEnd: lines[0].end, endLine: lines[last],
                     location: SourceLocation(source: sourceName, line: lines[0].number, column: 1), sourceVersion: version)
    }

    /// The logical line at `index`, in `buffer`, as a deferred line when it is plain (see
    /// ``plainLine(in:)``), with its checks appended to `checks`; `nil` when it is not plain, or
    /// when it is an `AGENT` line that may open a card nested on the lines after it
    /// (`mayOpenNestedCard`: a line read on its own, not assembled), which only a full parse reads.
    /// The plain line is made, checked and taken apart here, so that it is never copied.
    private mutating func deferredLine(in buffer: UnsafeBufferPointer<UInt8>, at index: Int, mayOpenNestedCard: Bool,
                                       checks: inout [Diagnostic]) -> DeferredLine? {
        guard let plain = plainLine(in: buffer), !(mayOpenNestedCard && plain.traits.kind == .embeddedCard) else { return nil }
        checkPlainLine(plain, in: buffer, line: index, into: &checks)
        return DeferredLine(firstLine: index, traits: plain.traits, changedFor: plain.changedFor)
    }

    /// A parser that builds single logical lines of a card checked by ``checkedWithoutBuilding()``
    /// (see ``property(ofLogicalLineAt:end:)``), as its full parse builds them.
    init(buildingLinesOf frame: VCardFrame) {
        var options = frame.options
        options.deferredVersions = []
        self.init(bytes: frame.bytes, lines: frame.lines, blankLinesBefore: frame.blankLinesBefore, sourceName: frame.sourceName,
                  options: options)
        detectVersion()
    }

    /// The property the full parse builds from the logical line on lines `first..<end` of a card
    /// checked by ``checkedWithoutBuilding()``, with its original bytes; `nil` if the line turns
    /// out to be anything else. Diagnostics were reported when the card was checked: the ones
    /// found here are dropped.
    mutating func property(ofLogicalLineAt first: Int, end: Int) -> VCardProperty? {
        defer { diagnostics.removeAll(keepingCapacity: true) }
        let (assembledEnd, nestedCard) = assemble(from: first, last: lines.count - 1)
        guard assembledEnd == end, nestedCard == nil else { return nil }
        var built = builtLine
        builtLine = []
        defer {
            built.removeAll(keepingCapacity: true)
            builtLine = built
        }
        guard case .property = parseLogicalLine(firstLine: first, nestedCard: nil, into: &built), var property = built.popLast()
        else { return nil }
        property.original = bytes[lines[first].start..<lines[end - 1].end]
        return property
    }

    /// The logical line `p` located, when it is plain: a valid name (with a valid group),
    /// parameters as ``PlainParameter`` (no CHARSET, and ENCODING only as an unquoted `b` or
    /// `BASE64`, without white space in a binary value), a `:`, and a value with no control
    /// character (a tab aside) that is valid UTF-8. Such a line gives no diagnostic in
    /// ``parseLogicalLine(firstLine:nestedCard:into:)``, which keeps its value as it is, so its
    /// checks can run on its bytes. Its parameters are left in ``plainParameters``.
    private mutating func plainLine(in p: UnsafeBufferPointer<UInt8>) -> PlainLine? {
        plainParameters.removeAll(keepingCapacity: true)
        let count = p.count
        guard count > 0, p[0] != 0x23, version != .v2_1 else { return nil }
        func isValidName(_ range: Range<Int>) -> Bool { Self.isValidName(p, range) }
        func named(_ literal: StaticString, _ range: Range<Int>) -> Bool { p.isName(literal, range) }
        var (i, groupEnd) = Self.locateName(p)
        guard i < count else { return nil }
        let nameStart = groupEnd.map { $0 + 1 } ?? 0
        guard isValidName(nameStart..<i), groupEnd.map({ isValidName(0..<$0) }) ?? true else { return nil }
        let nameEnd = i
        var hasValueParameter = false
        var hasEncodingParameter = false
        var changedFor: ConversionTargets = []
        while i < count && p[i] == 0x3B {
            i += 1
            let parameterStart = i
            while i < count, p[i] != 0x3D, p[i] != 0x3B, p[i] != 0x3A { i += 1 }
            let parameterName = parameterStart..<i
            guard i < count, p[i] == 0x3D, isValidName(parameterName), !named("CHARSET", parameterName) else { return nil }
            let isEncoding = named("ENCODING", parameterName)
            if named("VALUE", parameterName) { hasValueParameter = true }
            // What conversion rewrites: ENCODING, LABEL (moved, or split off an ADR), VALUE=url
            // (`uri`), and on the way to 3.0 PREF=1 (`TYPE=pref`), SORT-AS (`SORT-STRING`) and
            // MEDIATYPE; on the way to 4.0 a TYPE holding `pref` (`PREF=1`).
            if isEncoding || named("LABEL", parameterName) { changedFor = .both }
            if named("PREF", parameterName) || named("SORT-AS", parameterName) || named("MEDIATYPE", parameterName) {
                changedFor.insert(.v3_0)
            }
            let isType = named("TYPE", parameterName)
            let isValue = named("VALUE", parameterName)
            i += 1
            if i < count && p[i] == 0x22 {
                // A value in quotes, closed right before the next ';' or ':'; commas in it separate
                // values of TYPE only.
                if isEncoding { return nil }
                i += 1
                let contentStart = i
                var itemStart = i
                var isDecoded = false
                var nonASCII = false
                while i < count && p[i] != 0x22 {
                    let b = p[i]
                    if b < 0x20 || b == 0x7F { return nil }
                    if b == 0x5E { isDecoded = true }
                    if b >= 0x80 { nonASCII = true }
                    if b == 0x2C && isType {
                        if i == itemStart { return nil }
                        itemStart = i + 1
                    }
                    i += 1
                }
                guard i < count, i > itemStart else { return nil }
                if nonASCII {
                    guard UnsafeBufferPointer(rebasing: p[contentStart..<i]).isValidUTF8 else { return nil }
                    isDecoded = true
                }
                if isType && Self.mentions("PREF", p, contentStart..<i) { changedFor.insert(.v4_0) }
                if isValue && Self.mentions("URL", p, contentStart..<i) { changedFor = .both }
                // A value that is not its bytes is never read from them: its line is built
                // whenever it is converted, and its parameter must pass its checks unread (below).
                if isDecoded { changedFor = .both }
                plainParameters.append(PlainParameter(name: parameterName, values: contentStart..<i, isQuoted: true, isDecoded: isDecoded))
                i += 1
                guard i < count, p[i] == 0x3B || p[i] == 0x3A else { return nil }
                continue
            }
            let valuesStart = i
            var itemStart = i
            while i < count {
                let b = p[i]
                if b == 0x3B || b == 0x3A { break }
                // No quotes, no RFC 6868 carets, printable ASCII only: the values are their bytes.
                if b == 0x22 || b == 0x5E || b < 0x20 || b >= 0x7F { return nil }
                if b == 0x2C {
                    if i == itemStart { return nil }
                    itemStart = i + 1
                }
                i += 1
            }
            guard i > itemStart else { return nil }
            if isType && Self.mentions("PREF", p, valuesStart..<i) { changedFor.insert(.v4_0) }
            if isValue && Self.mentions("URL", p, valuesStart..<i) { changedFor = .both }
            if isEncoding {
                // Base64 is kept as written (quoted-printable, 8bit and 7bit are decoded).
                guard named("B", valuesStart..<i) || named("BASE64", valuesStart..<i) else { return nil }
                hasEncodingParameter = true
            }
            plainParameters.append(PlainParameter(name: parameterName, values: valuesStart..<i, isQuoted: false, isDecoded: false))
        }
        guard i < count, p[i] == 0x3A else { return nil }
        let valueStart = i + 1
        let (control, nonASCII) = Self.scanForControlBytes(p, valueStart..<count)
        guard control == nil else { return nil }
        if nonASCII, !UnsafeBufferPointer(rebasing: p[valueStart..<count]).isValidUTF8 { return nil }
        let traits = PropertyTraits.traits(of: UnsafeBufferPointer(rebasing: p[nameStart..<nameEnd]))
        // A value with RFC 6868 escapes or non-ASCII text is not its bytes: only a parameter whose
        // value nothing reads in place (not TYPE, PREF or VALUE) and whose checks pass unread.
        for parameter in plainParameters where parameter.isDecoded {
            guard !named("TYPE", parameter.name), !named("PREF", parameter.name), !named("VALUE", parameter.name),
                  passesParameterChecks(parameter, in: p, of: traits) else { return nil }
        }
        // A binary base64 value loses its spaces and tabs when built.
        if hasEncodingParameter && traits.kind == .binary && p[valueStart..<count].contains(where: { $0 == 0x20 || $0 == 0x09 }) {
            return nil
        }
        return PlainLine(name: nameStart..<nameEnd, traits: traits, valueStart: valueStart,
                         hasEncodingOrValue: hasValueParameter || hasEncodingParameter, changedFor: changedFor)
    }

    /// Whether `p[range]` holds `literal` (upper case) in any case: `pref` in the values of a
    /// `TYPE`, which conversion to 4.0 turns into `PREF`, or `url` in a `VALUE`, which
    /// conversion spells `uri` (anywhere, not only as a whole value, to be on the safe side).
    private static func mentions(_ literal: StaticString, _ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        let length = literal.utf8CodeUnitCount
        let first = literal.utf8Start[0] | 0x20
        var k = range.lowerBound
        while k + length <= range.upperBound {
            if p[k] | 0x20 == first && p.matchesUppercase(literal, at: k, end: range.upperBound) { return true }
            k += 1
        }
        return false
    }

    /// ``checkProperty(_:line:)`` of the property a full parse builds from the plain line `p`,
    /// its diagnostics appended to `checks`.
    private mutating func checkPlainLine(_ plain: PlainLine, in p: UnsafeBufferPointer<UInt8>, line lineIndex: Int,
                                         into checks: inout [Diagnostic]) {
        swap(&diagnostics, &checks)
        defer { swap(&diagnostics, &checks) }
        let value = UnsafeBufferPointer(rebasing: p[plain.valueStart...])
        checkNameAndValue(plain.traits, writtenName: { String(decoding: p[plain.name], as: UTF8.self) }, value: value,
                          hasEncodingOrValue: plain.hasEncodingOrValue, line: lineIndex)
        for parameter in plainParameters {
            // Most parameters give nothing to report, which their bytes show: no String is made.
            if passesParameterChecks(parameter, in: p, of: plain.traits) { continue }
            let name = String(decoding: p[parameter.name], as: UTF8.self)
            var values: [String] = []
            if checksValues(ofParameterNamed: name.asciiUppercased) {
                // As parseParameter splits them: LABEL, GEO and TZ hold one value, and in quotes
                // only TYPE's commas separate values.
                if Self.isSingleValued(p, parameter.name) || parameter.isQuoted && !p.isName("TYPE", parameter.name) {
                    values = [String(decoding: p[parameter.values], as: UTF8.self)]
                } else {
                    values = p[parameter.values].split(separator: 0x2C).map { String(decoding: $0, as: UTF8.self) }
                }
            }
            checkParameter(named: name, isNameless: false, values: values, of: plain.traits, line: lineIndex)
        }
    }

    /// Whether ``checkParameter(named:isNameless:values:of:line:)`` surely reports nothing for the
    /// plain parameter `parameter` of `p`, read in place: a registered, `TYPE`, `PREF`, `VALUE`,
    /// `ENCODING` or `X-` name other than `SORT-AS` and `LANGUAGE` (whose values need a closer
    /// look), and in vCard 3.0 only registered or `x-` types. `false` means "check it in full".
    private func passesParameterChecks(_ parameter: PlainParameter, in p: UnsafeBufferPointer<UInt8>, of traits: PropertyTraits) -> Bool {
        let name = parameter.name
        if p.isName("TYPE", name) {
            guard version == .v3_0, let registered = Self.registeredTypeBytes(of: traits.role) else { return true }
            // As the full check splits them: every comma separates TYPE values, in quotes or not.
            var itemStart = parameter.values.lowerBound
            for k in parameter.values.lowerBound...parameter.values.upperBound where k == parameter.values.upperBound || p[k] == 0x2C {
                let item = itemStart..<k
                itemStart = k + 1
                if item.count > 2 && p[item.lowerBound] | 0x20 == 0x78 && p[item.lowerBound + 1] == 0x2D { continue }
                guard registered.contains(where: { Self.equalsIgnoringCase(p, item, $0) }) else { return false }
            }
            return true
        }
        if p.isName("SORT-AS", name) || p.isName("LANGUAGE", name) { return false }
        if name.count > 2 && p[name.lowerBound] | 0x20 == 0x78 && p[name.lowerBound + 1] == 0x2D { return true }
        return Self.knownParameterBytes.contains { Self.equalsIgnoringCase(p, name, $0) }
    }

    /// Whether `p[range]` is `bytes` ignoring ASCII case (`bytes` is all upper or all lower case).
    private static func equalsIgnoringCase(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ bytes: [UInt8]) -> Bool {
        guard range.count == bytes.count else { return false }
        var k = 0
        for index in range {
            let b = p[index], e = bytes[k]
            let isLetter = (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A
            if isLetter ? (b | 0x20) != (e | 0x20) : b != e { return false }
            k += 1
        }
        return true
    }

    // MARK: - Property lines

    private mutating func parseLogicalLine(firstLine: Int, nestedCard: String?, into properties: inout [VCardProperty]) -> LogicalLine {
        let count = scratch.count
        if scratch.first == 0x23 { return .notAContentLine }
        // Name, with an optional group.
        var (i, groupEnd) = scratch.withUnsafeBufferPointer { Self.locateName($0) }
        guard i < count else { return .notAContentLine }
        let nameStart = groupEnd.map { $0 + 1 } ?? 0
        if nameStart == i {
            warn(.emptyPropertyName, "line has no property name; it was ignored: \(preview(0..<count))", logical: 0)
            return .unreadable
        }
        let group = groupEnd.map { String(decoding: scratch[0..<$0], as: UTF8.self) }
        let nameEnd = i
        let (name, traits) = scratch.withUnsafeBufferPointer { PropertyTraits.named(UnsafeBufferPointer(rebasing: $0[nameStart..<nameEnd])) }
        if !isValidName(nameStart..<i) || groupEnd.map({ !isValidName(0..<$0) }) == true {
            warn(.invalidPropertyName, "property name \"\(group.map { $0 + "." } ?? "")\(name)\" has characters names cannot have; it was kept as written",
                 logical: 0)
        }
        // Parameters.
        var parameters: [VCardParameter] = []
        while i < count && scratch[i] == 0x3B {
            i += 1
            guard let (parameter, next) = parseParameter(at: i) else {
                return i < count && scratch[i...].contains(0x3A) ? .unreadable : .notAContentLine
            }
            if let parameter { parameters.append(parameter) }
            i = next
        }
        guard i < count, scratch[i] == 0x3A else { return .notAContentLine }
        let valueStart = i + 1
        var value = decodeValue(valueStart..<count, traits: traits, parameters: parameters)
        if let nestedCard {
            value = TextEscaping.escape(nestedCard.replacingLineEndsWithLF())
        }
        properties.append(VCardProperty(group: group, name: name, traits: traits, parameters: parameters, rawValue: value,
                                        original: nil, line: lines[firstLine].number))
        return .property
    }

    private func isValidName(_ range: Range<Int>) -> Bool {
        scratch.withUnsafeBufferPointer { Self.isValidName($0, range) }
    }

    /// Whether `p[range]` is a name: letters, digits and `-`, at least one.
    private static func isValidName(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        for k in range {
            let b = p[k]
            let ok = (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2D
            if !ok { return false }
        }
        return !range.isEmpty
    }

    /// Where the name of the content line `p` ends (at its first `:` or `;`, or `p.count` when it
    /// has neither) and where its group ends (its first `.` before that), if it has one.
    static func locateName(_ p: UnsafeBufferPointer<UInt8>) -> (end: Int, groupEnd: Int?) {
        var i = 0
        var groupEnd: Int?
        while i < p.count {
            let b = p[i]
            if b == 0x3A || b == 0x3B { break }
            if b == 0x2E && groupEnd == nil { groupEnd = i }
            i += 1
        }
        return (i, groupEnd)
    }

    /// Whether the parameter named `p[range]` holds one value that may itself contain commas:
    /// LABEL, GEO and TZ.
    private static func isSingleValued(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        p.isName("LABEL", range) || p.isName("GEO", range) || p.isName("TZ", range)
    }

    /// Parses one parameter starting at `start`; returns it (or `nil` when it was dropped) and the
    /// index of the `;` or `:` after it. Returns `nil` when the line cannot be read.
    private mutating func parseParameter(at start: Int) -> (VCardParameter?, Int)? {
        let count = scratch.count
        var i = start
        while i < count, scratch[i] != 0x3D, scratch[i] != 0x3B, scratch[i] != 0x3A { i += 1 }
        // No ':' after the parameters: the caller reports a line that is not a content line.
        guard i < count else { return nil }
        let nameRange = start..<i
        if scratch[i] != 0x3D {
            // A parameter without a name (vCard 2.1 `TEL;HOME`) or without a value (`TYPE;`).
            if nameRange.isEmpty {
                warn(.emptyParameterValue, "empty parameter (';;' or ';:') was ignored", logical: start)
                return (nil, i)
            }
            let value = String(decoding: scratch[nameRange], as: UTF8.self)
            let inferred = Self.inferredParameterName(for: value)
            if version != .v2_1 {
                warn(.bareParameter, "parameter \"\(value)\" has no name; it was read as \(inferred)=\(value)", logical: start)
            }
            return (VCardParameter(name: inferred, values: [value], isNameless: true), i)
        }
        let name = String(decoding: scratch[nameRange], as: UTF8.self)
        if nameRange.isEmpty {
            warn(.emptyParameterName, "parameter has a value but no name; it was ignored", logical: start)
        } else if !isValidName(nameRange) {
            warn(.invalidParameterName, "parameter name \"\(name)\" has characters names cannot have; it was kept", logical: start)
        }
        i += 1
        var values: [String] = []
        var current: [UInt8] = []
        swap(&current, &parameterValue)
        current.removeAll(keepingCapacity: true)
        defer { swap(&current, &parameterValue) }
        var quoted = false
        let isType = scratchIs("TYPE", nameRange)
        // LABEL, GEO and TZ hold one value that may itself contain commas.
        let isSingleValued = scratch.withUnsafeBufferPointer { Self.isSingleValued($0, nameRange) }
        while i < count {
            let b = scratch[i]
            if b == 0x22 {
                if quoted {
                    quoted = false
                } else if current.isEmpty || isType {
                    quoted = true
                } else {
                    current.append(b)
                }
                i += 1
                continue
            }
            if !quoted && (b == 0x3B || b == 0x3A) { break }
            if b == 0x2C && (!quoted || isType) && !isSingleValued {
                values.append(decodeParameterValue(current))
                current.removeAll(keepingCapacity: true)
                i += 1
                continue
            }
            current.append(b)
            i += 1
        }
        if quoted {
            warn(.unclosedQuote, "parameter \(name) opens a quote that is never closed", logical: start)
            return nil
        }
        values.append(decodeParameterValue(current))
        if values.count == 1 && values[0].isEmpty {
            warn(.emptyParameterValue, "parameter \(name) has an empty value", logical: start)
        }
        return (nameRange.isEmpty ? nil : VCardParameter(name: name, values: values), i)
    }

    /// Whether `scratch[range]` is `literal` (upper-case ASCII), ignoring ASCII case.
    @inline(__always)
    private func scratchIs(_ literal: StaticString, _ range: Range<Int>) -> Bool {
        scratch.withUnsafeBufferPointer { $0.isName(literal, range) }
    }

    /// The name vCard 2.1 implies for a parameter written as a bare value.
    static func inferredParameterName(for value: String) -> String {
        switch value.asciiUppercased {
        case "QUOTED-PRINTABLE", "BASE64", "8BIT", "7BIT", "B": "ENCODING"
        case "INLINE", "URL", "URI", "CONTENT-ID", "CID": "VALUE"
        default: "TYPE"
        }
    }

    /// RFC 6868: `^n` is a line break, `^^` a caret and `^'` a double quote (3.0 and 4.0 only).
    private func decodeParameterValue(_ raw: [UInt8]) -> String {
        guard version != .v2_1, raw.contains(0x5E) else { return decodeText(raw[...]) }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var k = 0
        while k < raw.count {
            if raw[k] == 0x5E && k + 1 < raw.count {
                switch raw[k + 1] {
                case 0x6E: out.append(0x0A); k += 2; continue
                case 0x5E: out.append(0x5E); k += 2; continue
                case 0x27: out.append(0x22); k += 2; continue
                default: break
                }
            }
            out.append(raw[k])
            k += 1
        }
        return decodeText(out[...])
    }

    private func decodeText(_ raw: ArraySlice<UInt8>) -> String {
        if let string = String(exactUTF8: raw) { return string }
        return Charsets.decode(Array(raw), charset: options.fallbackCharset) ?? String(decoding: raw, as: UTF8.self)
    }

    // MARK: - Values

    private mutating func decodeValue(_ range: Range<Int>, traits: PropertyTraits, parameters: [VCardParameter]) -> String {
        var encodingName: String?
        var charset: String?
        for parameter in parameters {
            if parameter.hasName("ENCODING") { encodingName = parameter.values.first?.asciiUppercased }
            if parameter.hasName("CHARSET") { charset = parameter.values.first }
        }
        let kind = traits.kind
        if encodingName != "QUOTED-PRINTABLE" && charset == nil {
            // The common case, and vCard 2.1 values and inline base64 data (photos) without a
            // charset: the value is its bytes when they hold no control character and are UTF-8,
            // which the word-at-a-time scan tells without a walk byte by byte.
            let (control, nonASCII) = scanForControlBytes(range)
            if control == nil,
               var text = nonASCII ? String(exactUTF8: scratch[range]) : String(decoding: scratch[range], as: UTF8.self) {
                // Without control bytes the value holds no line break; base64 drops spaces and tabs.
                if kind == .binary && (encodingName == "BASE64" || encodingName == "B") && containsSpaceOrTab(range) {
                    text = String(decoding: scratch[range].filter { $0 != 0x20 && $0 != 0x09 }, as: UTF8.self)
                }
                if version == .v2_1 && kind != .binary { text = Self.modernize(text, kind: kind) }
                return text
            }
        }
        if version != .v2_1 && (encodingName == "QUOTED-PRINTABLE" || charset != nil) {
            warn(.encodingInWrongVersion, "\(encodingName == "QUOTED-PRINTABLE" ? "ENCODING=QUOTED-PRINTABLE" : "CHARSET") is vCard 2.1 syntax in a \(version.rawValue) card; the value was decoded",
                 logical: 0)
        }
        var valueBytes = Array(scratch[range])
        if encodingName == "QUOTED-PRINTABLE" {
            let (decoded, ok) = QuotedPrintable.decode(valueBytes)
            if !ok {
                warn(.invalidQuotedPrintable, "quoted-printable value has an invalid '=' sequence; it was kept literally", logical: range.lowerBound)
            }
            valueBytes = decoded
        }
        var text: String
        if let charset, !Charsets.isUTF8(charset) {
            if let decoded = Charsets.decode(valueBytes, charset: charset) {
                text = decoded
            } else {
                warn(.unknownCharset, "CHARSET=\(charset) is not a charset cardsync knows; the value was read as \(String(exactUTF8: valueBytes) != nil ? "UTF-8" : options.fallbackCharset)",
                     logical: 0)
                text = decodeText(valueBytes[...])
            }
        } else if let valid = String(exactUTF8: valueBytes) {
            text = valid
        } else {
            warn(.invalidUTF8, "value is not valid UTF-8 and names no CHARSET; it was read as \(options.fallbackCharset)",
                 logical: range.lowerBound)
            text = decodeText(valueBytes[...])
        }
        if let offset = scratch[range].firstIndex(where: { $0 < 0x20 && $0 != 0x09 }) {
            error(.controlCharacter, "value contains a control character (0x\(String(scratch[offset], radix: 16))), which vCard text cannot hold; it was kept",
                  logical: offset)
        } else if text.utf8.contains(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) {
            warn(.controlCharacter, "the decoded value contains a control character; it was kept", logical: range.lowerBound)
        }
        if kind == .binary && (encodingName == "BASE64" || encodingName == "B")
            && text.utf8.contains(where: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }) {
            text = String(decoding: text.utf8.filter { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D && $0 != 0x0A }, as: UTF8.self)
        }
        if version == .v2_1 {
            text = Self.modernize(text, kind: kind)
        } else if text.containsLineBreak {
            text = text.replacingLineEndsWithEscapes()
        }
        return text
    }

    /// The first byte below 0x20 other than a tab in `scratch[range]` (a control character; a
    /// line break cannot be there), and whether any byte is not ASCII; eight bytes at a time.
    private func scanForControlBytes(_ range: Range<Int>) -> (control: Int?, nonASCII: Bool) {
        scratch.withUnsafeBufferPointer { Self.scanForControlBytes($0, range) }
    }

    /// ``scanForControlBytes(_:)`` of `p[range]`.
    private static func scanForControlBytes(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> (control: Int?, nonASCII: Bool) {
        var nonASCII = false
        var k = range.lowerBound
        // Eight bytes at a time while no byte is below 0x20 (a control character or a tab).
        if let base = p.baseAddress {
            let raw = UnsafeRawPointer(base)
            while k &+ 8 <= range.upperBound {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: k, as: UInt64.self))
                if (word &- 0x2020_2020_2020_2020) & ~word & 0x8080_8080_8080_8080 != 0 { break }
                if word & 0x8080_8080_8080_8080 != 0 { nonASCII = true }
                k &+= 8
            }
        }
        while k < range.upperBound {
            let b = p[k]
            if b < 0x20 && b != 0x09 { return (k, nonASCII) }
            if b >= 0x80 { nonASCII = true }
            k += 1
        }
        return (nil, nonASCII)
    }

    /// Whether `scratch[range]` holds a space or a tab, found with `memchr`.
    private func containsSpaceOrTab(_ range: Range<Int>) -> Bool {
        scratch.withUnsafeBufferPointer { p in
            guard let base = p.baseAddress, !range.isEmpty else { return false }
            return memchr(base + range.lowerBound, 0x20, range.count) != nil || memchr(base + range.lowerBound, 0x09, range.count) != nil
        }
    }

    /// Rewrites a vCard 2.1 value (literal commas, `\;` only, line breaks from quoted-printable) in
    /// the escaping of 3.0 and 4.0.
    static func modernize(_ value: String, kind: PropertyValueKind) -> String {
        switch kind {
        case .text, .embeddedCard:
            return TextEscaping.escape(unescape21(value))
        case .structured, .structuredText:
            return split21(value).map { TextEscaping.escape(unescape21($0)) }.joined(separator: ";")
        case .textList:
            return split21(value).joined(separator: ";").split(separator: ",", omittingEmptySubsequences: false)
                .map { TextEscaping.escape(unescape21(String($0))) }.joined(separator: ",")
        case .uri, .binary, .dateTime, .unknown:
            return value.replacingLineEndsWithEscapes()
        }
    }

    /// vCard 2.1 escapes only `;` (as `\;`); a backslash before anything else is literal.
    private static func unescape21(_ value: String) -> String {
        guard value.utf8.contains(0x5C) else { return value }
        var out: [UInt8] = []
        var iterator = value.utf8.makeIterator()
        while let b = iterator.next() {
            if b == 0x5C {
                guard let n = iterator.next() else { out.append(b); break }
                if n == 0x3B { out.append(n) } else if n == 0x5C { out.append(0x5C) } else { out.append(b); out.append(n) }
            } else {
                out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func split21(_ value: String) -> [String] {
        var parts: [String] = []
        var current: [UInt8] = []
        var iterator = value.utf8.makeIterator()
        while let b = iterator.next() {
            if b == 0x5C {
                current.append(b)
                if let n = iterator.next() { current.append(n) }
            } else if b == 0x3B {
                parts.append(String(decoding: current, as: UTF8.self))
                current.removeAll()
            } else {
                current.append(b)
            }
        }
        parts.append(String(decoding: current, as: UTF8.self))
        return parts
    }

    // MARK: - Card checks

    private mutating func checkCard(_ card: inout VCard, firstLines: [Int]) {
        if card.properties.isEmpty {
            error(.emptyCard, "card has no properties: nothing that can be read stands between BEGIN:VCARD and END:VCARD", line: 0, offset: 0)
            return
        }
        card.properties.withUnsafeBufferPointer { properties in
            for index in properties.indices {
                checkProperty(properties[index], line: firstLines[index])
            }
        }
        card.properties.withUnsafeBufferPointer { checkCardLevel($0, firstLines: firstLines) }
    }

    /// The checks of the card as a whole, from the traits of its properties (or of the lines that
    /// will be its properties), in order, and the index of each one's first line. The properties
    /// are read in place, through their buffer: a copy of each would retain its strings.
    private mutating func checkCardLevel<Property: HasPropertyTraits, FirstLines: RandomAccessCollection>(
        _ properties: UnsafeBufferPointer<Property>, firstLines: FirstLines
    ) where FirstLines.Element == Int, FirstLines.Index == Int {
        // Counts and second occurrences instead of lists: nothing is allocated for a card
        // without duplicates.
        var versionCount = 0, secondVersion = 0
        var uidCount = 0, secondUID = 0
        var hasFN = false
        var hasN = false
        var singularsSeen: UInt16 = 0
        var singularRepeats = false
        for index in properties.indices {
            switch properties[index].traits.role {
            case .version:
                versionCount += 1
                if versionCount == 2 { secondVersion = index }
            case .uid:
                uidCount += 1
                if uidCount == 2 { secondUID = index }
            case .formattedName: hasFN = true
            case let role:
                if role == .name { hasN = true }
                let singularBit = properties[index].traits.singularBit
                if singularBit & singularsSeen != 0 { singularRepeats = true }
                singularsSeen |= singularBit
            }
        }
        if version == .v4_0, properties[properties.startIndex].traits.role != .version, declaredVersion != nil {
            warn(.versionNotFirst, "VERSION should come right after BEGIN:VCARD in vCard 4.0", line: 0, offset: 0)
        }
        if versionCount > 1 {
            warn(.duplicateVersion, "card has \(versionCount) VERSION properties; the first was used", line: firstLines[secondVersion], offset: 0)
        }
        if uidCount > 1 {
            error(.duplicateUID, "card has \(uidCount) UID properties; a card has one identity (remove all but one UID)",
                  line: firstLines[secondUID], offset: 0)
        }
        if singularRepeats {
            // (name, first index, second index) of properties that appear at most once, in the
            // order of their first appearance.
            var singulars: [(name: String, first: Int, second: Int?)] = []
            for index in properties.indices {
                let traits = properties[index].traits
                guard traits.isSingular, traits.role != .version, traits.role != .uid, traits.role != .formattedName else { continue }
                // Every such name is registered.
                let name = traits.registeredName ?? ""
                if let seen = singulars.firstIndex(where: { $0.name == name }) {
                    if singulars[seen].second == nil { singulars[seen].second = index }
                } else {
                    singulars.append((name, index, nil))
                }
            }
            for singular in singulars {
                if let second = singular.second {
                    warn(.duplicateSingleProperty, "\(singular.name) appears more than once; it should appear at most once",
                         line: firstLines[second], offset: 0)
                }
            }
        }
        if versionCount == 0 && !hasFN {
            let message = "card has neither VERSION nor FN: nothing says which vCard it is or whom it describes (add VERSION and FN)"
            if options.requiresVersionOrFormattedName {
                error(.missingVersionAndFormattedName, message, line: 0, offset: 0)
            } else {
                warn(.missingVersionAndFormattedName, message, line: 0, offset: 0)
            }
        } else if version != .v2_1 && !hasFN {
            warn(.missingFormattedName, "card has no FN (formatted name), which vCard \(version.rawValue) requires", line: 0, offset: 0)
        }
        if version == .v3_0 && !hasN {
            warn(.missingName, "card has no N (structured name), which vCard 3.0 requires", line: 0, offset: 0)
        }
    }

    /// The checks of one property, whose first line is `lineIndex`.
    private mutating func checkProperty(_ property: borrowing VCardProperty, line lineIndex: Int) {
        let traits = property.traits
        let hasEncodingOrValue = version == .v3_0 && traits.kind == .binary
            && (property.parameter("ENCODING") != nil || property.parameter("VALUE") != nil)
        var value = property.rawValue
        let name = property.name
        value.withUTF8 { checkNameAndValue(traits, writtenName: { name }, value: $0, hasEncodingOrValue: hasEncodingOrValue, line: lineIndex) }
        if property.parameters.isEmpty { return }
        property.parameters.withUnsafeBufferPointer { parameters in
            for index in parameters.indices {
                let parameter = parameters[index]
                checkParameter(named: parameter.name, isNameless: parameter.isNameless, values: parameter.values, of: traits, line: lineIndex)
            }
        }
    }

    /// The checks of a property's name and value (the value in 3.0/4.0 escaping, as UTF-8), for
    /// a built property and for a line checked without building it alike.
    private mutating func checkNameAndValue(_ traits: PropertyTraits, writtenName: () -> String, value: UnsafeBufferPointer<UInt8>,
                                            hasEncodingOrValue: Bool, line lineIndex: Int) {
        if !traits.isExtension && !traits.isKnown {
            warn(.propertyNotInVersion, "\(writtenName()) is neither a registered property nor an X- extension; it was kept", line: lineIndex, offset: 0)
        }
        if version == .v4_0 && traits.isOnlyIn3 {
            warn(.propertyNotInVersion, "\(writtenName()) is not a vCard 4.0 property; it was kept", line: lineIndex, offset: 0)
        }
        if version == .v3_0 && traits.isOnlyIn4 {
            warn(.propertyNotInVersion, "\(writtenName()) is a vCard 4.0 property in a 3.0 card; it was kept", line: lineIndex, offset: 0)
        }
        let expected: Int? = traits.role == .name ? 5 : traits.role == .address ? 7 : nil
        if let expected, version != .v2_1, !value.isEmpty {
            let found = Self.countComponents(bytes: value)
            if found != expected {
                warn(.invalidValue, "\(traits.registeredName ?? writtenName()) should have \(expected) components separated by ';' but has \(found); missing ones read as empty",
                     line: lineIndex, offset: 0)
            }
        }
        if version == .v3_0 && traits.kind == .binary && !hasEncodingOrValue {
            let text = String(decoding: value, as: UTF8.self)
            if !text.hasPrefix("data:") {
                warn(.invalidValue, "\(writtenName()) in vCard 3.0 needs ENCODING=b for inline data or VALUE=uri for a link; it was read as \(text.contains(":") ? "a URI" : "inline data")",
                     line: lineIndex, offset: 0)
            }
        }
    }

    /// The number of components of a structured value: unescaped ';' plus one.
    private static func countComponents(bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var count = 1
        var escaping = false
        for b in bytes {
            if escaping { escaping = false } else if b == 0x5C { escaping = true } else if b == 0x3B { count += 1 }
        }
        return count
    }

    private static let knownParameters: Set<String> = [
        "TYPE", "VALUE", "ENCODING", "CHARSET", "LANGUAGE", "PREF", "ALTID", "PID", "MEDIATYPE", "CALSCALE",
        "SORT-AS", "GEO", "TZ", "LABEL", "CONTEXT", "INDEX", "LEVEL", "CC", "AUTHOR", "AUTHOR-NAME", "CREATED",
        "DERIVED", "PHONETIC", "PROP-ID", "SCRIPT", "SERVICE-TYPE", "USERNAME", "JSPTR",
    ]

    private static let registeredTelephoneTypes: Set<String> = [
        "home", "msg", "work", "pref", "voice", "fax", "cell", "video", "pager", "bbs", "modem", "car",
        "isdn", "pcs", "text", "textphone", "main", "other", "iphone", "x-mobile",
    ]
    private static let registeredAddressTypes: Set<String> = ["dom", "intl", "postal", "parcel", "home", "work", "pref", "other"]
    private static let registeredLabelTypes: Set<String> = ["dom", "intl", "postal", "parcel", "home", "work", "pref"]
    private static let registeredEmailTypes: Set<String> = ["internet", "x400", "pref", "home", "work", "other"]

    /// Whether ``checkParameter(named:isNameless:values:of:line:)`` reads the values of a parameter
    /// of this name (given in upper case): SORT-AS, LANGUAGE, and TYPE in vCard 3.0.
    private func checksValues(ofParameterNamed upperName: String) -> Bool {
        upperName == "SORT-AS" || upperName == "LANGUAGE" || upperName == "TYPE" && version == .v3_0
    }

    private mutating func checkParameter(named writtenName: String, isNameless: Bool, values: [String], of property: PropertyTraits, line: Int) {
        let name = writtenName.asciiUppercased
        if !isNameless && name != "TYPE" && name != "PREF" && name != "VALUE" && name != "ENCODING"
            && !name.utf8.starts(with: "X-".utf8) && !Self.knownParameters.contains(name) {
            warn(.invalidParameterName, "parameter \(writtenName) is neither registered nor an X- extension; it was kept",
                 line: line, offset: 0)
        }
        if name == "SORT-AS" && values.contains(where: { $0.contains(";") }) {
            warn(.invalidParameterValue, "SORT-AS separates its values with ',' not ';'; the value was kept as written", line: line, offset: 0)
        }
        if name == "LANGUAGE" {
            for value in values where !Self.isLanguageTag(value) {
                warn(.invalidParameterValue, "LANGUAGE=\(value) is not a language tag (RFC 5646); it was kept", line: line, offset: 0)
            }
        }
        if name == "TYPE" && version == .v3_0, let registered = Self.registeredTypes(of: property.role) {
            for value in values {
                let lower = value.asciiLowercased
                if !registered.contains(lower) && !lower.hasPrefix("x-") {
                    warn(.invalidParameterValue, "TYPE=\(value) is not a registered type for \(property.registeredName ?? "this property"); it was kept",
                         line: line, offset: 0)
                }
            }
        }
    }

    /// ``knownParameters`` and the names checked apart (TYPE, PREF, VALUE, ENCODING), as bytes.
    private static let knownParameterBytes: [[UInt8]] = (["TYPE", "PREF", "VALUE", "ENCODING"] + knownParameters.sorted()).map { Array($0.utf8) }
    private static let registeredTelephoneTypeBytes = registeredTelephoneTypes.map { Array($0.utf8) }
    private static let registeredAddressTypeBytes = registeredAddressTypes.map { Array($0.utf8) }
    private static let registeredLabelTypeBytes = registeredLabelTypes.map { Array($0.utf8) }
    private static let registeredEmailTypeBytes = registeredEmailTypes.map { Array($0.utf8) }

    /// ``registeredTypes(of:)`` as bytes, for checks in place.
    private static func registeredTypeBytes(of role: PropertyTraits.Role) -> [[UInt8]]? {
        switch role {
        case .telephone: registeredTelephoneTypeBytes
        case .address: registeredAddressTypeBytes
        case .label: registeredLabelTypeBytes
        case .email: registeredEmailTypeBytes
        default: nil
        }
    }

    /// The TYPE values vCard 3.0 registers for a property, when it registers any.
    private static func registeredTypes(of role: PropertyTraits.Role) -> Set<String>? {
        switch role {
        case .telephone: registeredTelephoneTypes
        case .address: registeredAddressTypes
        case .label: registeredLabelTypes
        case .email: registeredEmailTypes
        default: nil
        }
    }

    static func isLanguageTag(_ value: String) -> Bool {
        let parts = value.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (1...8).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    // MARK: - Diagnostics

    private func preview(_ range: Range<Int>) -> String {
        let text = String(decoding: scratch[range], as: UTF8.self)
        return text.count > 40 ? String(text.prefix(40)) + "…" : text
    }

    private func locate(logical offset: Int) -> SourceLocation {
        var segment = segments.first ?? Segment(logicalStart: 0, line: 0, offsetInLine: 0)
        for candidate in segments where candidate.logicalStart <= offset { segment = candidate }
        let line = lines[segment.line]
        let byteOffset = segment.offsetInLine + (offset - segment.logicalStart)
        let prefix = bytes[line.start..<min(line.start + byteOffset, line.contentEnd)]
        let column = String(decoding: prefix, as: UTF8.self).unicodeScalars.count + 1
        return SourceLocation(source: sourceName, line: line.number, column: column)
    }

    private mutating func warn(_ code: Diagnostic.Code, _ message: String, logical offset: Int) {
        diagnostics.append(Diagnostic(severity: .warning, code: code, message: message, location: locate(logical: offset)))
    }

    private mutating func error(_ code: Diagnostic.Code, _ message: String, logical offset: Int) {
        diagnostics.append(Diagnostic(severity: .error, code: code, message: message, location: locate(logical: offset)))
    }

    private mutating func warn(_ code: Diagnostic.Code, _ message: String, line index: Int, offset: Int) {
        diagnostics.append(Diagnostic(severity: .warning, code: code, message: message,
                                      location: SourceLocation(source: sourceName, line: lines[index].number, column: offset + 1)))
    }

    private mutating func error(_ code: Diagnostic.Code, _ message: String, line index: Int, offset: Int) {
        diagnostics.append(Diagnostic(severity: .error, code: code, message: message,
                                      location: SourceLocation(source: sourceName, line: lines[index].number, column: offset + 1)))
    }
}

extension Collection<UInt8> {
    /// Whether the bytes contain `literal` (upper-case ASCII), ignoring ASCII case.
    func containsUppercase(_ literal: String) -> Bool {
        let needle = Array(literal.utf8)
        let haystack = Array(self)
        guard haystack.count >= needle.count else { return false }
        outer: for start in 0...(haystack.count - needle.count) {
            for k in 0..<needle.count {
                var b = haystack[start + k]
                if b >= 97 && b <= 122 { b -= 32 }
                if b != needle[k] { continue outer }
            }
            return true
        }
        return false
    }

    func startsWithUppercase(_ literal: String) -> Bool {
        let needle = Array(literal.utf8)
        var iterator = makeIterator()
        for expected in needle {
            guard var b = iterator.next() else { return false }
            if b >= 97 && b <= 122 { b -= 32 }
            if b != expected { return false }
        }
        return true
    }
}

extension String {
    /// Replaces CRLF, CR and LF with the text escape `\n`.
    func replacingLineEndsWithEscapes() -> String {
        guard containsLineBreak else { return self }
        var out: [UInt8] = []
        var previousCR = false
        for b in utf8 {
            if b == 0x0D { out += [0x5C, 0x6E] } else if b == 0x0A { if !previousCR { out += [0x5C, 0x6E] } } else { out.append(b) }
            previousCR = b == 0x0D
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Replaces CRLF and CR with LF.
    func replacingLineEndsWithLF() -> String {
        guard utf8.contains(0x0D) else { return self }
        var out: [UInt8] = []
        var previousCR = false
        for b in utf8 {
            if b == 0x0D { out.append(0x0A) } else if b == 0x0A { if !previousCR { out.append(0x0A) } } else { out.append(b) }
            previousCR = b == 0x0D
        }
        return String(decoding: out, as: UTF8.self)
    }
}
