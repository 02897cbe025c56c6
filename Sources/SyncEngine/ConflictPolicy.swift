/// How a sync settles a contact changed on both sides since the last sync.
///
/// Whatever the policy, the losing version is never lost: it stays in the journal (a `conflict`
/// event for a remote version, the contact's own history for a local one), it is reported, and
/// `cardsync restore` brings it back.
public enum ConflictPolicy: String, Sendable, Hashable, CaseIterable {
    /// The newer version wins: the cards' `REV` when both have one, else the time each side
    /// changed (the journal's time here, the document's `updated` there). The default.
    case newest
    /// This address book's version wins.
    case local
    /// The server's version wins.
    case remote
    /// The newer version wins, and the other is kept as a new contact (with a new UID).
    case keepBoth = "keep-both"
}
