import Foundation
import VCardKit

extension AddressBook {
    /// The journal's events, newest first, without card text.
    ///
    /// ```swift
    /// for event in try await book.history(of: "ada") { print(event.sequence, event.operation, event.time) }
    /// ```
    /// - Parameters:
    ///   - uid: only this contact's events; `nil` for all.
    ///   - limit: at most this many events. With a limit, only the end of the journal is read
    ///     (as far back as the events take), not the whole of it.
    ///   - isIncluded: only the events for which it holds.
    public func history(of uid: String? = nil, limit: Int? = nil,
                        where isIncluded: @Sendable (JournalEvent) -> Bool = { _ in true }) throws(ContactStoreError) -> [JournalEvent] {
        var events: [JournalEvent] = []
        if let limit {
            guard limit > 0 else { return [] }
            let clean = try JournalFile.readBackward(journalPath, endingAt: journalEnd) { event in
                if (uid == nil || event.uid == uid) && isIncluded(event) { events.append(event) }
                return events.count < limit
            }
            if clean { return events }
            // A line that does not decode: read forward, which names it and says what to do.
            events.removeAll()
        }
        try JournalFile.read(journalPath, repairHint: repairHint) { line throws(ContactStoreError) in
            if (uid == nil || line.event.uid == uid) && isIncluded(line.event) {
                var event = line.event
                event.card = nil
                events.append(event)
            }
        }
        events.reverse()
        if let limit, events.count > limit { events.removeLast(events.count - limit) }
        return events
    }

    /// Brings back an earlier version of a contact, or a deleted contact; the restore is itself a
    /// journal event, so it can be undone the same way.
    ///
    /// ```swift
    /// try await book.restore(uid: "ada")             // a deleted contact, at its last version
    /// try await book.restore(uid: "ada", sequence: 3) // the version recorded by event 3
    /// ```
    /// - Parameters:
    ///   - uid: the contact.
    ///   - sequence: the event whose version to bring back; `nil` brings a deleted contact back
    ///     at the version it had when it was deleted.
    /// - Returns: the `restore` event.
    /// - Throws: ``ContactStoreError`` — `notFound` for an unknown UID or event, `unsupported`
    ///   when the contact is live and no sequence was given, or shares its file with others.
    @discardableResult
    public func restore(uid: String, sequence: Int? = nil) async throws(ContactStoreError) -> JournalEvent {
        guard let record = index.records[uid] else {
            throw ContactStoreError(code: .notFound, message: "no contact has UID \(uid); `cardsync log \(directory)` lists every UID ever recorded")
        }
        let hash: ContentHash
        var restoredSequence = sequence
        if let sequence {
            guard let event = try history(of: uid).first(where: { $0.sequence == sequence }) else {
                throw ContactStoreError(code: .notFound,
                                        message: "event \(sequence) is not about \(uid); `cardsync log \(directory) \(uid)` lists its events")
            }
            guard let eventHash = event.hash else {
                throw ContactStoreError(code: .notFound,
                                        message: "event \(sequence) deleted \(uid) and holds no version; pick an earlier event from `cardsync log \(directory) \(uid)`")
            }
            hash = eventHash
        } else {
            guard record.isDeleted, let lastHash = record.lastHash else {
                throw ContactStoreError(code: .unsupported,
                                        message: "\(uid) is not deleted; give the event to go back to with --seq (see `cardsync log \(directory) \(uid)`)")
            }
            hash = lastHash
            restoredSequence = try history(of: uid).first { $0.hash == lastHash }?.sequence
        }
        guard var bytes = try storedCard(hash) else {
            throw ContactStoreError(code: .notFound,
                                    message: "the journal no longer holds the text of that version (it was compacted away or damaged)")
        }
        // The stored text may belong to another contact with the same content: give it this UID.
        if let card = try? VCardReader.read(bytes, sourceName: "journal").cards.first {
            let cardUID = card.normalizedUID
            if cardUID != (record.isGeneratedUID ? nil : uid) {
                var edited = card
                edited.removeAll(named: "UID")
                if !record.isGeneratedUID { edited.append(VCardProperty(name: "UID", text: uid)) }
                bytes = VCardWriter().bytes(for: edited)
            }
        }
        var file = record.file
        if record.isDeleted {
            if index.uidsByFile[file] != nil || POSIX.exists(directory + "/" + file) { file = freshFileName(for: uid) }
            try POSIX.writeAtomically(bytes, directory: directory, name: file, replacing: false)
        } else {
            guard (index.uidsByFile[file]?.count ?? 0) <= 1 else {
                throw ContactStoreError(code: .unsupported,
                                        message: "\(uid) shares \(file) with other contacts; move it to a file of its own first", path: file)
            }
            try POSIX.writeAtomically(bytes, directory: directory, name: file, replacing: true)
        }
        let name = (try? VCardReader.read(bytes, sourceName: file).cards.first?.formattedName) ?? record.name
        let event = JournalEvent(operation: .restore, uid: uid, file: file, hash: hash, previousHash: record.hash, source: .user,
                                 name: name, isGeneratedUID: record.isGeneratedUID, restoredSequence: restoredSequence)
        let written = try await self.record([event])
        stampWrittenFile(file)
        return written[0]
    }

