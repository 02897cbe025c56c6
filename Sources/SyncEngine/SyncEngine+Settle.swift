import ContactStore
import CouchClient
import VCardKit
import JSONText

/// What the remote holds for one contact document.
enum RemoteSide: Sendable {
    /// A live document.
    case live(ContactDocument.Decoded)
    /// A tombstone at this revision.
    case deleted(revision: String)
    /// No document with this id.
    case missing

    var hash: ContentHash? {
        if case .live(let decoded) = self { return decoded.hash }
        return nil
    }

    var revision: String? {
        switch self {
        case .live(let decoded): decoded.revision
        case .deleted(let revision): revision
        case .missing: nil
        }
    }
}

/// How one contact is settled against the remote.
struct Settlement: Sendable {
    /// Changes for the address book.
    var changes: [RemoteChange] = []
    /// What the address book gains from the remote (for the report).
    var pulled: SyncReport.Change?
    /// The conflict, when both sides changed.
    var conflict: SyncReport.Conflict?
    /// The local version must be pushed (over ``RemoteSide/revision``).
    var pushesLocal = false
    /// A version to add as a new contact (`keep-both`): its bytes with a new UID.
    var keepBothCopy: (uid: String, bytes: [UInt8])?
    /// Already identical on both sides.
    var matched = false
}

extension SyncEngine {
    /// Settles one contact: `record` and `state` are the local side and the last sync; `local`
    /// is the local card (read only when both sides changed).
    func settle(uid: String, remoteSide: RemoteSide, record: ContactRecord?, state: RemoteSyncState?,
                localCard: () async -> StoredContact?) async -> Settlement {
        var settlement = Settlement()
        let localHash = record?.hash
        // Without a sync state, any local record (even a deletion) is a local change the remote has not seen.
        let localChanged = state.map { localHash != $0.hash } ?? (record != nil)
        let remoteName: String? = if case .live(let decoded) = remoteSide { decoded.card.formattedName } else { nil }
        let name = remoteName ?? record?.name ?? uid

        // The remote side's version (its name read once, above).
        func remoteVersion(_ decoded: ContactDocument.Decoded) -> RemoteVersion {
            RemoteVersion(uid: uid, bytes: decoded.bytes, hash: decoded.hash, name: remoteName,
                          isGeneratedUID: decoded.isGeneratedUID, revision: decoded.revision, edited: decoded.editTime)
        }
        func takeRemote() {
            switch remoteSide {
            case .live(let decoded):
                settlement.changes.append(.version(remoteVersion(decoded)))
                settlement.pulled = .init(uid: uid, name: name, kind: localHash == nil ? .add : .update)
            case .deleted(let revision):
                if localHash != nil {
                    settlement.changes.append(.deletion(uid: uid, revision: revision))
                    settlement.pulled = .init(uid: uid, name: name, kind: .delete)
                } else {
                    settlement.changes.append(.inStep(uid: uid, revision: revision, hash: nil))
                }
            case .missing:
                break
            }
        }

        if case .missing = remoteSide {
            settlement.pushesLocal = localHash != nil || state?.hash != nil
            return settlement
        }
        if remoteSide.hash == localHash, let revision = remoteSide.revision {
            settlement.changes.append(.inStep(uid: uid, revision: revision, hash: localHash))
            settlement.matched = state == nil && localHash != nil
            return settlement
        }
        guard localChanged else {
            takeRemote()
            return settlement
        }
        // A reset matches by content and deletes nothing: a tombstone does not delete the
        // local contact, whose version is pushed over it.
        if options.reset, state == nil, localHash != nil, case .deleted(let revision) = remoteSide {
            settlement.changes.append(.inStep(uid: uid, revision: revision, hash: nil))
            settlement.pushesLocal = true
            return settlement
        }
        // Both sides changed.
        let local = localHash == nil ? nil : await localCard()
        let remoteCard: VCard? = if case .live(let decoded) = remoteSide { decoded.card } else { nil }
        let deletion: Deletion? = if case .deleted(let revision) = remoteSide { await deletion(uid: uid, revision: revision) } else { nil }
        let remoteEdited: Int64? = switch remoteSide {
        case .live(let decoded): decoded.editTime
        case .deleted: deletion?.time
        case .missing: nil
        }
        var localSide = ConflictSide(card: local?.card, edited: record?.editTime)
        if let localHash, let deletion {
            localSide.isTheVersionDeletedThere = await deletedVersionHash(deletion) == localHash
        }
        var remoteVersionSide = ConflictSide(card: remoteCard, edited: remoteEdited)
        if local == nil, case .live(let decoded) = remoteSide {
            remoteVersionSide.wasHeldHere = await book.hasHeld(decoded.hash, uid: uid)
        }
        let (winner, reason) = resolver.winner(local: localSide, remote: remoteVersionSide)
        var conflict = SyncReport.Conflict(uid: uid, name: local?.card.formattedName ?? name, winner: winner, reason: reason,
                                           local: localSide.reported, remote: remoteVersionSide.reported)
        switch winner {
        case .remote:
            if options.policy == .keepBoth, let local, case .live = remoteSide {
                let copyUID = Self.copyUID(uid, hash: local.record.hash)
                settlement.keepBothCopy = (copyUID, Self.card(local.card, withUID: copyUID))
                conflict.keptAs = copyUID
            }
            takeRemote()
        case .local:
            switch remoteSide {
            case .live(let decoded):
                if options.policy == .keepBoth, local != nil {
                    let copyUID = Self.copyUID(uid, hash: decoded.hash)
                    settlement.keepBothCopy = (copyUID, Self.card(decoded.card, withUID: copyUID))
                    conflict.keptAs = copyUID
                }
                settlement.changes.append(.losingVersion(remoteVersion(decoded)))
            case .deleted(let revision):
                settlement.changes.append(.inStep(uid: uid, revision: revision, hash: nil))
            case .missing:
                break
            }
            settlement.pushesLocal = true
        }
        settlement.conflict = conflict
        return settlement
    }

