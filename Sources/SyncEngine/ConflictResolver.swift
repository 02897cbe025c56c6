import VCardKit

/// One side of a contact changed on both sides: what the policy compares.
struct ConflictSide: Sendable {
    /// The card's `REV` as written, when it has one.
    var revision: String?
    /// The digits of ``revision`` (so `20261122T101010Z` and `2026-11-22T10:10:10Z` compare equal).
    var revisionStamp: String?
    /// When this side's version (or deletion) was made, in milliseconds since 1970, when known.
    var edited: Int64?
    /// Whether this side deleted the contact.
    var isDeletion: Bool
    /// For the server's version: whether this book held it before its own change (the server
    /// has this book's earlier version, e.g. a push whose answer was lost). A deletion made here
    /// after holding it is no conflict with it.
    var wasHeldHere = false
    /// For this book's version against a deletion on the server: whether it is the very version
    /// the server deleted (this book made no edit of its own; e.g. a pull cut short after it
    /// wrote the file and before it recorded it). The deletion then wins: it is no conflict.
    var isTheVersionDeletedThere = false

    init(card: VCard?, edited: Int64?) {
        revision = card?.first("REV")?.textValue
        revisionStamp = card.flatMap { Self.stamp($0) }
        self.edited = edited
        isDeletion = card == nil
    }

    /// The digits of `REV` (so `20261122T101010Z` and `2026-11-22T10:10:10Z` compare equal).
    static func stamp(_ card: VCard) -> String? {
        guard let text = card.first("REV")?.textValue else { return nil }
        let digits = String(text.unicodeScalars.filter { ("0"..."9").contains($0) }.map(Character.init))
        return digits.isEmpty ? nil : digits
    }

    /// This side as the report shows it.
    var reported: SyncReport.Conflict.Version {
        SyncReport.Conflict.Version(edited: edited, isDeletion: isDeletion, revision: revision)
    }
}

/// Settles a contact changed on both sides by a ``ConflictPolicy``.
///
/// `newest` and `keep-both` decide in this order, and both sides of a sync decide alike because
/// they compare the same two versions and times:
/// 1. an edit wins over a deletion (the contact is restored on the side that deleted it),
///    unless the deleting side held that edit before it deleted the contact;
/// 2. the cards' `REV`, when they differ (one side's edit changed it);
/// 3. when each version was made (``ConflictSide/edited``), the later winning;
/// 4. otherwise the server's version.
struct ConflictResolver: Sendable {
    var policy: ConflictPolicy

    /// Which side wins, and why, in words.
    func winner(local: ConflictSide, remote: ConflictSide) -> (SyncReport.Conflict.Winner, String) {
        switch policy {
        case .local: return (.local, "--conflict local")
        case .remote: return (.remote, "--conflict remote")
        case .newest, .keepBoth:
            if local.isDeletion != remote.isDeletion {
                if local.isDeletion && remote.wasHeldHere {
                    return (.local, "deleted here after this book held the server's version")
                }
                if remote.isDeletion && local.isTheVersionDeletedThere {
                    return (.remote, "deleted on the server after it held this book's version")
                }
                return local.isDeletion ? (.remote, "edited on the server, deleted here: an edit wins over a deletion")
                    : (.local, "edited here, deleted on the server: an edit wins over a deletion")
            }
            if let l = local.revisionStamp, let r = remote.revisionStamp, l != r {
                return Self.isNewer(l, than: r) ? (.local, "newer REV here") : (.remote, "newer REV on the server")
            }
            if let l = local.edited, let r = remote.edited, l != r {
                return l > r ? (.local, "edited here more recently") : (.remote, "edited on the server more recently")
            }
            return (.remote, "no side is newer; the server's version wins")
        }
    }

    /// Compares REV digit strings, padding the shorter (a date without time) with zeros.
    static func isNewer(_ a: String, than b: String) -> Bool {
        let length = max(a.count, b.count)
        let pa = a.padding(toLength: length, withPad: "0", startingAt: 0)
        let pb = b.padding(toLength: length, withPad: "0", startingAt: 0)
        return pa > pb
    }
}
