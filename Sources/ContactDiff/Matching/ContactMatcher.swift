import VCardKit

/// Pairs the contacts of two sets: first by UID, then by content hash, then (with
/// ``MatchStrategy/fuzzy``) by identity. Each contact is in at most one pair.
///
/// ```swift
/// let pairs = ContactMatcher(strategy: .fuzzy).match(oldEntries, newEntries)
/// for pair in pairs { print(oldEntries[pair.old].displayName, pair.kind) }
/// ```
///
/// Identity matching never looks at all pairs: candidates come from blocks of contacts sharing
/// a normalised name, an e-mail address or the last digits of a telephone number.
public struct ContactMatcher: Sendable {
    /// One pair: positions in the old and new entries, and how they matched.
    public struct Pair: Sendable, Hashable {
        /// The position in the old entries.
        public var old: Int
        /// The position in the new entries.
        public var new: Int
        /// How the pair was matched.
        public var kind: MatchKind
    }

    /// How far matching goes.
    public var strategy: MatchStrategy
    /// The smallest name similarity (``NameNormalizer/similarity(_:_:)``) for two contacts that
    /// share an e-mail address but whose names differ to be the same person.
    public var minimumNameSimilarity: Double
    /// How telephone numbers are compared.
    public var phoneNormalizer: PhoneNormalizer

    /// Creates a matcher.
    public init(strategy: MatchStrategy = .fuzzy, minimumNameSimilarity: Double = 0.9,
                phoneNormalizer: PhoneNormalizer = PhoneNormalizer()) {
        self.strategy = strategy
        self.minimumNameSimilarity = minimumNameSimilarity
        self.phoneNormalizer = phoneNormalizer
    }

    /// The pairs of `old` and `new`, sorted by old position.
    public func match(_ old: [ContactEntry], _ new: [ContactEntry]) -> [Pair] {
        var pairs: [Pair] = []
        var newTaken = [Bool](repeating: false, count: new.count)
        var oldTaken = [Bool](repeating: false, count: old.count)

        // 1. UID.
        var byUID: [String: [Int]] = [:]
        for (index, entry) in new.enumerated() { if let uid = entry.uid { byUID[uid, default: []].append(index) } }
        for (index, entry) in old.enumerated() {
            guard let uid = entry.uid, let candidates = byUID[uid], let free = candidates.first(where: { !newTaken[$0] }) else { continue }
            newTaken[free] = true
            oldTaken[index] = true
            pairs.append(Pair(old: index, new: free, kind: .uid))
        }
        // 2. Content hash.
        if strategy != .uid {
            var byHash: [ContentHash: [Int]] = [:]
            for (index, entry) in new.enumerated() where !newTaken[index] { byHash[entry.hash, default: []].append(index) }
            for (index, entry) in old.enumerated() where !oldTaken[index] {
                guard let candidates = byHash[entry.hash], let free = candidates.first(where: { !newTaken[$0] }) else { continue }
                newTaken[free] = true
                oldTaken[index] = true
                pairs.append(Pair(old: index, new: free, kind: .content))
            }
        }
        // 3. Identity.
        if strategy == .fuzzy {
            let remainingNew = new.indices.filter { !newTaken[$0] }
            let remainingOld = old.indices.filter { !oldTaken[$0] }
            if !remainingNew.isEmpty && !remainingOld.isEmpty {
                pairs += matchIdentities(old: old, oldIndices: remainingOld, new: new, newIndices: remainingNew)
            }
        }
        return pairs.sorted { $0.old < $1.old }
    }

    private func matchIdentities(old: [ContactEntry], oldIndices: [Int], new: [ContactEntry], newIndices: [Int]) -> [Pair] {
        let normalizer = phoneNormalizer
        let newIdentities = Parallel.map(newIndices, minimumPerWorker: 256) { ContactIdentity(of: new[$0].card, phoneNormalizer: normalizer) }
        let oldIdentities = Parallel.map(oldIndices, minimumPerWorker: 256) { ContactIdentity(of: old[$0].card, phoneNormalizer: normalizer) }
        var blocks: [String: [Int]] = [:]
        for (position, identity) in newIdentities.enumerated() {
            for key in Self.blockingKeys(identity) { blocks[key, default: []].append(position) }
        }
        // Score every candidate pair, then take the best pairs first.
        var candidates: [(score: Double, old: Int, new: Int)] = []
        for (oldPosition, identity) in oldIdentities.enumerated() {
            var seen: Set<Int> = []
            for key in Self.blockingKeys(identity) {
                for newPosition in blocks[key] ?? [] where seen.insert(newPosition).inserted {
                    if let score = identityScore(identity, newIdentities[newPosition]) {
                        candidates.append((score, oldPosition, newPosition))
                    }
                }
            }
        }
        candidates.sort { ($0.score, $1.old, $1.new) > ($1.score, $0.old, $0.new) }
        var oldUsed: Set<Int> = []
        var newUsed: Set<Int> = []
        var pairs: [Pair] = []
        for candidate in candidates where !oldUsed.contains(candidate.old) && !newUsed.contains(candidate.new) {
            oldUsed.insert(candidate.old)
            newUsed.insert(candidate.new)
            pairs.append(Pair(old: oldIndices[candidate.old], new: newIndices[candidate.new], kind: .identity))
        }
        return pairs
    }

    /// Whether two identities are the same person, and how sure: `nil` when not.
    func identityScore(_ a: ContactIdentity, _ b: ContactIdentity) -> Double? {
        guard !a.nameKey.isEmpty, !b.nameKey.isEmpty else { return nil }
        let sharedEmails = a.sharedEmails(with: b).count
        let sharedPhones = a.sharedPhones(with: b).count
        guard sharedEmails + sharedPhones > 0, a.disagreements(with: b).isEmpty else { return nil }
        if a.nameKey == b.nameKey { return 2 + Double(sharedEmails + sharedPhones) }
        guard sharedEmails > 0 else { return nil }
        let similarity = NameNormalizer.similarity(a.nameWords, b.nameWords)
        return similarity >= minimumNameSimilarity ? similarity : nil
    }

    static func blockingKeys(_ identity: ContactIdentity) -> [String] {
        identity.emails.map { "e:" + $0 } + identity.phones.map { "p:" + $0.blockingKey }
    }
}
