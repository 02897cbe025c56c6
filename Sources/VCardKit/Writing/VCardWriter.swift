/// Writes cards as vCard 3.0 or 4.0 text: strict, canonical output with CRLF line ends and lines
/// folded at 75 octets, except that what was read and not edited is written back byte for byte.
///
/// ```swift
/// let writer = VCardWriter(target: .v4_0)
/// var output: [UInt8] = []
/// for card in cards { writer.write(card, into: &output) }
/// ```
///
/// - Writing a card in the version it was read in, with no edits, reproduces its bytes exactly.
///   An edited property is written in canonical form; the others keep theirs.
/// - Writing a card in another version converts it with ``VersionConverter``, which loses
///   nothing: what the target version lacks is kept and reported.
/// - vCard 2.1 is not written: a 2.1 card that is not written back unedited becomes 3.0.
/// - Blank lines between cards belong to the file, not to a card: they are written when cards are
///   written as a file (`bytes(for:)` of a ``VCardReadResult`` or of several cards,
///   ``write(_:asPartOfFile:into:)``), so that a file nobody edited is written back identical,
///   and never into the text of a single card.
public struct VCardWriter: Sendable {
    /// The version to write, or `nil` to write each card in the version it was read in.
    public var target: VCardVersion?
    /// Whether unedited cards and properties keep their original bytes (the default). When
    /// `false`, everything is written in canonical form.
    public var preservesOriginalFormatting: Bool

    /// Creates a writer.
    /// - Parameters:
    ///   - target: `.v3_0` or `.v4_0`; `nil` (the default) keeps each card's own version.
    ///   - preservesOriginalFormatting: keep the bytes of what was not edited (default `true`).
    public init(target: VCardVersion? = nil, preservesOriginalFormatting: Bool = true) {
        precondition(target != .v2_1, "cardsync writes vCard 3.0 and 4.0 only")
        self.target = target
        self.preservesOriginalFormatting = preservesOriginalFormatting
    }

    /// Appends the text of `card` to `output`.
    /// - Returns: notes about the conversion, such as properties the target version lacks.
    @discardableResult
    public func write(_ card: VCard, into output: inout [UInt8]) -> [Diagnostic] {
        let source = card.sourceVersion ?? card.version
        let wanted = target ?? source ?? .v4_0
        if preservesOriginalFormatting && wanted == source {
            if wanted == .v2_1 {
                if card.isUnedited {
                    appendOriginal(card, into: &output)
                    return []
                }
            } else {
                appendOriginal(card, into: &output)
                return []
            }
        }
        let writable = wanted == .v2_1 ? .v3_0 : wanted
        let (lines, notes) = VersionConverter.convertedLines(of: card, to: writable, copyingUnchangedLines: preservesOriginalFormatting)
        appendConverted(lines, version: writable, into: &output)
        return notes
    }

    /// The text of `card` as bytes.
    public func bytes(for card: VCard) -> [UInt8] {
        var output: [UInt8] = []
        write(card, into: &output)
        return output
    }

    /// The text of `card` as a string.
    public func string(for card: VCard) -> String {
        String(decoding: bytes(for: card), as: UTF8.self)
    }

    /// The text of several cards as a file: one after another, each after the blank lines that
    /// stood before it in the file it was read from (see ``write(_:asPartOfFile:into:)``).
    public func bytes(for cards: some Sequence<VCard>) -> [UInt8] {
        var output: [UInt8] = []
        for card in cards { write(card, asPartOfFile: true, into: &output) }
        return output
    }

    /// The text of a whole input read with ``VCardReader``: its cards with the blank lines before,
    /// between and after them, so that a file nobody edited is written back byte for byte.
    ///
    /// ```swift
    /// let result = try VCardReader.read(bytes)
    /// assert(VCardWriter().bytes(for: result) == bytes)   // for a UTF-8 file of cards and blank lines
    /// ```
    public func bytes(for file: VCardReadResult) -> [UInt8] {
        var output = bytes(for: file.cards)
        write(blankLinesAtEnd: file.blankLinesAtEnd, into: &output)
        return output
    }

    /// Appends `card`, as part of a file or on its own.
    ///
    /// As part of a file, the blank lines that stood before the card in the file it was read
    /// from (``VCard/blankLinesBefore``) come first, while original formatting is preserved;
    /// on its own (as ``write(_:into:)`` writes it) the text is the card's alone, for a contact
    /// file or a server document.
    /// - Returns: notes about the conversion, such as properties the target version lacks.
    @discardableResult
    public func write(_ card: VCard, asPartOfFile: Bool, into output: inout [UInt8]) -> [Diagnostic] {
        if asPartOfFile && preservesOriginalFormatting && !card.blankLinesBefore.isEmpty {
            output.append(contentsOf: card.blankLinesBefore)
        }
        return write(card, into: &output)
    }

    /// Appends the blank lines that followed the last card of the input
    /// (``VCardParser/blankLinesAtEnd``), while original formatting is preserved.
    public func write(blankLinesAtEnd: [UInt8], into output: inout [UInt8]) {
        if preservesOriginalFormatting { output.append(contentsOf: blankLinesAtEnd) }
    }

    private func appendOriginal(_ card: VCard, into output: inout [UInt8]) {
        if let text = card.originalText, let begin = card.originalBegin, Self.isReadableBegin(begin) {
            // Nothing changed since the card was read: its text as one block.
            output.append(contentsOf: text)
            return
        }
        if let begin = card.originalBegin, Self.isReadableBegin(begin) {
            output.append(contentsOf: begin)
        } else {
            output.append(contentsOf: Self.beginLine)
        }
        let version = card.sourceVersion ?? .v4_0
        for property in card.properties {
            if let original = property.original {
                output.append(contentsOf: original)
            } else {
                Self.appendLine(property, version: version == .v2_1 ? .v3_0 : version, into: &output)
            }
        }
        if let end = card.originalEnd { output.append(contentsOf: end) } else { output.append(contentsOf: Self.endLine) }
    }