    /// Groups of live contacts with the same content hash, each sorted oldest first (the first is
    /// the one `removeDuplicates` keeps).
    public func duplicateGroups() -> [[ContactRecord]] {
        Self.sortedGroups(index.uidsByHash.values.filter { $0.count > 1 }.map { $0.compactMap { index.live($0) } })
    }

    /// The groups of ``duplicateGroups()`` that hold at least one of `uids`: looked up from those
    /// contacts, not from every group of the book.
    public func duplicateGroups(touching uids: Set<String>) -> [[ContactRecord]] {
        let index = index
        if uids.count >= index.liveCount / 4 {
            // A quarter of the book or more (a first push or pull touches all of it): one pass
            // over the groups of equal content, instead of two look-ups per contact touched.
            return Self.sortedGroups(index.uidsByHash.values.filter { $0.count > 1 && $0.contains(where: uids.contains) }
                .map { $0.compactMap { index.live($0) } })
        }
        // The contents looked up on every core when there are many.
        let hashes = Set(Parallel.map(Array(uids), minimumPerWorker: 4096) { index.live($0)?.hash }.compactMap { $0 })
        return Self.sortedGroups(hashes.compactMap { index.uidsByHash[$0] }.filter { $0.count > 1 }.map { $0.compactMap { index.live($0) } })
    }

    /// `groups` with each group oldest first, the groups by the file of their oldest.
    private static func sortedGroups(_ groups: [[ContactRecord]]) -> [[ContactRecord]] {
        groups.map { $0.sorted { ($0.createdSequence, $0.uid) < ($1.createdSequence, $1.uid) } }.sorted { $0[0].file < $1[0].file }
    }

    /// Removes exact duplicates: for each group of contacts with the same content, keeps the
    /// oldest and deletes the files of the others. Each removal is a `delete` event naming the
    /// contact kept, restorable with ``restore(uid:sequence:)``.
    /// - Parameter progress: called after each contact removed (or left alone), with the
    ///   duplicates handled so far and the duplicates found.
    /// - Returns: the delete events, and problems for contacts that share their file with others (left alone).
    public func removeDuplicates(
        progress: (@Sendable (BookProgress) -> Void)? = nil
    ) async throws(ContactStoreError) -> (events: [JournalEvent], problems: [StoreProblem]) {
        var events: [JournalEvent] = []
        var problems: [StoreProblem] = []
        let groups = duplicateGroups()
        let total = groups.reduce(0) { $0 + $1.count - 1 }
        var handled = 0
        for group in groups {
            let keeper = group[0]
            for extra in group.dropFirst() {
                defer {
                    handled += 1
                    progress?(BookProgress(done: handled, total: total))
                }
                guard (index.uidsByFile[extra.file]?.count ?? 0) == 1 else {
                    problems.append(StoreProblem(code: "shared-file", file: extra.file,
                                                 message: "\(extra.uid) duplicates \(keeper.uid) but shares its file with other contacts; left alone"))
                    continue
                }
                guard unlink(directory + "/" + extra.file) == 0 || errno == ENOENT else {
                    throw .io(directory + "/" + extra.file, "cannot remove", errno: errno)
                }
                events.append(JournalEvent(operation: .delete, uid: extra.uid, file: extra.file, hash: nil, previousHash: extra.hash,
                                           source: .user, name: extra.name, isGeneratedUID: extra.isGeneratedUID, duplicateOf: keeper.uid))
            }
        }
        try POSIX.sync(directory)
        return (try await record(events).map(\.withoutCard), problems)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
