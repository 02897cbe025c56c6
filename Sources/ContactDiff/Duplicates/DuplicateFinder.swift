import VCardKit

/// Finds contacts that are probably the same person.
///
/// ```swift
/// let entries = try ContactSetReader.read(path: "~/contacts").parsed(selecting: DuplicateFinder.propertiesRead)
/// for cluster in DuplicateFinder().clusters(in: entries) {
///     print(cluster.members.map { entries[$0].displayName }, cluster.confidence, cluster.score)
/// }
/// ```
///
/// Two contacts are linked when they have the same content hash (**exact**), or share an e-mail
/// address or a telephone number (numbers compared normalised) and have the same normalised name
/// (**strong**) or similar names (**fuzzy**, ``NameNormalizer/similarity(_:_:)``, which is
/// Jaro-Winkler word by word). A shared name alone never links two contacts: people with common
/// names are not the same person. Evidence against lowers the score
/// (``ContactIdentity/disagreements(with:)``): different birthdays, and names that state
/// different generations (`Jr.`/`Sr.`), rule a link out; a generation stated by one name only
/// multiplies the score by ``oneSidedGenerationFactor`` (a father and son often share a home
/// number); telephone numbers on both sides with none in common multiply it by
/// ``noSharedPhoneFactor``, e-mail addresses with none in common by ``noSharedEmailFactor``. Links at or above
/// ``threshold`` join contacts into clusters.
///
/// Only contacts that share a blocking key are compared — the content hash, an e-mail address,
/// the last seven digits of a telephone number — never all pairs. A key shared by more than
/// ``maximumBlockSize`` contacts (an office switchboard, a shared family address) is not used
/// for fuzzy or strong links: it says nothing about who is who.
public struct DuplicateFinder: Sendable {
    /// The factor applied to a link's score when both contacts have telephone numbers and none
    /// in common.
    public static let noSharedPhoneFactor = 0.9
    /// The factor applied when both contacts have e-mail addresses and none in common.
    public static let noSharedEmailFactor = 0.95
    /// The factor applied when only one of the two names states a generation (`John Smith` and
    /// `John Smith Jr.`): it keeps such a link below the default threshold, so that it is shown
    /// at a lower one but never merged by `duplicates --merge`.
    public static let oneSidedGenerationFactor = 0.9
    /// The default ``threshold``.
    public static let defaultThreshold = 0.9
    /// The properties ``clusters(in:)`` reads from a card (the content hash aside, which
    /// ``ContactEntry/hash`` takes from the complete card): entries read with
    /// ``ContactSet/parsed(selecting:)`` and these names give the same clusters as whole cards.
    public static let propertiesRead: Set<String> = ["FN", "N", "ORG", "EMAIL", "TEL", "BDAY", "UID"]
    /// The lowest score of a link that joins two contacts.
    public var threshold: Double
    /// Blocks larger than this are not searched for strong and fuzzy links.
    public var maximumBlockSize: Int
    /// How telephone numbers are compared.
    public var phoneNormalizer: PhoneNormalizer

    /// Creates a finder.
    public init(threshold: Double = DuplicateFinder.defaultThreshold, maximumBlockSize: Int = 64,
                phoneNormalizer: PhoneNormalizer = PhoneNormalizer()) {
        self.threshold = threshold
        self.maximumBlockSize = maximumBlockSize
        self.phoneNormalizer = phoneNormalizer
    }

