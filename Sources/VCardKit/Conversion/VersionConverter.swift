/// Converts cards between vCard versions without losing anything.
///
/// | 3.0 (and 2.1)                          | 4.0                                  |
/// |----------------------------------------|--------------------------------------|
/// | `TYPE=pref`                            | `PREF=1`                             |
/// | `PHOTO;ENCODING=b;TYPE=JPEG:<base64>`  | `PHOTO:data:image/jpeg;base64,<…>`   |
/// | `LABEL;TYPE=home:…` after its `ADR`    | `ADR;TYPE=home;LABEL="…"`            |
/// | `GEO:37.38;-122.08`                    | `GEO:geo:37.38,-122.08`              |
///
/// vCard 2.1 values are already decoded (quoted-printable, `CHARSET`) and re-escaped when read;
/// 2.1 bare parameters get their names. A property the target version does not define (`KIND`
/// in 3.0, `MAILER` in 4.0) is kept as it is, with a warning: nothing is dropped.
public enum VersionConverter {
    /// Returns `card` converted to `target` (3.0 or 4.0) and notes about what the target lacks.
    ///
    /// Properties the conversion does not change keep their original bytes, so that a writer that
    /// preserves formatting can copy them; everything else is written in canonical form.
    public static func convert(_ card: VCard, to target: VCardVersion) -> (card: VCard, notes: [Diagnostic]) {
        precondition(target != .v2_1, "cardsync writes vCard 3.0 and 4.0 only")
        let source = card.sourceVersion ?? card.version ?? .v3_0
        var properties = card.properties.lazy.map { ConvertedLine.property($0) }.makeIterator()
        let (lines, notes) = convert(&properties, count: card.properties.count, of: card, from: source, to: target)
        // The list becomes the card's own (not appended property by property to an empty one).
        let result = VCard(properties: lines.compactMap(\.property), originalBegin: nil, originalEnd: nil, location: card.location,
                           sourceVersion: target)
        return (result, notes)
    }

    /// The lines of `card` converted to `target` (3.0 or 4.0), and notes about what the target
    /// lacks: what ``convert(_:to:)`` gives, as lines to write.
    ///
    /// With `copyingUnchangedLines`, a card read with its properties deferred (and not edited
    /// since) is not built: each of its lines that the conversion leaves as it is, and that is
    /// already written as the writer writes (``VCardWriter/isStrictlyFormatted(_:)``), is copied
    /// as read, and only the other lines become properties. The written text is the same.
    static func convertedLines(of card: VCard, to target: VCardVersion, copyingUnchangedLines: Bool) -> (lines: [ConvertedLine], notes: [Diagnostic]) {
        precondition(target != .v2_1, "cardsync writes vCard 3.0 and 4.0 only")
        let source = card.sourceVersion ?? card.version ?? .v3_0
        if copyingUnchangedLines, source != .v2_1, let deferred = card.deferredProperties {
            var lines = deferred.linesForConversion(to: target)
            let converted = convert(&lines, count: deferred.lineCount, of: card, from: source, to: target)
            if !lines.failed { return converted }
        }
        var properties = card.properties.lazy.map { ConvertedLine.property($0) }.makeIterator()
        return convert(&properties, count: card.properties.count, of: card, from: source, to: target)
    }

    /// Whether converting a property to `target` leaves it exactly as it is (no change, no note),
    /// from what a plain line shows without building it: its name's traits, and the versions a
    /// conversion to which changes one of its parameters (`changedFor`: `ENCODING`, `LABEL` and
    /// `VALUE=url` for both; `PREF`, `SORT-AS` and `MEDIATYPE` for 3.0; a `TYPE` that holds
    /// `pref` for 4.0). `VERSION` is never unchanged: it is replaced. An `ADR` or `N` changes
    /// only on the way to 4.0, when the card has a 3.0 `LABEL` or `SORT-STRING` that may move
    /// into it (`cardHasLabel`, `cardHasSortString`): the merge needs it built.
    ///
    /// It must answer `false` for anything ``convert(_:to:)`` changes; when in doubt, `false`
    /// (the line is then built and converted like any other).
    static func leavesUnchanged(_ traits: PropertyTraits, changedFor: ConversionTargets, to target: VCardVersion,
                                cardHasLabel: Bool, cardHasSortString: Bool) -> Bool {
        if changedFor.includes(target) || traits.kind == .binary { return false }
        switch traits.role {
        case .version, .label, .geo, .sortString: return false
        case .address where target == .v4_0 && cardHasLabel: return false
        case .name where target == .v4_0 && cardHasSortString: return false
        default: return target == .v4_0 ? !traits.isOnlyIn3 : !traits.isOnlyIn4
        }
    }

