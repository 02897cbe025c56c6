public import VCardKit

/// The property-level differences between two versions of a contact.
///
/// Without exact comparison, both cards are compared in their ``CanonicalForm``: folding, line
/// ends, case of names, parameter order and quoting, the 3.0 and 4.0 spellings of the same data,
/// property order and group labels make no difference, and `VERSION`, `UID`, `REV` and `PRODID`
/// are not compared. With exact comparison, properties are compared as written (name case,
/// parameters in their order, raw value, group label), every property counts, and when the
/// properties are the same but the text is not (order, folding, line ends) one `form` change
/// says so.
///
/// ```swift
/// let changes = PropertyDiff(ignoring: ["NOTE"]).changes(from: old, to: new)
/// ```
public struct PropertyDiff: Sendable {
    /// Upper-case names of properties left out of the comparison.
    public var ignoredProperties: Set<String>
    /// Whether differences of form count.
    public var isExact: Bool

    /// Creates a comparison.
    /// - Parameters:
    ///   - ignoring: property names to leave out (any case).
    ///   - exact: whether differences of form count.
    public init(ignoring: Set<String> = [], exact: Bool = false) {
        ignoredProperties = Set(ignoring.map { $0.uppercased() })
        isExact = exact
    }

    /// One property as compared: name, parameters and value.
    struct Item: Hashable, Comparable {
        var name: String
        var parameters: [String]
        var value: String

        static func < (lhs: Self, rhs: Self) -> Bool {
            (lhs.name, lhs.value, lhs.parameters.joined(separator: ";")) < (rhs.name, rhs.value, rhs.parameters.joined(separator: ";"))
        }
    }

    /// The differences from `old` to `new`, ordered by property name; empty when they say the same.
    public func changes(from old: VCard, to new: VCard) -> [PropertyChange] {
        var changes = Self.compare(items(of: old), items(of: new))
        if isExact && changes.isEmpty {
            let writer = VCardWriter()
            if writer.bytes(for: old) != writer.bytes(for: new) {
                changes.append(PropertyChange(kind: .form, property: "*", oldValue: nil, newValue: nil))
            }
        }
        return changes
    }

    func items(of card: VCard) -> [Item] {
        if isExact {
            var items: [Item] = []
            if let version = card.sourceVersion ?? card.version { items.append(Item(name: "VERSION", parameters: [], value: version.rawValue)) }
            for property in card.properties where !ignoredProperties.contains(property.name.uppercased()) {
                let name = (property.group.map { $0 + "." } ?? "") + property.name
                let parameters = property.parameters.map { ($0.isNameless ? "" : $0.name + "=") + $0.values.joined(separator: ",") }
                items.append(Item(name: name, parameters: parameters, value: property.rawValue))
            }
            return items.sorted()
        }
        let exclusions = CanonicalForm.Exclusions(names: CanonicalForm.Exclusions.volatile.names.union(ignoredProperties))
        return CanonicalForm.properties(of: card, excluding: exclusions)
            .map { Item(name: $0.name, parameters: $0.parameters, value: $0.value) }
            .sorted()
    }

    /// Pairs what is left after removing equal items: the same value with other parameters
    /// first, then values of the same property in order; the rest are additions and removals.
    static func compare(_ old: [Item], _ new: [Item]) -> [PropertyChange] {
        var remainingNew: [String: [Item]] = [:]
        for item in new { remainingNew[item.name, default: []].append(item) }
        var remainingOld: [String: [Item]] = [:]
        for item in old {
            if var candidates = remainingNew[item.name], let position = candidates.firstIndex(of: item) {
                candidates.remove(at: position)
                remainingNew[item.name] = candidates
            } else {
                remainingOld[item.name, default: []].append(item)
            }
        }
        var changes: [PropertyChange] = []
        for name in Set(remainingOld.keys).union(remainingNew.keys).sorted() {
            var olds = remainingOld[name] ?? []
            var news = remainingNew[name] ?? []
            var index = 0
            while index < olds.count {
                if let position = news.firstIndex(where: { $0.value == olds[index].value }) {
                    changes.append(PropertyChange(kind: .parameters, property: name, oldValue: olds[index].value, newValue: news[position].value,
                                                  oldParameters: olds[index].parameters, newParameters: news[position].parameters))
                    news.remove(at: position)
                    olds.remove(at: index)
                } else {
                    index += 1
                }
            }
            let paired = min(olds.count, news.count)
            for position in 0..<paired {
                changes.append(PropertyChange(kind: .changed, property: name, oldValue: olds[position].value, newValue: news[position].value,
                                              oldParameters: olds[position].parameters, newParameters: news[position].parameters))
            }
            for item in olds.dropFirst(paired) {
                changes.append(PropertyChange(kind: .removed, property: name, oldValue: item.value, oldParameters: item.parameters))
            }
            for item in news.dropFirst(paired) {
                changes.append(PropertyChange(kind: .added, property: name, newValue: item.value, newParameters: item.parameters))
            }
        }
        return changes
    }
}
