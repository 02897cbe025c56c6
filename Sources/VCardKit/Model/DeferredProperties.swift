import Synchronization

/// The properties of a card read with ``VCardReadOptions/deferredVersions``: the card's frame,
/// parsed into properties the first time they are asked for, once, whichever copy of the card
/// (and whichever thread) asks first.
///
/// The frame was checked when it was read, with the same diagnostics a full parse gives, so the
/// parse made here reports nothing new; its diagnostics are dropped.
final class DeferredProperties: Sendable {
    let frame: VCardFrame
    /// The card's logical lines (its properties to be), in order.
    let logicalLines: [DeferredLine]
    /// The properties once built; `nil` while they are not. A lock held in place: a card costs
    /// no allocation for it.
    private let built = Mutex<[VCardProperty]?>(nil)

    init(_ frame: VCardFrame, logicalLines: [DeferredLine]) {
        self.logicalLines = logicalLines
        var options = frame.options
        options.deferredVersions = []
        self.frame = VCardFrame(bytes: frame.bytes, lines: frame.lines, blankLinesBefore: frame.blankLinesBefore,
                                sourceName: frame.sourceName, options: options)
    }

    /// The properties once built; `nil` while they are not.
    private var builtIfAny: [VCardProperty]? {
        built.withLock { $0 }
    }

    /// Where the logical line at `position` of ``logicalLines`` ends: the first physical line after it.
    func end(ofLineAt position: Int) -> Int {
        position + 1 < logicalLines.count ? logicalLines[position + 1].firstLine : frame.lines.count - 1
    }

    /// The first property named `name` (in any case), as the full parse builds it. While the
    /// card's properties are not built, only that property's line is.
    func first(named name: String) -> VCardProperty? {
        if let built = builtIfAny { return built.first { $0.hasName(name) } }
        // A registered name is compared by its index; any other with the names of the lines
        // that are not registered either.
        let sought = PropertyTraits.of(name)
        let found = logicalLines.withUnsafeBufferPointer { lines in
            if sought.registeredName != nil { return lines.indices.first { lines[$0].traits.nameIndex == sought.nameIndex } }
            return lines.indices.first { lines[$0].traits.registeredName == nil && upperName(ofLineAt: $0).equalsIgnoringASCIICase(name) }
        }
        guard let position = found else { return nil }
        if let property = propertyWithoutParameters(atLineAt: position) { return property }
        var builder = CardParser(buildingLinesOf: frame)
        if let property = builder.property(ofLogicalLineAt: logicalLines[position].firstLine, end: end(ofLineAt: position)) {
            return property
        }
        return properties.first { $0.hasName(name) }
    }

    /// The name of the logical line at `position`, its ASCII letters upper-cased: the registered
    /// name its traits know, or else the name read from the line (unfolded when it is folded, or
    /// built as the full parse builds it when it cannot be).
    func upperName(ofLineAt position: Int) -> String {
        let line = logicalLines[position]
        if let name = line.traits.registeredName { return name }
        let end = end(ofLineAt: position)
        func name(in p: UnsafeBufferPointer<UInt8>) -> String {
            let (nameEnd, groupEnd) = CardParser.locateName(p)
            return PropertyTraits.upperName(of: UnsafeBufferPointer(rebasing: p[(groupEnd.map { $0 + 1 } ?? 0)..<nameEnd]))
        }
        if end == line.firstLine + 1 {
            let physical = frame.lines[line.firstLine]
            return frame.bytes.withUnsafeBufferPointer { name(in: UnsafeBufferPointer(rebasing: $0[physical.start..<physical.contentEnd])) }
        }
        var unfolded: [UInt8] = []
        if unfold(line.firstLine..<end, into: &unfolded) { return unfolded.withUnsafeBufferPointer { name(in: $0) } }
        var builder = CardParser(buildingLinesOf: frame)
        return builder.property(ofLogicalLineAt: line.firstLine, end: end)?.upperName ?? ""
    }

    /// The property of the logical line at `position` when that line is one physical line with
    /// no parameters (`UID:…`, `FN:…`, `VERSION:…` in most cards), made from its bytes without a
    /// parser; `nil` for any other line. Every line of a deferred card is plain (see
    /// ``CardParser``'s `plainLine`), so such a line's value is its bytes after the `:`, as the
    /// full parse keeps it.
    private func propertyWithoutParameters(atLineAt position: Int) -> VCardProperty? {
        let first = logicalLines[position].firstLine
        guard end(ofLineAt: position) == first + 1 else { return nil }
        let physical = frame.lines[first]
        return frame.bytes.withUnsafeBufferPointer { all -> VCardProperty? in
            let p = UnsafeBufferPointer(rebasing: all[physical.start..<physical.contentEnd])
            let (nameEnd, groupEnd) = CardParser.locateName(p)
            guard nameEnd < p.count, p[nameEnd] == 0x3A else { return nil }
            let group = groupEnd.map { String(decoding: UnsafeBufferPointer(rebasing: p[0..<$0]), as: UTF8.self) }
            let (name, traits) = PropertyTraits.named(UnsafeBufferPointer(rebasing: p[(groupEnd.map { $0 + 1 } ?? 0)..<nameEnd]))
            let value = String(decoding: UnsafeBufferPointer(rebasing: p[(nameEnd + 1)...]), as: UTF8.self)
            return VCardProperty(group: group, name: name, traits: traits, parameters: [], rawValue: value,
                                 original: frame.bytes[physical.start..<physical.end], line: physical.number)
        }
    }

