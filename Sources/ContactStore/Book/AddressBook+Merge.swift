#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import VCardKit

extension AddressBook {
    /// Records the merge of several contacts into one: `card` replaces the kept contact's file
    /// (a `merge` event), and the files of the absorbed contacts are removed (a `delete` event
    /// each, whose `duplicateOf` names the kept contact), all in one journal append.
    /// ``undoMerge(uid:)`` brings everything back as it was.
    ///
    /// ```swift
    /// let events = try await book.recordMerge(keeping: "ada", card: merged, absorbing: ["ada-2"])
    /// ```
    /// - Parameters:
    ///   - keeper: the UID of the contact that stays.
    ///   - card: its new content; its UID is written as `keeper`.
    ///   - absorbed: the UIDs of the contacts merged into it.
    /// - Returns: the `merge` event, then the `delete` events.
    /// - Throws: ``ContactStoreError`` — `notFound` for a UID that is not a live contact,
    ///   `unsupported` for a contact that shares its file with others or is named twice.
    public func recordMerge(keeping keeper: String, card: VCard, absorbing absorbed: [String]) async throws(ContactStoreError) -> [JournalEvent] {
        guard !absorbed.isEmpty, !absorbed.contains(keeper), Set(absorbed).count == absorbed.count else {
            throw ContactStoreError(code: .unsupported, message: "a merge needs a contact to keep and at least one other, each named once")
        }
        var records: [ContactRecord] = []
        for uid in [keeper] + absorbed {
            guard let record = index.live(uid) else {
                throw ContactStoreError(code: .notFound, message: "no live contact has UID \(uid); `cardsync list \(directory)` shows them")
            }
            guard (index.uidsByFile[record.file]?.count ?? 0) <= 1 else {
                throw ContactStoreError(code: .unsupported,
                                        message: "\(uid) shares \(record.file) with other contacts; move it to a file of its own first", path: record.file)
            }
            records.append(record)
        }
        var edited = card
        if edited.uid != keeper || records[0].isGeneratedUID {
            edited.removeAll(named: "UID")
            if !records[0].isGeneratedUID { edited.append(VCardProperty(name: "UID", text: keeper)) }
        }
        let bytes = VCardWriter().bytes(for: edited)
        let hash = ContentHash(of: edited)
        let kept = records[0]
        try POSIX.writeAtomically(bytes, directory: directory, name: kept.file, replacing: true)
        var events = [JournalEvent(operation: .merge, uid: keeper, file: kept.file, hash: hash, previousHash: kept.hash, source: .user,
                                   name: edited.formattedName ?? kept.name, card: index.cardOffsets[hash] == nil ? bytes : nil,
                                   isGeneratedUID: kept.isGeneratedUID)]
        for record in records.dropFirst() {
            guard unlink(directory + "/" + record.file) == 0 || errno == ENOENT else {
                throw .io(directory + "/" + record.file, "cannot remove", errno: errno)
            }
            events.append(JournalEvent(operation: .delete, uid: record.uid, file: record.file, hash: nil, previousHash: record.hash,
                                       source: .user, name: record.name, isGeneratedUID: record.isGeneratedUID, duplicateOf: keeper))
        }
        try POSIX.sync(directory)
        let written = try await record(events)
        stampWrittenFile(kept.file)
        return written.map(\.withoutCard)
    }

    /// Undoes the last merge into a contact: the kept contact gets back the version it had
    /// before, and the contacts merged into it come back in their files, byte for byte. Each is
    /// a `restore` event, so the undo can itself be undone.
    ///
    /// ```swift
    /// let events = try await book.undoMerge(uid: "ada")
    /// ```
    /// - Returns: the `restore` events, the kept contact's first.
    /// - Throws: ``ContactStoreError`` — `notFound` for an unknown UID, `unsupported` when the
    ///   contact's last event is not a merge.
    public func undoMerge(uid: String) async throws(ContactStoreError) -> [JournalEvent] {
        guard index.records[uid] != nil else {
            throw ContactStoreError(code: .notFound, message: "no contact has UID \(uid); `cardsync log \(directory)` lists every UID ever recorded")
        }
        let events = Array(try history().reversed())
        guard let mergePosition = events.lastIndex(where: { $0.uid == uid }), events[mergePosition].operation == .merge else {
            throw ContactStoreError(code: .unsupported,
                                    message: "the last change to \(uid) was not a merge; give the event to go back to with --seq (see `cardsync log \(directory) \(uid)`)")
        }
        let merge = events[mergePosition]
        let absorbed = events[(mergePosition + 1)...].prefix { $0.operation == .delete && $0.duplicateOf == uid }.map(\.uid)
        guard let previous = events[..<mergePosition].last(where: { $0.uid == uid && $0.hash != nil && $0.hash == merge.previousHash }) else {
            throw ContactStoreError(code: .notFound, message: "the journal holds no version of \(uid) from before the merge")
        }
        var restored = [try await restore(uid: uid, sequence: previous.sequence)]
        for other in absorbed where index.records[other]?.isDeleted == true {
            restored.append(try await restore(uid: other))
        }
        return restored
    }
}
