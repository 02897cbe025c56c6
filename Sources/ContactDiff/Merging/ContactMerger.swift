public import VCardKit

/// Merges cards of one person into one card.
///
/// ```swift
/// let merged = ContactMerger().merge([kept, other])   // kept's UID, version and formatting
/// ```
///
/// - The first card is the one kept: its UID, its version, and the bytes of every property
///   that survives unchanged.
/// - `FN` and `N` come from the card with the richest name: the most non-empty `N` components,
///   then the longest `FN` (white space collapsed).
/// - Every other value of the other cards is added unless the merged card already has it:
///   e-mail addresses are compared lower-cased, telephone numbers normalised
///   (``NormalizedPhone/isSameNumber(as:)``), other values in their ``CanonicalForm``. A group
///   (`item1.EMAIL` with its `item1.X-ABLABEL`) moves as a whole, under a new label. Properties
///   a card has only once (`BDAY`, `ANNIVERSARY`, `GENDER`, `KIND`, …) are not added when the
///   kept card has one.
/// - `REV` is the newest of the cards' revisions; `PRODID` is the kept card's.
/// - Properties of another version are converted to the kept card's version first.
public struct ContactMerger: Sendable {
    /// Properties a card has at most once.
    public static let singleValued: Set<String> = [
        "BDAY", "ANNIVERSARY", "GENDER", "KIND", "CLASS", "SORT-STRING", "BIRTHPLACE", "DEATHPLACE", "DEATHDATE",
    ]
    /// Properties that are never copied from the other cards.
    static let notCopied: Set<String> = ["FN", "N", "UID", "VERSION", "REV", "PRODID"]

    /// How telephone numbers are compared.
    public var phoneNormalizer: PhoneNormalizer

    /// Creates a merger.
    public init(phoneNormalizer: PhoneNormalizer = PhoneNormalizer()) {
        self.phoneNormalizer = phoneNormalizer
    }

    /// The merged card; `cards` must not be empty.
    public func merge(_ cards: [VCard]) -> VCard {
        precondition(!cards.isEmpty, "nothing to merge")
        var merged = cards[0]
        let version = merged.sourceVersion ?? merged.version ?? .v4_0
        let others = cards.dropFirst().map { card in
            (card.sourceVersion ?? card.version) == version || version == .v2_1 ? card : VersionConverter.convert(card, to: version).card
        }
        // The richest name.
        let candidates = [merged] + others
        var richest = (offset: 0, element: merged)
        for (offset, card) in candidates.enumerated().dropFirst()
        where Self.nameRichness(richest.element).lexicographicallyPrecedes(Self.nameRichness(card)) {
            richest = (offset, card)
        }
        if richest.offset > 0 {
            for name in ["FN", "N"] {
                let replacement = richest.element.all(name)
                guard !replacement.isEmpty else { continue }
                replace(name, in: &merged, with: replacement)
            }
        }
        // The union of values.
        var taken = Set(merged.properties.compactMap(\.group).map { $0.lowercased() })
        for (cardNumber, card) in others.enumerated() {
            for unit in Self.units(of: card) {
                let main = unit.filter { !$0.name.uppercased().hasPrefix("X-AB") }
                guard !main.isEmpty, !main.allSatisfy({ Self.notCopied.contains($0.name.uppercased()) }) else { continue }
                if main.allSatisfy({ has($0, in: merged) }) { continue }
                var group: String?
                if let label = unit[0].group {
                    var fresh = "merge\(cardNumber + 1)\(label)"
                    var counter = 1
                    while taken.contains(fresh.lowercased()) { counter += 1; fresh = "merge\(cardNumber + 1)\(label)x\(counter)" }
                    taken.insert(fresh.lowercased())
                    group = fresh
                }
                for property in unit where !Self.notCopied.contains(property.name.uppercased()) {
                    var copy = VCardProperty(group: group ?? property.group, name: property.name, parameters: property.parameters,
                                             rawValue: property.rawValue)
                    if group == nil { copy.group = nil }
                    merged.append(copy)
                }
            }
        }
        // The newest revision.
        let revisions = ([cards[0]] + others).compactMap { $0.first("REV") }
        if let newest = revisions.max(by: { Self.revisionKey($0) < Self.revisionKey($1) }),
           Self.revisionKey(newest) != merged.first("REV").map(Self.revisionKey) {
            replace("REV", in: &merged, with: [VCardProperty(name: "REV", rawValue: newest.rawValue)])
        }
        return merged
    }

    /// Whether `merged` already says what `property` says.
    func has(_ property: VCardProperty, in merged: VCard) -> Bool {
        let name = property.name.uppercased()
        let existing = merged.all(name)
        if Self.singleValued.contains(name) { return !existing.isEmpty }
        switch name {
        case "EMAIL":
            let address = ContactIdentity.normalizedEmail(property.textValue)
            return existing.contains { ContactIdentity.normalizedEmail($0.textValue) == address }
        case "TEL":
            let number = phoneNormalizer.normalize(property.hasTelURI ? property.rawValue : property.textValue)
            return existing.contains { phoneNormalizer.normalize($0.hasTelURI ? $0.rawValue : $0.textValue).isSameNumber(as: number) }
        default:
            let value = Self.canonicalValue(property)
            return existing.contains { Self.canonicalValue($0) == value }
        }
    }

    /// Replaces every `name` property by `replacement`, at the place of the first one.
    private func replace(_ name: String, in card: inout VCard, with replacement: [VCardProperty]) {
        let position = card.properties.firstIndex { $0.hasName(name) } ?? card.properties.firstIndex { $0.hasName("END") } ?? card.properties.count
        card.properties.removeAll { $0.hasName(name) }
        card.properties.insert(contentsOf: replacement.map { VCardProperty(name: $0.name, parameters: $0.parameters, rawValue: $0.rawValue) },
                               at: min(position, card.properties.count))
    }

    /// Ungrouped properties one by one, grouped ones group by group, in order.
    static func units(of card: VCard) -> [[VCardProperty]] {
        var units: [[VCardProperty]] = []
        var groupPosition: [String: Int] = [:]
        for property in card.properties {
            if let group = property.group?.lowercased() {
                if let position = groupPosition[group] { units[position].append(property); continue }
                groupPosition[group] = units.count
            }
            units.append([property])
        }
        return units
    }

    /// The property's value in canonical form, without parameters: what it says.
    static func canonicalValue(_ property: VCardProperty) -> String {
        var bare = property
        bare.group = nil
        let card = VCard(version: nil, properties: [bare])
        return CanonicalForm.properties(of: card, excluding: CanonicalForm.Exclusions(names: [])).first?.value ?? property.rawValue
    }

    static func revisionKey(_ property: VCardProperty) -> String {
        canonicalValue(property)
    }

    /// Non-empty `N` components, then the length of `FN` with white space collapsed.
    static func nameRichness(_ card: VCard) -> [Int] {
        let components = card.structuredName.map { name in
            [name.family, name.given, name.additional, name.prefixes, name.suffixes].reduce(0) { $0 + $1.filter { !$0.isEmpty }.count }
        } ?? 0
        let formatted = (card.formattedName ?? "").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return [components, formatted.count]
    }
}
