public import ContactStore
public import VCardKit

/// A merge worked out (and, unless it was a dry run, carried out) in an address book.
public struct MergeOutcome: Sendable {
    /// The UID of the contact kept.
    public var kept: String
    /// The UIDs of the contacts merged into it.
    public var absorbed: [String]
    /// The merged card.
    public var card: VCard
    /// What changed in the kept contact (``PropertyDiff``, not exact).
    public var changes: [PropertyChange]
    /// The journal events: a `merge`, then one `delete` per absorbed contact; empty for a dry run.
    public var events: [JournalEvent]
}

extension AddressBook {
    /// Merges contacts of this book into the first one (``ContactMerger``) and records it in the
    /// journal; `cardsync restore DIR UID` (``undoMerge(uid:)``) undoes it.
    ///
    /// ```swift
    /// let outcome = try await book.mergeContacts(["ada", "ada-2"], dryRun: true)
    /// for change in outcome.changes { print(change.kind, change.property) }
    /// ```
    /// - Parameters:
    ///   - uids: the contact to keep, then those to merge into it.
    ///   - dryRun: work the merge out without changing anything.
    ///   - merger: how cards are merged.
    /// - Throws: ``ContactStoreError`` — `notFound` for an unknown UID, `unsupported` for fewer
    ///   than two distinct contacts or one that shares its file.
    public func mergeContacts(_ uids: [String], dryRun: Bool = false,
                              merger: ContactMerger = ContactMerger()) async throws(ContactStoreError) -> MergeOutcome {
        guard uids.count >= 2, Set(uids).count == uids.count else {
            throw ContactStoreError(code: .unsupported, message: "name at least two different contacts to merge")
        }
        var cards: [VCard] = []
        for uid in uids {
            guard let stored = contact(uid: uid) else {
                throw ContactStoreError(code: .notFound, message: "no live contact has UID \(uid); `cardsync list \(directory)` shows them")
            }
            cards.append(stored.card)
        }
        let merged = merger.merge(cards)
        let changes = PropertyDiff().changes(from: cards[0], to: merged)
        var outcome = MergeOutcome(kept: uids[0], absorbed: Array(uids.dropFirst()), card: merged, changes: changes, events: [])
        if !dryRun {
            outcome.events = try await recordMerge(keeping: uids[0], card: merged, absorbing: outcome.absorbed)
        }
        return outcome
    }
}