    /// The conversion of a card's lines, taken from `input` one by one (`.copied` lines pass
    /// through as they are) from `source` to `target`, and the notes, located in `card`.
    private static func convert(_ input: inout some IteratorProtocol<ConvertedLine>, count: Int, of card: VCard,
                                from source: VCardVersion, to target: VCardVersion) -> (lines: [ConvertedLine], notes: [Diagnostic]) {
        var notes: [Diagnostic] = []
        var lines: [ConvertedLine] = [.property(VCardProperty(name: "VERSION", rawValue: target.rawValue))]
        lines.reserveCapacity(count + 1)
        // Whether a LABEL or SORT-STRING was converted: only then are the lines searched again for
        // the merges below (copied lines are never either).
        var hasLabel = false
        var hasSortString = false
        while let line = input.next() {
            guard case .property(var property) = line else {
                lines.append(line)
                continue
            }
            if property.traits.role == .version { continue }
            // A property that the conversion leaves unchanged keeps its original bytes (any change
            // forgets them); vCard 2.1 bytes are never valid 3.0 or 4.0, so they are always dropped.
            if source == .v2_1 { property.original = nil }
            normalizeParameters(&property, from: source)
            switch target {
            case .v4_0: convertTo4(&property)
            case .v3_0: convertTo3(&property, into: &lines)
            case .v2_1: break
            }
            let traits = property.traits
            if traits.role == .label { hasLabel = true } else if traits.role == .sortString { hasSortString = true }
            let lacking = target == .v4_0 ? traits.isOnlyIn3 : traits.isOnlyIn4
            if lacking && !(target == .v4_0 && (traits.role == .label || traits.role == .sortString)) {
                notes.append(note(for: property, card: card, target: target))
            }
            lines.append(.property(property))
        }
        if target == .v4_0 {
            if hasLabel { mergeLabels(&lines, notes: &notes, card: card) }
            if hasSortString { mergeSortString(&lines, notes: &notes, card: card) }
        }
        return (lines, notes)
    }

    /// Where a property was read, for notes: its line in the card's input.
    static func location(of property: VCardProperty, in card: VCard) -> SourceLocation {
        SourceLocation(source: card.location?.source ?? "<card>", line: property.line ?? card.location?.line ?? 0, column: 1)
    }

    private static func note(for property: VCardProperty, card: VCard, target: VCardVersion) -> Diagnostic {
        Diagnostic(severity: .warning, code: .propertyNotInVersion,
                   message: "\(property.name) is not a vCard \(target.rawValue) property; it was kept as it is",
                   location: location(of: property, in: card))
    }

    /// Names every parameter, drops transfer encodings, and folds vCard 2.1 spellings into 3.0 ones.
    private static func normalizeParameters(_ property: inout VCardProperty, from source: VCardVersion) {
        guard !property.parameters.isEmpty else { return }
        // Most parameters need nothing: skip the rebuild unless one does.
        let needsWork = property.parameters.contains { parameter in
            parameter.isNameless || (source == .v2_1 && parameter.hasName("TYPE")) || VCardWriter.isTransferParameter(parameter)
                || (parameter.hasName("ENCODING") && parameter.values != ["b"])
                || (parameter.hasName("VALUE") && parameter.values.first?.equalsIgnoringASCIICase("URL") == true)
        }
        guard needsWork else { return }
        var parameters: [VCardParameter] = []
        parameters.reserveCapacity(property.parameters.count)
        var typeIndex: Int?
        for var parameter in property.parameters {
            if VCardWriter.isTransferParameter(parameter) { continue }
            parameter.isNameless = false
            if parameter.hasName("ENCODING"), let value = parameter.values.first?.asciiUppercased, value == "BASE64" || value == "B" {
                parameter = VCardParameter(name: "ENCODING", values: ["b"])
            }
            if parameter.hasName("VALUE"), let value = parameter.values.first, value.equalsIgnoringASCIICase("URL") {
                parameter.values = ["uri"]
            }
            if source == .v2_1 && parameter.hasName("TYPE") {
                // 2.1 writes each type as its own bare parameter: gather them in one TYPE.
                if let typeIndex {
                    parameters[typeIndex].values.append(contentsOf: parameter.values)
                    continue
                }
                parameter.name = "TYPE"
                typeIndex = parameters.count
            }
            parameters.append(parameter)
        }
        if parameters != property.parameters { property.parameters = parameters }
    }

    // MARK: - To 4.0