    /// The card's properties, as a full parse of its frame builds them.
    var properties: [VCardProperty] {
        built.withLock { built in
            if let built { return built }
            let properties = frame.parse().card?.properties ?? []
            built = properties
            return properties
        }
    }
}

extension DeferredProperties {
    /// The card's lines on their way to `target` (see ``VersionConverter/convertedLines(of:to:copyingUnchangedLines:)``),
    /// made one by one as they are asked for: a line that conversion leaves as it is and that is
    /// already written as the writer writes is copied as read; every other line is built into its
    /// property, as the full parse builds it.
    func linesForConversion(to target: VCardVersion) -> ConversionLines {
        ConversionLines(deferred: self, target: target)
    }

    /// How many logical lines the card has.
    var lineCount: Int { logicalLines.count }

    /// The lines of a deferred card on their way to another version, in order, without its
    /// VERSION line (the conversion writes one of its own).
    struct ConversionLines: IteratorProtocol {
        let deferred: DeferredProperties
        let target: VCardVersion
        /// Whether the card has a `LABEL` or a `SORT-STRING` line (which conversion to 4.0 may
        /// move into an `ADR` or the `N`).
        private let hasLabel: Bool
        private let hasSortString: Bool
        private var index = 0
        private var builder: CardParser?
        /// The frame's bytes and lines, held here so that each line reads them without copying the frame.
        private let bytes: [UInt8]
        private let lines: [PhysicalLine]
        /// Whether a line could not be built on its own, which ended the lines early: the card is
        /// then converted whole instead.
        private(set) var failed = false

        init(deferred: DeferredProperties, target: VCardVersion) {
            self.deferred = deferred
            self.target = target
            // One pass, each line's role read in place.
            (hasLabel, hasSortString) = deferred.logicalLines.withUnsafeBufferPointer { lines in
                var label = false, sortString = false
                for index in lines.indices {
                    switch lines[index].traits.role {
                    case .label: label = true
                    case .sortString: sortString = true
                    default: break
                    }
                }
                return (label, sortString)
            }
            bytes = deferred.frame.bytes
            lines = deferred.frame.lines
        }

        mutating func next() -> ConvertedLine? {
            // The conversion writes a VERSION line of its own and drops the card's: those are
            // skipped here, not built.
            while index < deferred.logicalLines.count && deferred.logicalLines[index].traits.role == .version { index += 1 }
            guard index < deferred.logicalLines.count, !failed else { return nil }
            // The line's fields are read in place: a copy of the line would copy its name.
            let (firstLine, unchanged) = deferred.logicalLines.withUnsafeBufferPointer { lines in
                (lines[index].firstLine,
                 VersionConverter.leavesUnchanged(lines[index].traits, changedFor: lines[index].changedFor, to: target,
                                                  cardHasLabel: hasLabel, cardHasSortString: hasSortString))
            }
            let end = deferred.end(ofLineAt: index)
            index += 1
            let text = bytes[lines[firstLine].start..<lines[end - 1].end]
            let strict = unchanged && isStrictlyFormatted(physicalLines: firstLine..<end)
            assert(!unchanged || strict == VCardWriter.isStrictlyFormatted(text),
                   "the physical lines and the bytes of \(String(decoding: text, as: UTF8.self)) disagree on strict formatting")
            if strict { return .copied(text) }
            if builder == nil { builder = CardParser(buildingLinesOf: deferred.frame) }
            guard let property = builder!.property(ofLogicalLineAt: firstLine, end: end) else {
                failed = true
                return nil
            }
            return .property(property)
        }
    }
}

extension DeferredProperties.ConversionLines {
    /// ``VCardWriter/isStrictlyFormatted(_:)`` of the text of `physicalLines`, from where the
    /// reader found their ends: each ends in CRLF, holds 1 to 75 octets before it, and each
    /// after the first starts with a space (a fold). A line per step, not a byte.
    func isStrictlyFormatted(physicalLines: Range<Int>) -> Bool {
        for index in physicalLines {
            let line = lines[index]
            let length = line.contentEnd - line.start
            guard length > 0, length <= LineFolding.maximumLineOctets, line.end - line.contentEnd == 2,
                  bytes[line.contentEnd] == 0x0D, bytes[line.contentEnd + 1] == 0x0A,
                  index == physicalLines.lowerBound || bytes[line.start] == 0x20 else { return false }
        }
        return !physicalLines.isEmpty
    }
}

/// A logical line of a card read with its properties deferred: where it starts, and what a
/// conversion needs to know whether it leaves the line as it is
/// (``VersionConverter/leavesUnchanged(_:changedFor:to:cardHasLabel:cardHasSortString:)``, asked
/// only when the card is converted, for the one target it is converted to).
struct DeferredLine: Sendable, HasPropertyTraits {
    /// The index of its first physical line in the card's frame.
    var firstLine: Int
    /// The traits of the property's name.
    var traits: PropertyTraits
    /// The versions a conversion to which may change the line because of its parameters.
    var changedFor: ConversionTargets
}

/// A set of the versions cards are converted to (3.0 and 4.0).
struct ConversionTargets: OptionSet, Sendable {
    let rawValue: UInt8
    static let v3_0 = ConversionTargets(rawValue: 1)
    static let v4_0 = ConversionTargets(rawValue: 2)
    static let both: ConversionTargets = [.v3_0, .v4_0]

    /// Whether the set holds `version` (2.1 is never a target).
    func includes(_ version: VCardVersion) -> Bool {
        switch version {
        case .v3_0: contains(ConversionTargets.v3_0)
        case .v4_0: contains(ConversionTargets.v4_0)
        case .v2_1: false
        }
    }
}