    /// The clusters of two or more contacts, largest score first (then by first member).
    /// - Parameters:
    ///   - entries: the contacts.
    ///   - progress: called with the candidate pairs scored (step ``ContactDiffProgress/Step/comparing``)
    ///     before the first and after each batch of pairs.
    public func clusters(in entries: [ContactEntry],
                         progress: (@Sendable (ContactDiffProgress) -> Void)? = nil) -> [DuplicateCluster] {
        let normalizer = phoneNormalizer
        let identities = Parallel.map(entries, minimumPerWorker: 256) { ContactIdentity(of: $0.card, phoneNormalizer: normalizer) }
        // Exact: chain the members of each hash group. Cards with the same content have the
        // same name, e-mail addresses and numbers, so only cards that share those are hashed.
        // (Every FN counts, in any order: a card with alternative names may list them in another order.)
        let exactKeys = Parallel.map(Array(entries.indices), minimumPerWorker: 256) { index in
            let identity = identities[index]
            let formattedNames = entries[index].card.all("FN")
            let names = formattedNames.count <= 1 ? [identity.nameKey] : formattedNames.map { NameNormalizer.key(of: $0.textValue) }.sorted()
            return names.joined(separator: "/") + "|" + identity.emails.sorted().joined(separator: ",") + "|"
                + identity.phones.map(\.digits).sorted().joined(separator: ",")
        }
        var byIdentity: [String: [Int]] = [:]
        for (index, key) in exactKeys.enumerated() { byIdentity[key, default: []].append(index) }
        let hashed = byIdentity.values.filter { $0.count > 1 }.flatMap { $0 }
        let hashValues = Parallel.map(hashed, minimumPerWorker: 64) { entries[$0].hash }
        var hashes = [ContentHash?](repeating: nil, count: entries.count)
        var byHash: [ContentHash: [Int]] = [:]
        for (index, hash) in zip(hashed, hashValues) {
            hashes[index] = hash
            byHash[hash, default: []].append(index)
        }
        var links: [DuplicateLink] = []
        for group in byHash.values where group.count > 1 {
            let members = group.sorted()
            for (first, second) in zip(members, members.dropFirst()) {
                links.append(DuplicateLink(first: first, second: second, confidence: .exact, score: 1, reasons: ["same content"]))
            }
        }
        // Strong and fuzzy: pairs within blocks of a shared detail.
        let keys = Parallel.map(identities, minimumPerWorker: 1024) { ContactMatcher.blockingKeys($0) }
        var blocks: [String: [Int]] = [:]
        for (index, identityKeys) in keys.enumerated() {
            for key in identityKeys { blocks[key, default: []].append(index) }
        }
        // Pairs packed in one integer (first << 32 | second), sorted and made unique: a pair
        // may share several blocks.
        var packed: [UInt64] = []
        for members in blocks.values where members.count > 1 && members.count <= maximumBlockSize {
            for (position, first) in members.enumerated() {
                for second in members[(position + 1)...] where hashes[first] == nil || hashes[first] != hashes[second] {
                    packed.append(UInt64(min(first, second)) << 32 | UInt64(max(first, second)))
                }
            }
        }
        packed.sort()
        var candidates: [Pair] = []
        candidates.reserveCapacity(packed.count)
        var previous: UInt64?
        for value in packed where value != previous {
            candidates.append(Pair(Int(value >> 32), Int(value & 0xFFFF_FFFF)))
            previous = value
        }
        let threshold = self.threshold
        let reported = progress.map { progress in
            { [count = candidates.count] (done: Int) in progress(ContactDiffProgress(step: .comparing, done: done, total: count)) }
        }
        let scored = Parallel.map(candidates, minimumPerWorker: 256, progress: reported) { pair in
            link(pair.first, identities[pair.first], pair.second, identities[pair.second], atLeast: threshold)
        }
        links += scored.compactMap { $0 }
        return Self.clusters(from: links, count: entries.count)
    }

