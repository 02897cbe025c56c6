/// How a sync settles a contact changed on both sides since the last sync.
///
/// Whatever the policy, the losing version is never lost: it stays in the journal (a `conflict`
/// event for a remote version, the contact's own history for a local one), it is reported, and
/// `cardsync restore` brings it back.
///
/// The time of a version is when it was *made*, not when a sync noticed it: an edit another
/// program made in the folder is dated by its file's modification time (no earlier than the
/// previous scan, no later than the scan that found it), an edit made through cardsync by the
/// time it was made, and a version from the server by the `edited` time its document carries
/// (documents without it: their `updated` time). The time travels with the document, so both
/// sides compare the same two times and settle alike.
public enum ConflictPolicy: String, Sendable, Hashable, CaseIterable {
    /// The newer version wins. An edit wins over a deletion made without it (the contact comes
    /// back on the side that deleted it; a book that held the edit and then deleted the contact
    /// deleted it on purpose); between two edits, the cards' `REV` decides when they differ, else the
    /// version made later; when neither tells, the server's. The default.
    case newest
    /// This address book's version wins, also a deletion over an edit.
    case local
    /// The server's version wins, also a deletion over an edit.
    case remote
    /// As ``newest``, and the losing edit is kept as a new contact (with a new UID). Between an
    /// edit and a deletion, the edit is kept.
    case keepBoth = "keep-both"
}
