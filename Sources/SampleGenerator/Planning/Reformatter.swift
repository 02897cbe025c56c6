/// Writes a contact in a different form with the same meaning, as another device or exporter would.
///
/// The changes are: the other vCard version's spelling of the same data (only when the contact
/// can be written in it, and only for books of mixed versions), TYPE lists spelled as repeated
/// parameters or the reverse, parameters in another order, properties in another order (BEGIN
/// and VERSION stay first, END last), property and parameter names in another case, and other
/// folding (width 40 or 60, unfolded, or TAB continuation). At least one change is always made,
/// and a change is reported only when it alters the bytes.
struct Reformatter {
    let includesPhotoData: Bool

    struct Result {
        var lines: [ContentLine]
        var form: LineForm
        var version: CardVersion
        var changes: [DuplicateLabel.Change]
    }

    func reformat(
        _ contact: Contact, version originalVersion: CardVersion, allowsVersionChange: Bool,
        using random: inout SeededRandom
    ) -> Result {
        var changes: Set<DuplicateLabel.Change> = []
        var version = originalVersion
        if allowsVersionChange, contact.canBeWritten(in: version.other), random.chance(0.35) {
            version = version.other
            changes.insert(.version)
        }
        var lines = ContactRenderer(version: version, includesPhotoData: includesPhotoData).lines(for: contact)

        if random.chance(0.3), Self.respellTypeParameters(in: &lines) {
            changes.insert(.parameterSpelling)
        }
        if random.chance(0.4), Self.reorderParameters(in: &lines, using: &random) {
            changes.insert(.parameterOrder)
        }
        if random.chance(0.5), Self.reorderProperties(in: &lines, using: &random) {
            changes.insert(.propertyOrder)
        }
        var form = LineForm.standard
        if random.chance(0.4) {
            switch random.below(3) {
            case 0: form.nameCase = .lower
            case 1: form.nameCase = .capitalized
            default: form.nameCase = .mixed(seed: random.next())
            }
            changes.insert(.nameCase)
        }
        if random.chance(0.6) || changes.isEmpty {
            let longest = lines.map(Self.octetCount).max() ?? 0
            switch random.below(4) {
            case 0 where longest > 40:
                form.foldWidth = 40
                changes.insert(.foldWidth)
            case 1 where longest > 60:
                form.foldWidth = 60
                changes.insert(.foldWidth)
            case 2 where longest > 75:
                form.foldWidth = nil
                changes.insert(.unfolded)
            case 3 where longest > 75:
                form.continuation = 0x09
                changes.insert(.tabContinuation)
            default:
                break
            }
        }
        if changes.isEmpty {
            form.nameCase = .lower
            changes.insert(.nameCase)
        }
        let ordered = DuplicateLabel.Change.allCases.filter { changes.contains($0) }
        return Result(lines: lines, form: form, version: version, changes: ordered)
    }

    /// Splits each multi-valued TYPE into repeated TYPE parameters and merges repeated ones into a list.
    ///
    /// - Returns: Whether any line changed.
    static func respellTypeParameters(in lines: inout [ContentLine]) -> Bool {
        var changed = false
        for position in lines.indices {
            let parameters = lines[position].parameters
            let typePositions = parameters.indices.filter { parameters[$0].name.uppercased() == "TYPE" }
            guard let first = typePositions.first else { continue }
            var rewritten = parameters
            if typePositions.count == 1 {
                let values = parameters[first].values
                guard values.count > 1 else { continue }
                let name = parameters[first].name
                rewritten.replaceSubrange(first...first, with: values.map { Parameter(name, $0) })
            } else {
                let values = typePositions.flatMap { parameters[$0].values }
                rewritten = parameters.indices.compactMap { index in
                    if index == first { return Parameter(parameters[first].name, values) }
                    return typePositions.contains(index) ? nil : parameters[index]
                }
            }
            lines[position].parameters = rewritten
            changed = true
        }
        return changed
    }

    /// Puts the parameters of every line that has several in another order.
    ///
    /// - Returns: Whether any line changed.
    static func reorderParameters(in lines: inout [ContentLine], using random: inout SeededRandom) -> Bool {
        var changed = false
        for position in lines.indices where lines[position].parameters.count > 1 {
            let before = lines[position].parameters
            var after = before
            random.shuffle(&after)
            if after == before {
                after = Array(before[1...]) + [before[0]]
            }
            if after != before {
                lines[position].parameters = after
                changed = true
            }
        }
        return changed
    }

    /// Shuffles every property between VERSION and END.
    ///
    /// - Returns: Whether the order changed.
    static func reorderProperties(in lines: inout [ContentLine], using random: inout SeededRandom) -> Bool {
        guard lines.count > 4 else { return false }
        let body = Array(lines[2..<(lines.count - 1)])
        var shuffled = body
        random.shuffle(&shuffled)
        if shuffled == body {
            shuffled.swapAt(0, shuffled.count - 1)
        }
        guard shuffled != body else { return false }
        lines.replaceSubrange(2..<(lines.count - 1), with: shuffled)
        return true
    }

    /// The length in octets of the line as ``LineWriter`` writes it unfolded, CRLF not counted.
    static func octetCount(_ line: ContentLine) -> Int {
        var count = line.name.utf8.count + 1 + line.value.utf8.count
        if let group = line.group { count += group.utf8.count + 1 }
        for parameter in line.parameters {
            count += 2 + parameter.name.utf8.count + max(0, parameter.values.count - 1)
            for value in parameter.values {
                count += value.utf8.count
                if !parameter.isQuotedList, value.utf8.contains(where: { $0 == 0x3A || $0 == 0x3B || $0 == 0x2C }) {
                    count += 2
                }
            }
            if parameter.isQuotedList { count += 2 }
        }
        return count
    }
}
