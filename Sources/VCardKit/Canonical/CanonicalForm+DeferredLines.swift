extension DeferredProperties {
    /// Appends the canonical form of the card's properties but the excluded ones to `sink`,
    /// unsorted, made from its lines without building its properties: the same canonical
    /// properties ``CanonicalForm/properties(of:excluding:)`` makes of the built card.
    ///
    /// A line whose only parameters are `TYPE`s and whose value is not binary is read in place,
    /// unfolded first when it is folded (``CanonicalForm/canonicalizePlainLine(_:traits:into:)``):
    /// for such a line the full parse keeps the value as written and the `TYPE` values as their
    /// bytes, which is all the canonical form takes. Every other line is built into its property
    /// alone, as the full parse builds it, and canonicalised as such.
    /// - Returns: `false` when a line could not be built on its own (the caller then uses the
    ///   whole card, after forgetting what was appended).
    func canonicalize(excluding exclusions: CanonicalForm.Exclusions, into sink: inout some CanonicalSink) -> Bool {
        var builder: CardParser?
        var unfolded: [UInt8] = []
        for position in logicalLines.indices {
            let line = logicalLines[position]
            let name = line.traits.upperName
            if exclusions.names.contains(name) { continue }
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
            sink.append(property, name: name)
        }
        return true
    }

    /// The logical line on physical lines `lines` unfolded into `output` (each line end and the one
    /// space or tab after it removed), when every line after the first starts with a space or a
    /// tab; `false` otherwise (a line joined for another reason is left to the full parse).
    private func unfold(_ lines: Range<Int>, into output: inout [UInt8]) -> Bool {
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

extension CanonicalForm {
    /// Whether a line of a property whose name has `traits` may be read in place by
    /// ``canonicalizePlainLine(_:traits:into:)``: its value is neither binary nor a card. Asked
    /// before a folded line is unfolded, so a photo is never copied only to be built after all.
    static func readsInPlace(_ traits: PropertyTraits) -> Bool {
        traits.kind != .binary && traits.kind != .embeddedCard
    }

    /// Appends the canonical form of the plain content line `p` (one physical line of a card
    /// checked without building, see ``DeferredProperties``) whose name has `traits`, read in
    /// place, when its only parameters are `TYPE`s; answers `false`, appending nothing, for any
    /// other line, which the caller then builds. `traits` must be ones that ``readsInPlace(_:)``.
    ///
    /// What it reads is what ``canonicalize(_:name:into:)`` takes from the property the full
    /// parse builds of such a line: the group, the `TYPE` values (quoted or not, split at commas)
    /// and the value, all as written.
    static func canonicalizePlainLine(_ p: UnsafeBufferPointer<UInt8>, traits: PropertyTraits,
                                      into result: inout [CanonicalProperty]) -> Bool {
        assert(readsInPlace(traits), "a \(traits.upperName) line is built, not read in place")
        let count = p.count
        let located = CardParser.locateName(p)
        var i = located.end
        let groupEnd = located.groupEnd
        var read = ReadParameters()
        while i < count && p[i] == 0x3B {
            i += 1
            let nameStart = i
            while i < count, p[i] != 0x3D, p[i] != 0x3B, p[i] != 0x3A { i += 1 }
            guard i < count, p[i] == 0x3D, p.isName("TYPE", nameStart..<i) else { return false }
            i += 1
            let valuesStart: Int, valuesEnd: Int
            if i < count && p[i] == 0x22 {
                valuesStart = i + 1
                i = valuesStart
                while i < count, p[i] != 0x22 { i += 1 }
                guard i < count else { return false }
                valuesEnd = i
                i += 1
            } else {
                valuesStart = i
                while i < count, p[i] != 0x3B, p[i] != 0x3A { i += 1 }
                valuesEnd = i
            }
            for piece in p[valuesStart..<valuesEnd].split(separator: 0x2C) {
                read.typeValues.append(String(unsafeUninitializedCapacity: piece.count) { buffer in
                    for (offset, byte) in piece.enumerated() { buffer[offset] = byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte }
                    return piece.count
                })
            }
        }
        guard i < count, p[i] == 0x3A else { return false }
        let value = String(decoding: p[(i + 1)...], as: UTF8.self)
        let name = traits.upperName
        let group = groupEnd.map { end in
            String(unsafeUninitializedCapacity: end) { buffer in
                for k in 0..<end { buffer[k] = p[k] >= 0x41 && p[k] <= 0x5A ? p[k] + 0x20 : p[k] }
                return end
            }
        } ?? ""
        canonicalize(read, group: group, name: name, kind: traits.kind, rawValue: value, into: &result)
        return true
    }
}
