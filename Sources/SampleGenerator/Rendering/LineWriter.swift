/// Serialises content lines into CRLF-terminated, folded physical lines.
///
/// Folding never splits a UTF-8 sequence: a fold point that would fall on a continuation byte
/// moves back to the start of the character. Every physical line (continuation whitespace
/// included) is at most ``LineForm/foldWidth`` octets long.
struct LineWriter {
    private let form: LineForm
    private var caseRandom: SeededRandom
    private var scratch: [UInt8] = []

    init(form: LineForm) {
        precondition(form.foldWidth.map { $0 >= 8 } ?? true, "fold width too small to hold a UTF-8 sequence")
        self.form = form
        if case .mixed(let seed) = form.nameCase {
            caseRandom = SeededRandom(seed: seed)
        } else {
            caseRandom = SeededRandom(seed: 0)
        }
        scratch.reserveCapacity(256)
    }

    /// Appends every line of a card to `output`.
    mutating func write(_ lines: [ContentLine], to output: inout [UInt8]) {
        for line in lines {
            write(line, to: &output)
        }
    }

    /// Appends one content line, folded, to `output`.
    mutating func write(_ line: ContentLine, to output: inout [UInt8]) {
        scratch.removeAll(keepingCapacity: true)
        if let group = line.group {
            appendName(group)
            scratch.append(UInt8(ascii: "."))
        }
        appendName(line.name)
        for parameter in line.parameters {
            scratch.append(UInt8(ascii: ";"))
            appendName(parameter.name)
            scratch.append(UInt8(ascii: "="))
            if parameter.isQuotedList {
                scratch.append(UInt8(ascii: "\""))
                appendJoined(parameter.values)
                scratch.append(UInt8(ascii: "\""))
            } else {
                for (position, value) in parameter.values.enumerated() {
                    if position > 0 { scratch.append(UInt8(ascii: ",")) }
                    let needsQuotes = value.utf8.contains { $0 == 0x3A || $0 == 0x3B || $0 == 0x2C }
                    if needsQuotes { scratch.append(UInt8(ascii: "\"")) }
                    scratch.append(contentsOf: value.utf8)
                    if needsQuotes { scratch.append(UInt8(ascii: "\"")) }
                }
            }
        }
        scratch.append(UInt8(ascii: ":"))
        scratch.append(contentsOf: line.value.utf8)
        Self.fold(scratch, width: form.foldWidth, continuation: form.continuation, to: &output)
    }

    private mutating func appendJoined(_ values: [String]) {
        for (position, value) in values.enumerated() {
            if position > 0 { scratch.append(UInt8(ascii: ",")) }
            scratch.append(contentsOf: value.utf8)
        }
    }

    private mutating func appendName(_ name: String) {
        var isFirst = true
        for byte in name.utf8 {
            scratch.append(cased(byte, isFirst: isFirst))
            isFirst = false
        }
    }

    private mutating func cased(_ byte: UInt8, isFirst: Bool) -> UInt8 {
        let isUpper = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")
        let isLower = byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")
        guard isUpper || isLower else { return byte }
        let wantsUpper: Bool
        switch form.nameCase {
        case .asWritten: return byte
        case .lower: wantsUpper = false
        case .capitalized: wantsUpper = isFirst
        case .mixed: wantsUpper = caseRandom.next() & 1 == 0
        }
        if wantsUpper, isLower { return byte - 32 }
        if !wantsUpper, isUpper { return byte + 32 }
        return byte
    }

    /// Appends `line` folded at `width` octets (nil: unfolded), each physical line ending in CRLF.
    static func fold(_ line: [UInt8], width: Int?, continuation: UInt8, to output: inout [UInt8]) {
        guard let width, line.count > width else {
            output.append(contentsOf: line)
            output.append(0x0D)
            output.append(0x0A)
            return
        }
        var start = 0
        var limit = width
        while line.count - start > limit {
            var cut = start + limit
            while cut > start, line[cut] & 0xC0 == 0x80 {
                cut -= 1
            }
            output.append(contentsOf: line[start..<cut])
            output.append(0x0D)
            output.append(0x0A)
            output.append(continuation)
            start = cut
            limit = width - 1
        }
        output.append(contentsOf: line[start...])
        output.append(0x0D)
        output.append(0x0A)
    }
}
