import VCardKit

/// One side of a contact changed on both sides: what the policy compares.
struct ConflictSide: Sendable {
    /// The card's `REV`, when it has one.
    var revisionStamp: String?
    /// When this side changed, in milliseconds since 1970, when known.
    var modified: Int64?
    /// Whether this side deleted the contact.
    var isDeletion: Bool

    init(card: VCard?, modified: Int64?) {
        revisionStamp = card.flatMap { Self.stamp($0) }
        self.modified = modified
        isDeletion = card == nil
    }

    /// The digits of `REV` (so `20261122T101010Z` and `2026-11-22T10:10:10Z` compare equal).
    static func stamp(_ card: VCard) -> String? {
        guard let text = card.first("REV")?.textValue else { return nil }
        let digits = String(text.unicodeScalars.filter { ("0"..."9").contains($0) }.map(Character.init))
        return digits.isEmpty ? nil : digits
    }
}

/// Settles a contact changed on both sides by a ``ConflictPolicy``.
struct ConflictResolver: Sendable {
    var policy: ConflictPolicy

    /// Which side wins, and why, in words.
    func winner(local: ConflictSide, remote: ConflictSide) -> (SyncReport.Conflict.Winner, String) {
        switch policy {
        case .local: return (.local, "--conflict local")
        case .remote: return (.remote, "--conflict remote")
        case .newest, .keepBoth:
            if policy == .keepBoth, local.isDeletion != remote.isDeletion {
                // Keeping both of an edit and a deletion means keeping the edit.
                return local.isDeletion ? (.remote, "edited on the server, deleted here: the edit is kept")
                    : (.local, "edited here, deleted on the server: the edit is kept")
            }
            if let l = local.revisionStamp, let r = remote.revisionStamp, l != r {
                return Self.isNewer(l, than: r) ? (.local, "newer REV here") : (.remote, "newer REV on the server")
            }
            if let l = local.modified, let r = remote.modified, l != r {
                return l > r ? (.local, "changed here more recently") : (.remote, "changed on the server more recently")
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
