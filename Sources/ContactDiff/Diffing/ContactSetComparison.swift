/// Compares two contact sets: which contacts were added, removed, changed or left alone, and for
/// each changed one, what changed property by property.
///
/// ```swift
/// let old = try ContactSetReader.read(path: "before.vcf")
/// let new = try ContactSetReader.read(path: "after")
/// let difference = ContactSetComparison().compare(old, new)
/// print(difference.summary)   // DiffSummary(added: 3, removed: 1, changed: 12, unchanged: 9984)
/// ```
///
/// Cards whose text is byte for byte the same on both sides are paired without being parsed;
/// the others are parsed on every core, paired by ``ContactMatcher`` and compared by
/// ``PropertyDiff``.
public struct ContactSetComparison: Sendable {
    /// How far matching goes.
    public var strategy: MatchStrategy
    /// The property comparison (ignored properties, exact or not).
    public var propertyDiff: PropertyDiff
    /// The matcher.
    public var matcher: ContactMatcher

    /// Creates a comparison.
    /// - Parameters:
    ///   - strategy: UID only, then content, then identity (the default).
    ///   - ignoring: property names left out.
    ///   - exact: whether differences of form count.
    public init(strategy: MatchStrategy = .fuzzy, ignoring: Set<String> = [], exact: Bool = false) {
        self.strategy = strategy
        propertyDiff = PropertyDiff(ignoring: ignoring, exact: exact)
        matcher = ContactMatcher(strategy: strategy)
    }

    /// Compares `old` with `new`.
    /// - Parameters:
    ///   - old: the old contacts.
    ///   - new: the new contacts.
    ///   - progress: called with the cards parsed (those not the same text on both sides; step
    ///     ``ContactDiffProgress/Step/parsing``), then with the paired contacts compared (step
    ///     ``ContactDiffProgress/Step/comparing``), before the first and after each batch.
    public func compare(_ old: ContactSet, _ new: ContactSet,
                        progress: (@Sendable (ContactDiffProgress) -> Void)? = nil) -> ContactSetDifference {
        // Cards with the same text on both sides are the same, unchanged contact.
        var identical = 0
        var byText: [Int: [Int]] = [:]
        for (index, item) in old.items.enumerated() {
            if let text = item.text { byText[Self.key(of: text), default: []].append(index) }
        }
        var oldTaken = [Bool](repeating: false, count: old.items.count)
        var newRest: [ContactSet.Item] = []
        for item in new.items {
            if let text = item.text, let candidates = byText[Self.key(of: text)],
               let match = candidates.first(where: { !oldTaken[$0] && old.items[$0].text == text }) {
                oldTaken[match] = true
                identical += 1
            } else {
                newRest.append(item)
            }
        }
        let oldRest = old.items.indices.filter { !oldTaken[$0] }.map { old.items[$0] }
        // One parsing step over both sides.
        func parsing(after parsed: Int) -> (@Sendable (ContactDiffProgress) -> Void)? {
            guard let progress else { return nil }
            let total = oldRest.count + newRest.count
            return { step in progress(ContactDiffProgress(step: .parsing, done: parsed + step.done, total: total)) }
        }
        let oldEntries = ContactSet.parse(oldRest, progress: parsing(after: 0))
        let newEntries = ContactSet.parse(newRest, progress: parsing(after: oldRest.count))
        var difference = compare(oldEntries, newEntries, progress: progress)
        difference.summary.unchanged += identical
        return difference
    }

    /// A hash of a card's bytes, fed to the hasher as one block (not byte by byte).
    static func key(of text: ArraySlice<UInt8>) -> Int {
        var hasher = Hasher()
        text.withUnsafeBytes { hasher.combine(bytes: $0) }
        return hasher.finalize()
    }

    /// Compares parsed entries.
    /// - Parameters:
    ///   - old: the old contacts.
    ///   - new: the new contacts.
    ///   - progress: called with the paired contacts compared (step ``ContactDiffProgress/Step/comparing``)
    ///     before the first and after each batch of pairs.
    public func compare(_ old: [ContactEntry], _ new: [ContactEntry],
                        progress: (@Sendable (ContactDiffProgress) -> Void)? = nil) -> ContactSetDifference {
        let pairs = matcher.match(old, new)
        var summary = DiffSummary()
        var contacts: [ContactDifference] = []
        var oldPaired = [Bool](repeating: false, count: old.count)
        var newPaired = [Bool](repeating: false, count: new.count)
        let diff = propertyDiff
        let reported = progress.map { progress in
            { [count = pairs.count] (done: Int) in progress(ContactDiffProgress(step: .comparing, done: done, total: count)) }
        }
        let compared = Parallel.map(pairs, minimumPerWorker: 128, progress: reported) { pair in
            diff.changes(from: old[pair.old].card, to: new[pair.new].card)
        }
        for (pair, changes) in zip(pairs, compared) {
            oldPaired[pair.old] = true
            newPaired[pair.new] = true
            let a = old[pair.old]
            let b = new[pair.new]
            let status: ContactDifference.Status = changes.isEmpty ? .unchanged : .changed
            if changes.isEmpty { summary.unchanged += 1 } else { summary.changed += 1 }
            guard status == .changed || pair.kind != .uid else { continue }
            contacts.append(ContactDifference(status: status, match: pair.kind, name: b.displayName, oldUID: a.uid, newUID: b.uid,
                                              oldOrigin: a.origin, newOrigin: b.origin, changes: changes))
        }
        for (index, entry) in old.enumerated() where !oldPaired[index] {
            summary.removed += 1
            contacts.append(ContactDifference(status: .removed, match: nil, name: entry.displayName, oldUID: entry.uid, newUID: nil,
                                              oldOrigin: entry.origin, newOrigin: nil))
        }
        for (index, entry) in new.enumerated() where !newPaired[index] {
            summary.added += 1
            contacts.append(ContactDifference(status: .added, match: nil, name: entry.displayName, oldUID: nil, newUID: entry.uid,
                                              oldOrigin: nil, newOrigin: entry.origin))
        }
        contacts.sort { ($0.name, $0.oldUID ?? "", $0.newUID ?? "") < ($1.name, $1.oldUID ?? "", $1.newUID ?? "") }
        return ContactSetDifference(summary: summary, contacts: contacts)
    }
}