    private static func convertTo4(_ property: inout VCardProperty) {
        // TYPE=pref becomes PREF=1 in the place of the type.
        if let index = property.parameters.firstIndex(where: { $0.hasName("TYPE") && $0.values.contains { $0.equalsIgnoringASCIICase("pref") } }),
           property.parameter("PREF") == nil {
            var type = property.parameters[index]
            type.values.removeAll { $0.equalsIgnoringASCIICase("pref") }
            if type.values.isEmpty {
                property.parameters[index] = VCardParameter(name: "PREF", value: "1")
            } else {
                property.parameters[index] = type
                property.parameters.insert(VCardParameter(name: "PREF", value: "1"), at: index + 1)
            }
        }
        let kind = property.traits.kind
        if kind == .binary, let encoding = property.parameter("ENCODING"), encoding.values.first == "b" {
            var mediaType = "application/octet-stream"
            if let typeIndex = property.parameters.firstIndex(where: { $0.hasName("TYPE") }) {
                var type = property.parameters[typeIndex]
                if let first = type.values.first {
                    mediaType = MediaTypes.mediaType(forTypeValue: first, property: property.name)
                    type.values.removeFirst()
                }
                if type.values.isEmpty { property.parameters.remove(at: typeIndex) } else { property.parameters[typeIndex] = type }
            }
            property.removeParameter("ENCODING")
            property.rawValue = "data:\(mediaType);base64,\(property.rawValue)"
        }
        if property.traits.role == .address, let index = property.parameters.firstIndex(where: { $0.hasName("LABEL") }) {
            let label = property.parameters.remove(at: index)
            placeLabel(label, in: &property)
        }
        if property.traits.role == .geo, !property.rawValue.hasPrefix("geo:"),
           let geo = geoURI(fromPair: property.rawValue) {
            property.rawValue = geo
        }
    }

    /// Attaches each 3.0 `LABEL` to the `ADR` it labels (same types, the nearest one before it)
    /// as a `LABEL` parameter; a `LABEL` with no such address stays a property, with a warning.
    /// (Labels and addresses are never `.copied` lines.)
    private static func mergeLabels(_ lines: inout [ConvertedLine], notes: inout [Diagnostic], card: VCard) {
        guard lines.contains(where: { $0.role == .label }) else { return }
        var removed: [Int] = []
        for index in lines.indices where lines[index].role == .label {
            guard let label = lines[index].property else { continue }
            let onlyTypes = label.parameters.allSatisfy { $0.hasName("TYPE") || $0.hasName("PREF") }
            var target: Int?
            if onlyTypes {
                let labelTypes = typeSet(of: label)
                let labelPref = label.parameter("PREF")?.values
                // The nearest matching address before the label, else the first one after it.
                var before: Int?
                var after: Int?
                for i in lines.indices where i != index && lines[i].role == .address {
                    guard let address = lines[i].property else { continue }
                    guard address.parameter("LABEL") == nil, address.group == label.group,
                          address.parameter("PREF")?.values == labelPref, typeSet(of: address) == labelTypes else { continue }
                    if i < index { before = i } else if after == nil { after = i }
                }
                target = before ?? after
            }
            if let target, case .property(var address) = lines[target] {
                placeLabel(VCardParameter(name: "LABEL", value: TextEscaping.unescape(label.rawValue)), in: &address)
                lines[target] = .property(address)
                removed.append(index)
            } else {
                notes.append(Diagnostic(severity: .warning, code: .propertyNotInVersion,
                                        message: "LABEL has no matching ADR to attach to; it was kept as a LABEL property, which vCard 4.0 does not define",
                                        location: location(of: label, in: card)))
            }
        }
        // The labels now carried by their addresses leave the list.
        for index in removed.reversed() { lines.remove(at: index) }
    }

    /// The lower-cased `TYPE` values of a property, as a set.
    private static func typeSet(of property: VCardProperty) -> Set<String> {
        var types = Set<String>()
        for parameter in property.parameters where parameter.hasName("TYPE") {
            for value in parameter.values { types.insert(value.asciiLowercased) }
        }
        return types
    }

    /// Moves a 3.0 `SORT-STRING` into the `SORT-AS` parameter of `N` (4.0); without an `N` to
    /// carry it, it stays a property, with a warning like any property 4.0 lacks. (Neither is
    /// ever a `.copied` line.)
    private static func mergeSortString(_ lines: inout [ConvertedLine], notes: inout [Diagnostic], card: VCard) {
        func isSortString(_ line: ConvertedLine) -> Bool { line.role == .sortString }
        guard let sortIndex = lines.firstIndex(where: isSortString), let sortString = lines[sortIndex].property else { return }
        guard lines.count(where: isSortString) == 1, sortString.parameters.isEmpty,
              let nameIndex = lines.firstIndex(where: { $0.role == .name }),
              case .property(var name) = lines[nameIndex], name.parameter("SORT-AS") == nil else {
            for case .property(let property) in lines where property.traits.role == .sortString {
                notes.append(note(for: property, card: card, target: .v4_0))
            }
            return
        }
        name.parameters.append(VCardParameter(name: "SORT-AS", value: TextEscaping.unescape(sortString.rawValue)))
        lines[nameIndex] = .property(name)
        lines.remove(at: sortIndex)
    }