    /// Whether an original `BEGIN:VCARD` line can be written back as it was: without a group,
    /// or with a group of name characters (`home.begin:vcard`). A prefix the reader merely
    /// skipped (a NUL, other bytes) could make the written text unreadable, as fuzzing found.
    static func isReadableBegin(_ begin: ArraySlice<UInt8>) -> Bool {
        var index = begin.startIndex
        while index < begin.endIndex, begin[index] != 0x2E, begin[index] != 0x3A {
            let byte = begin[index]
            let isNameByte = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D
            guard isNameByte else { return false }
            index += 1
        }
        return true
    }

    /// Writes a converted card: canonical lines, except that a property the conversion left
    /// unchanged keeps its original bytes when they are already strictly formatted (CRLF, folds
    /// of one space, at most 75 octets a line) and formatting is preserved.
    private func appendConverted(_ lines: [ConvertedLine], version: VCardVersion, into output: inout [UInt8]) {
        output.append(contentsOf: Self.beginLine)
        for line in lines {
            switch line {
            case .copied(let bytes):
                output.append(contentsOf: bytes)
            case .property(let property):
                if preservesOriginalFormatting, let original = property.original, Self.isStrictlyFormatted(original) {
                    output.append(contentsOf: original)
                } else {
                    Self.appendLine(property, version: version, into: &output)
                }
            }
        }
        output.append(contentsOf: Self.endLine)
    }

    /// Whether `bytes` are content lines as the writer itself would emit them: each ends in CRLF,
    /// is at most 75 octets, and continuation lines start with one space.
    static func isStrictlyFormatted(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBufferPointer { p in
            var lineStart = 0
            var index = 0
            let count = p.count
            guard count >= 2 else { return false }
            while index < count {
                let b = p[index]
                if b == 0x0D {
                    guard index + 1 < count, p[index + 1] == 0x0A, index - lineStart <= LineFolding.maximumLineOctets,
                          index > lineStart else { return false }
                    index += 2
                    if index < count && p[index] != 0x20 { return false }
                    lineStart = index
                    continue
                }
                if b == 0x0A { return false }
                index += 1
            }
            return lineStart == count
        }
    }

    private static let beginLine = Array("BEGIN:VCARD\r\n".utf8)
    private static let endLine = Array("END:VCARD\r\n".utf8)

    /// Appends one property in canonical form: upper-case registered names, named parameters
    /// with RFC 6868 caret encoding and quotes where needed, the value escaped, folded.
    static func appendLine(_ property: VCardProperty, version: VCardVersion, into output: inout [UInt8]) {
        var line: [UInt8] = []
        line.reserveCapacity(property.rawValue.utf8.count + 32)
        if let group = property.group, !group.isEmpty {
            line.append(contentsOf: group.utf8)
            line.append(0x2E)
        }
        line.append(contentsOf: canonicalName(property.name).utf8)
        for parameter in property.parameters where !isTransferParameter(parameter) {
            line.append(0x3B)
            line.append(contentsOf: canonicalName(parameter.name).utf8)
            line.append(0x3D)
            for (index, value) in parameter.values.enumerated() {
                if index > 0 { line.append(0x2C) }
                appendParameterValue(value, into: &line)
            }
        }
        line.append(0x3A)
        let value = property.rawValue
        if value.containsLineBreak {
            line.append(contentsOf: value.replacingLineEndsWithEscapes().utf8)
        } else {
            line.append(contentsOf: value.utf8)
        }
        LineFolding.appendFolded(line, to: &output)
    }

    /// `CHARSET` and quoted-printable `ENCODING` describe how a value was transferred; the value
    /// is decoded when read, so the writer leaves them out.
    static func isTransferParameter(_ parameter: VCardParameter) -> Bool {
        if parameter.hasName("CHARSET") { return true }
        if parameter.hasName("ENCODING") {
            let value = parameter.values.first?.asciiUppercased ?? ""
            return value == "QUOTED-PRINTABLE" || value == "8BIT" || value == "7BIT"
        }
        return false
    }

    /// Registered names are written in upper case; extension (`X-`) names keep their case.
    static func canonicalName(_ name: String) -> String {
        let upper = name.asciiUppercased
        return upper.hasPrefix("X-") ? name : upper
    }

    private static func appendParameterValue(_ value: String, into line: inout [UInt8]) {
        // One look decides: quotes around a value with ':', ';' or ','; a byte-by-byte copy only
        // for a value with something to encode (caret, quote, line break, control character).
        var needsQuotes = false
        var isPlain = true
        for byte in value.utf8 {
            if byte == 0x3A || byte == 0x3B || byte == 0x2C {
                needsQuotes = true
            } else if byte == 0x5E || byte == 0x22 || byte < 0x20 {
                isPlain = false
            }
        }
        if needsQuotes { line.append(0x22) }
        if isPlain {
            line.append(contentsOf: value.utf8)
        } else {
            for byte in value.utf8 {
                switch byte {
                case 0x5E: line += [0x5E, 0x5E]
                case 0x0A: line += [0x5E, 0x6E]
                case 0x0D: continue
                case 0x22: line += [0x5E, 0x27]
                default:
                    if byte < 0x20 && byte != 0x09 { continue }
                    line.append(byte)
                }
            }
        }
        if needsQuotes { line.append(0x22) }
    }
}
