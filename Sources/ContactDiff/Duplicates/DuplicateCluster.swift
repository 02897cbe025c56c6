/// How sure a duplicate link is.
public enum DuplicateConfidence: String, Sendable, Hashable, Codable, Comparable, CaseIterable {
    /// Similar names and a shared e-mail address or telephone number.
    case fuzzy
    /// The same normalised name and a shared e-mail address or telephone number.
    case strong
    /// The same content hash.
    case exact

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// Why two contacts are probably the same person.
public struct DuplicateLink: Sendable, Hashable, Codable {
    /// The position of one contact in the entries searched.
    public var first: Int
    /// The position of the other.
    public var second: Int
    /// How sure the link is.
    public var confidence: DuplicateConfidence
    /// The score, in `0...1`: 1 for the same content, at least 0.97 for a strong link, the name
    /// similarity (lowered by 3% when only one detail is shared) for a fuzzy one.
    public var score: Double
    /// What the two contacts have in common, for people: `same content`, `same name`,
    /// `similar names (0.95)`, `e-mail ada@example.com`, `phone +13125550142`.
    public var reasons: [String]
}

/// Contacts that are probably one person, and why.
public struct DuplicateCluster: Sendable, Hashable {
    /// The positions of the contacts in the entries searched, in order.
    public var members: [Int]
    /// The links that joined them (a spanning set: each member is linked to the cluster by at
    /// least one).
    public var links: [DuplicateLink]
    /// The weakest link's confidence.
    public var confidence: DuplicateConfidence { links.map(\.confidence).min() ?? .exact }
    /// The weakest link's score.
    public var score: Double { links.map(\.score).min() ?? 1 }
}
