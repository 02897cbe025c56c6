/// How far ``ContactMatcher`` goes to pair the contacts of two sets.
public enum MatchStrategy: String, Sendable, Hashable, CaseIterable, Codable {
    /// Only cards with the same UID are the same contact.
    case uid
    /// Then cards with the same content hash.
    case content
    /// Then cards of the same person: the same normalised name and a shared e-mail address or
    /// telephone number, or a shared e-mail address and a similar name (the default).
    case fuzzy
}

/// How a pair of contacts was matched.
public enum MatchKind: String, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The same UID.
    case uid
    /// The same content hash (the UIDs differ, or one side has none).
    case content
    /// The same person by name, e-mail address or telephone number.
    case identity

    public var description: String { rawValue }
}
