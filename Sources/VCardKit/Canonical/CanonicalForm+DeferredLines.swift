extension DeferredProperties {
    /// Appends the canonical form of the card's properties but the excluded ones to `sink`,
    /// unsorted, made from its lines without building its properties: the same canonical
    /// properties ``CanonicalForm/properties(of:excluding:)`` makes of the built card.
    ///
    /// A line whose only parameters are `TYPE`, `PREF` and `VALUE` and whose value is not binary
    /// is read in place, unfolded first when it is folded (``CanonicalLines/appendPlainLine(_:traits:)``):
    /// for such a line the full parse keeps the value and those parameters' values as written,
    /// which is all the canonical form takes. Every other line is built into its property alone,
    /// as the full parse builds it, and canonicalised as such.
    /// - Returns: `false` when a line could not be built on its own (the caller then uses the
    ///   whole card, after forgetting what was appended).
    func canonicalize(excluding exclusions: CanonicalForm.Exclusions, into sink: inout some CanonicalSink) -> Bool {
        var builder: CardParser?
        var unfolded: [UInt8] = []
        for position in logicalLines.indices {
            let line = logicalLines[position]
            if exclusions.matcher.contains(line.traits, orName: upperName(ofLineAt: position)) { continue }
            let end = end(ofLineAt: position)
            if CanonicalForm.readsInPlace(line.traits) {
                let physical = frame.lines[line.firstLine]
                if end == line.firstLine + 1 {
                    let done = frame.bytes.withUnsafeBufferPointer { all in
                        sink.appendPlainLine(UnsafeBufferPointer(rebasing: all[physical.start..<physical.contentEnd]), traits: line.traits)
                    }
                    if done { continue }
                } else if unfold(line.firstLine..<end, into: &unfolded) {
                    let done = unfolded.withUnsafeBufferPointer { buffer in
                        sink.appendPlainLine(buffer, traits: line.traits)
                    }
                    if done { continue }
                }
            }
            if builder == nil { builder = CardParser(buildingLinesOf: frame) }
            guard let property = builder!.property(ofLogicalLineAt: line.firstLine, end: end) else { return false }
            sink.append(property, name: property.upperName)
        }
        return true
    }

    /// The logical line on physical lines `lines` unfolded into `output` (each line end and the one
    /// space or tab after it removed), when every line after the first starts with a space or a
    /// tab; `false` otherwise (a line joined for another reason is left to the full parse).
    func unfold(_ lines: Range<Int>, into output: inout [UInt8]) -> Bool {
        output.removeAll(keepingCapacity: true)
        let bytes = frame.bytes
        for index in lines {
            let line = frame.lines[index]
            if index == lines.lowerBound {
                output.append(contentsOf: bytes[line.start..<line.contentEnd])
                continue
            }
            guard line.start < line.contentEnd, bytes[line.start] == 0x20 || bytes[line.start] == 0x09 else { return false }
            output.append(contentsOf: bytes[(line.start + 1)..<line.contentEnd])
        }
        return true
    }
}

/// The names ``CanonicalForm/Exclusions`` leave out, as a property's or a line's traits can be
/// compared with them: a registered name (as written, upper-case) by its index, without a
/// `String`; any other by its text, exactly, as the upper-cased name it is compared with.
struct ExcludedNames: Sendable, Hashable {
    /// Sorted, so that equal names make equal matchers.
    private var registered: [UInt8] = []
    private var unregistered: Set<String> = []

    init(_ names: Set<String>) {
        for name in names {
            let traits = PropertyTraits.of(name)
            if traits.registeredName == name { registered.append(traits.nameIndex) } else { unregistered.insert(name) }
        }
        registered.sort()
    }

    /// Whether the property or line whose name has `traits` is left out; `name` (its upper-cased
    /// name) is read only when the name is not registered and some excluded name is not either.
    func contains(_ traits: PropertyTraits, orName name: @autoclosure () -> String) -> Bool {
        if traits.registeredName != nil { return registered.contains(traits.nameIndex) }
        return !unregistered.isEmpty && unregistered.contains(name())
    }
}

extension CanonicalForm {
    /// Whether a line of a property whose name has `traits` may be read in place by
    /// ``CanonicalLines/appendPlainLine(_:traits:)``: its value is not a card. Asked before a
    /// folded line is unfolded.
    static func readsInPlace(_ traits: PropertyTraits) -> Bool {
        traits.kind != .embeddedCard
    }
}