    /// The link between two contacts that share a detail, or `nil` when they have no name or
    /// its score is below `minimum` (checked before its reasons are written: most candidate
    /// pairs are not links).
    func link(_ first: Int, _ a: ContactIdentity, _ second: Int, _ b: ContactIdentity, atLeast minimum: Double = 0) -> DuplicateLink? {
        guard !a.nameKey.isEmpty, !b.nameKey.isEmpty else { return nil }
        if let birthday = a.birthday, let other = b.birthday, birthday != other { return nil }
        let oneSidedGeneration = a.generation != b.generation
        if oneSidedGeneration && a.generation != nil && b.generation != nil { return nil }
        // Counted without building sets: most candidate pairs end here or at the score.
        let sharedEmailCount = a.emails.count <= b.emails.count ? a.emails.reduce(0) { $0 + (b.emails.contains($1) ? 1 : 0) }
            : b.emails.reduce(0) { $0 + (a.emails.contains($1) ? 1 : 0) }
        let sharedPhoneCount = a.phones.reduce(0) { count, phone in count + (b.phones.contains { $0.isSameNumber(as: phone) } ? 1 : 0) }
        let shared = sharedEmailCount + sharedPhoneCount
        guard shared > 0 else { return nil }
        let noSharedPhone = !a.phones.isEmpty && !b.phones.isEmpty && sharedPhoneCount == 0
        let noSharedEmail = !a.emails.isEmpty && !b.emails.isEmpty && sharedEmailCount == 0
        var penalty = 1.0
        if noSharedPhone { penalty *= Self.noSharedPhoneFactor }
        if noSharedEmail { penalty *= Self.noSharedEmailFactor }
        if oneSidedGeneration { penalty *= Self.oneSidedGenerationFactor }
        let sameName = a.nameKey == b.nameKey
        let detailFactor = shared >= 2 ? 1 : 0.97
        // The score is at most the name's similarity times the factors: skip the similarity
        // when even a perfect one would not reach the minimum.
        if !sameName && detailFactor * penalty < minimum { return nil }
        let similarity = sameName ? 1 : NameNormalizer.similarity(a.nameWords, b.nameWords)
        let score = sameName ? (shared >= 2 ? 0.99 : 0.97) * penalty : similarity * detailFactor * penalty
        guard score >= minimum else { return nil }
        var details = a.sharedEmails(with: b).sorted().map { "e-mail " + $0 } + a.sharedPhones(with: b).map { "phone " + $0.description }
        if noSharedPhone { details.append("but no telephone number in common") }
        if noSharedEmail { details.append("but no e-mail address in common") }
        if oneSidedGeneration { details.append("but only one name states a generation (\(a.generation ?? b.generation ?? ""))") }
        if sameName {
            // A generation on one side only leaves it a guess: never a link `--merge` acts on.
            return DuplicateLink(first: first, second: second, confidence: oneSidedGeneration ? .fuzzy : .strong, score: score,
                                 reasons: ["same name"] + details)
        }
        let rounded = (similarity * 100).rounded() / 100
        return DuplicateLink(first: first, second: second, confidence: .fuzzy, score: score,
                             reasons: ["similar names (\(rounded))"] + details)
    }

    /// Joins linked contacts (union-find) and keeps, for each cluster, the links that joined it.
    static func clusters(from links: [DuplicateLink], count: Int) -> [DuplicateCluster] {
        var parent = Array(0..<count)
        func root(_ index: Int) -> Int {
            var node = index
            while parent[node] != node {
                parent[node] = parent[parent[node]]
                node = parent[node]
            }
            return node
        }
        var joining: [DuplicateLink] = []
        for link in links.sorted(by: { ($0.score, $1.first, $1.second) > ($1.score, $0.first, $0.second) }) {
            let a = root(link.first)
            let b = root(link.second)
            guard a != b else { continue }
            parent[max(a, b)] = min(a, b)
            joining.append(link)
        }
        var clusters: [Int: DuplicateCluster] = [:]
        for link in joining {
            let key = root(link.first)
            clusters[key, default: DuplicateCluster(members: [], links: [])].links.append(link)
        }
        for key in clusters.keys {
            var members = Set<Int>()
            for link in clusters[key]!.links { members.insert(link.first); members.insert(link.second) }
            clusters[key]!.members = members.sorted()
        }
        return clusters.values.sorted { ($0.score, $1.members[0]) > ($1.score, $0.members[0]) }
    }

    struct Pair: Hashable {
        var first: Int
        var second: Int
        init(_ a: Int, _ b: Int) { first = min(a, b); second = max(a, b) }
    }
}