    /// A deletion on the server: its tombstone, read with its revision history (one request,
    /// made only for a conflict with a deletion).
    struct Deletion {
        var id: String
        var tombstone: JSONObject

        /// When the contact was deleted, when the tombstone says.
        var time: Int64? {
            (tombstone["edited"] ?? tombstone["updated"])?.stringValue.flatMap { UTCTimestamp.parse($0.utf8) }
        }

        /// The revision the tombstone deleted (its parent).
        var deletedRevision: String? {
            guard let history = tombstone["_revisions"], let start = history["start"]?.intValue,
                  let ids = history["ids"]?.arrayValue, ids.count > 1, let parentID = ids[1].stringValue else { return nil }
            return "\(start - 1)-\(parentID)"
        }
    }

    func deletion(uid: String, revision: String) async -> Deletion? {
        let id = ContactDocument.documentID(forUID: uid)
        guard !revision.isEmpty, let tombstone = try? await database.document(id: id, revision: revision, revisions: true) else { return nil }
        return Deletion(id: id, tombstone: tombstone)
    }

    /// The content hash of the version `deletion` deleted, when the server still has that
    /// revision's body (one more request).
    func deletedVersionHash(_ deletion: Deletion) async -> ContentHash? {
        guard let revision = deletion.deletedRevision,
              var parent = try? await database.document(id: deletion.id, revision: revision) else { return nil }
        if parent["_rev"] == nil { parent["_rev"] = .string(revision) }
        return (try? ContactDocument.decode(parent))?.hash
    }

    /// The UID a `keep-both` copy gets: the original's with a suffix from the copy's content.
    static func copyUID(_ uid: String, hash: ContentHash?) -> String {
        uid + "-conflict-" + String((hash?.hexDigits ?? "copy").prefix(8))
    }

    /// `card` with its UID replaced, as bytes.
    static func card(_ card: VCard, withUID uid: String) -> [UInt8] {
        var edited = card
        edited.removeAll(named: "UID")
        edited.append(VCardProperty(name: "UID", text: uid))
        return VCardWriter().bytes(for: edited)
    }
}
