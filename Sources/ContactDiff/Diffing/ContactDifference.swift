/// How one contact differs between the old and the new set.
public struct ContactDifference: Sendable, Hashable, Codable {
    /// What happened to the contact.
    public enum Status: String, Sendable, Hashable, Codable, CaseIterable {
        /// Only in the new set.
        case added
        /// Only in the old set.
        case removed
        /// In both, with different content.
        case changed
        /// In both, saying the same.
        case unchanged
    }

    /// What happened to the contact.
    public var status: Status
    /// How the old and new cards were matched; `nil` for added and removed contacts.
    public var match: MatchKind?
    /// The contact's name (the new card's, when there is one).
    public var name: String
    /// The old card's UID.
    public var oldUID: String?
    /// The new card's UID.
    public var newUID: String?
    /// Where the old card was read (`file:line`).
    public var oldOrigin: String?
    /// Where the new card was read.
    public var newOrigin: String?
    /// The property-level differences, for a changed contact.
    public var changes: [PropertyChange]

    /// Creates a difference.
    public init(status: Status, match: MatchKind?, name: String, oldUID: String?, newUID: String?,
                oldOrigin: String?, newOrigin: String?, changes: [PropertyChange] = []) {
        self.status = status
        self.match = match
        self.name = name
        self.oldUID = oldUID
        self.newUID = newUID
        self.oldOrigin = oldOrigin
        self.newOrigin = newOrigin
        self.changes = changes
    }
}

/// The counts of contacts added, removed, changed and unchanged.
public struct DiffSummary: Sendable, Hashable, Codable {
    /// Contacts only in the new set.
    public var added = 0
    /// Contacts only in the old set.
    public var removed = 0
    /// Contacts in both, with different content.
    public var changed = 0
    /// Contacts in both, saying the same.
    public var unchanged = 0

    /// Creates a summary.
    public init(added: Int = 0, removed: Int = 0, changed: Int = 0, unchanged: Int = 0) {
        self.added = added
        self.removed = removed
        self.changed = changed
        self.unchanged = unchanged
    }
}

/// The result of comparing two contact sets.
public struct ContactSetDifference: Sendable, Hashable {
    /// The counts.
    public var summary: DiffSummary
    /// Every added, removed and changed contact, and the unchanged ones whose cards were paired
    /// other than by UID (a new UID for the same content, for example); sorted by name.
    public var contacts: [ContactDifference]

    /// Whether the sets differ: something was added, removed or changed.
    public var hasDifferences: Bool { summary.added + summary.removed + summary.changed > 0 }
}