    /// Puts an address's `LABEL` parameter in its canonical place: right after `TYPE` and `PREF`.
    private static func placeLabel(_ label: VCardParameter, in address: inout VCardProperty) {
        let position = (address.parameters.lastIndex { $0.hasName("TYPE") || $0.hasName("PREF") }).map { $0 + 1 } ?? 0
        address.parameters.insert(label, at: position)
    }

    // MARK: - To 3.0

    private static func convertTo3(_ property: inout VCardProperty, into lines: inout [ConvertedLine]) {
        if let index = property.parameters.firstIndex(where: { $0.hasName("PREF") }), property.parameters[index].values == ["1"] {
            property.parameters[index] = VCardParameter(name: "TYPE", value: "pref")
        }
        let kind = property.traits.kind
        if kind == .binary, let (mediaType, base64) = dataURI(property.rawValue) {
            property.removeParameter("VALUE")
            property.removeParameter("MEDIATYPE")
            property.parameters.insert(VCardParameter(name: "ENCODING", value: "b"), at: 0)
            if mediaType != "application/octet-stream" {
                property.parameters.insert(VCardParameter(name: "TYPE", value: MediaTypes.typeValue(forMediaType: mediaType)), at: 1)
            }
            property.rawValue = base64
        }
        if property.traits.role == .geo, let pair = geoPair(fromURI: property.rawValue) {
            property.rawValue = pair
        }
        if property.traits.role == .name, let sortIndex = property.parameters.firstIndex(where: { $0.hasName("SORT-AS") }),
           property.parameters[sortIndex].values.count == 1 {
            let sortAs = property.parameters.remove(at: sortIndex)
            var sortString = VCardProperty(group: property.group, name: "SORT-STRING", text: sortAs.values[0])
            sortString.line = property.line
            lines.append(.property(property))
            property = sortString
        }
        if property.traits.role == .address, let labelIndex = property.parameters.firstIndex(where: { $0.hasName("LABEL") }) {
            let label = property.parameters.remove(at: labelIndex)
            var labelProperty = VCardProperty(group: property.group, name: "LABEL",
                                              parameters: property.parameters.filter { $0.hasName("TYPE") },
                                              text: label.values.joined(separator: ","))
            labelProperty.line = property.line
            lines.append(.property(property))
            property = labelProperty
        }
    }

    // MARK: - Values

    /// `data:image/jpeg;base64,AAAA` → ("image/jpeg", "AAAA").
    static func dataURI(_ value: String) -> (String, String)? {
        guard value.utf8.count > 5, value.utf8.starts(with: "data:".utf8) else { return nil }
        guard let comma = value.utf8.firstIndex(of: 0x2C) else { return nil }
        let header = String(value[value.index(value.startIndex, offsetBy: 5)..<comma])
        guard header.hasSuffix(";base64") else { return nil }
        let mediaType = String(header.dropLast(7))
        return (mediaType.isEmpty ? "application/octet-stream" : mediaType, String(value[value.index(after: comma)...]))
    }

    /// `37.386013;-122.082932` → `geo:37.386013,-122.082932`.
    static func geoURI(fromPair value: String) -> String? {
        let parts = TextEscaping.split(value, separator: 0x3B)
        guard parts.count == 2, parts.allSatisfy({ Double($0.trimmingASCIISpaces) != nil }) else { return nil }
        return "geo:\(parts[0].trimmingASCIISpaces),\(parts[1].trimmingASCIISpaces)"
    }

    /// `geo:37.386013,-122.082932` → `37.386013;-122.082932` (only plain coordinates).
    static func geoPair(fromURI value: String) -> String? {
        guard value.hasPrefix("geo:") else { return nil }
        let parts = value.dropFirst(4).split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ Double($0) != nil }) else { return nil }
        return "\(parts[0]);\(parts[1])"
    }
}

/// A line of a converted card: a property, or the bytes of a line that the conversion leaves as
/// it was read and that are already written as the writer writes them.
///
/// A property is held in a box (`indirect`): a line is then the size of a slice, not of a
/// property (about 150 bytes), and most lines of a converted card are copied ones, each moved
/// into the card's array of lines and out of it again.
enum ConvertedLine {
    indirect case property(VCardProperty)
    case copied(ArraySlice<UInt8>)

    /// The property, unless the line is copied.
    var property: VCardProperty? {
        if case .property(let property) = self { return property }
        return nil
    }

    /// The role of the property's name, unless the line is copied.
    var role: PropertyTraits.Role? {
        if case .property(let property) = self { return property.traits.role }
        return nil
    }
}
