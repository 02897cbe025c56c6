#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
public import VCardKit

/// A change a sync brings from a remote into the address book.
public enum RemoteChange: Sendable {
    /// The remote holds this version of the contact: write it into the folder.
    case version(RemoteVersion)
    /// The remote deleted the contact at `revision`: remove it from the folder.
    case deletion(uid: String, revision: String)
    /// Both sides hold the same content (or the same deletion): record that they are in step.
    case inStep(uid: String, revision: String, hash: ContentHash?)
    /// A remote version that lost a conflict: keep it in the journal only (restorable), and
    /// record the remote revision it came from, so the local version is pushed over it.
    case losingVersion(RemoteVersion)
    /// A remote version to keep in the journal only (a losing branch of a document with
    /// `_conflicts`); no sync state is recorded.
    case keptVersion(RemoteVersion)
}

/// One version of a contact as a remote document holds it.
public struct RemoteVersion: Sendable {
    /// The contact's identity.
    public var uid: String
    /// The card's bytes, exactly as the document holds them.
    public var bytes: [UInt8]
    /// Their content hash.
    public var hash: ContentHash
    /// The formatted name, for history.
    public var name: String?
    /// Whether the card has no UID of its own (the identity is the document's).
    public var isGeneratedUID: Bool
    /// The document revision.
    public var revision: String
    /// When the version was made (milliseconds since 1970), when the document says; recorded as
    /// the journal event's ``JournalEvent/edited``.
    public var edited: Int64?

    /// A remote version.
    public init(uid: String, bytes: [UInt8], hash: ContentHash, name: String?, isGeneratedUID: Bool, revision: String,
                edited: Int64? = nil) {
        self.uid = uid
        self.bytes = bytes
        self.hash = hash
        self.name = name
        self.isGeneratedUID = isGeneratedUID
        self.revision = revision
        self.edited = edited
    }
}

/// What applying remote changes did.
public struct RemoteApplyReport: Sendable {
    /// The content events recorded (add, update, delete, conflict), without card text.
    public var events: [JournalEvent] = []
    /// Changes left for the next sync, with the reason (the file changed under the sync, or
    /// could not be rewritten). Their sync state is not recorded, so they come back.
    public var deferred: [DeferredChange] = []
}

/// A remote change not applied this time, and why.
public struct DeferredChange: Sendable, Hashable {
    /// The contact.
    public var uid: String
    /// Its file.
    public var file: String
    /// Why it waits for the next sync.
    public var reason: String
}

extension AddressBook {
    // MARK: - Sync state

    /// Each contact's last synced state with `remote` (its URL without credentials), by UID.
    public func syncStates(remote: String) -> [String: RemoteSyncState] {
        index.syncStates[remote] ?? [:]
    }

    /// One contact's last synced state with `remote`.
    public func syncState(remote: String, uid: String) -> RemoteSyncState? {
        index.syncStates[remote]?[uid]
    }

    /// The changes-feed position of `remote` applied so far, or `nil` before the first sync.
    public func checkpoint(remote: String) -> String? {
        isIndexLoaded ? index.checkpoints[remote] : summary.checkpoints[remote]
    }

    /// The number of contacts `remote` holds as this book does (synced and live on both).
    public func syncedCount(remote: String) -> Int {
        if !isIndexLoaded, let tally = summary.remotes[remote] { return tally.synced }
        return (index.syncStates[remote] ?? [:]).values.filter { $0.hash != nil }.count
    }

    /// The local changes since the last sync with `remote`, by UID: each contact whose content is
    /// not the one last synced (live, with other content or never synced) and each deletion of a
    /// contact the remote still holds, with its sync state. A book with nothing to push answers
    /// without loading its whole index.
    public func unsyncedChanges(remote: String) -> [(record: ContactRecord, state: RemoteSyncState?)] {
        if !isIndexLoaded, let tally = summary.remotes[remote], tally.unsynced.isEmpty { return [] }
        let states = index.syncStates[remote] ?? [:]
        let uids: [String]
        if summaryTracksIndex, !index.touched.remoteForgotten, let tally = summary.remotes[remote] {
            // The contacts the summary counted, and those changed since it was made: not every record.
            uids = Set(tally.unsynced).union(index.touched.uids).filter { index.isUnsynced($0, states: states) }.sorted()
            assert(uids == index.unsyncedUIDs(states: states), "the unsynced contacts from the summary differ from the index's")
        } else {
            uids = index.unsyncedUIDs(states: states)
        }
        return uids.compactMap { uid in index.records[uid].map { ($0, states[uid]) } }
    }

    /// Every contact ever recorded, deleted ones included.
    public func allRecords() -> [ContactRecord] {
        Array(index.records.values)
    }

    /// The records of the contacts among `uids` that were ever recorded (deleted ones included), by UID.
    public func records(for uids: some Sequence<String>) -> [String: ContactRecord] {
        var result: [String: ContactRecord] = [:]
        for uid in uids { if let record = index.records[uid] { result[uid] = record } }
        return result
    }

    /// Records that contacts are in step with documents on `remote`, with one sync of the journal.
    public func recordSynced(_ states: [(uid: String, state: RemoteSyncState)], remote: String) async throws(ContactStoreError) {
        guard !states.isEmpty else { return }
        let events = states.map { item in
            let record = index.records[item.uid]
            return JournalEvent.synced(uid: item.uid, file: record?.file ?? Self.placeholderFile(for: item.uid), remote: remote,
                                       revision: item.state.revision, hash: item.state.hash,
                                       isGeneratedUID: record?.isGeneratedUID ?? false)
        }
        try await record(events)
    }

    /// Records that `remote`'s changes feed is applied up to `position` (each sync records one,
    /// so its time is the time of the last sync). Call it only once the changes it covers are
    /// durable here.
    /// - Parameter summary: what the sync has done so far, in words (kept with the checkpoint;
    ///   ``lastSync(remote:)`` reads it back).
    public func recordCheckpoint(_ position: String, remote: String, summary: String? = nil) async throws(ContactStoreError) {
        try await record([.checkpoint(remote: remote, position: position, summary: summary)])
    }

    /// Forgets all sync state for `remote` (for `cardsync remote remove`): the journal records a
    /// fresh start, so the next sync with it matches contacts by content again.
    public func forgetSyncState(remote: String) async throws(ContactStoreError) {
        guard index.syncStates[remote] != nil || index.checkpoints[remote] != nil else { return }
        try await record([.checkpoint(remote: remote, position: "")])
        index.syncStates[remote] = nil
        index.checkpoints[remote] = nil
    }

    /// Whether contact `uid` held the version with content `hash` in this book at some time: its
    /// current or last version, or the version whose text the journal keeps under its UID.
    ///
    /// A sync uses it to tell the server's copy of a version this book already had (its own
    /// push whose answer was lost, then a local deletion) from an edit made elsewhere. A version
    /// whose text the journal keeps under another contact's UID (same content) is not
    /// recognised: the answer is then `false`, and the edit is treated as new.
    public func hasHeld(_ hash: ContentHash, uid: String) -> Bool {
        guard let record = index.records[uid] else { return false }
        if record.hash == hash || record.lastHash == hash { return true }
        guard let offset = index.cardOffsets[hash], let event = try? readEvent(at: offset) else { return false }
        return event.uid == uid
    }

    /// The live contacts with these UIDs, read from their files (missing ones are left out),
    /// the files read and parsed on every core.
    ///
    /// - Parameter names: when given, only the properties with these names (upper case; `UID`
    ///   and `VERSION` always) need to be in each contact's ``StoredContact/card``: a file of one
    ///   contact in plain 3.0 or 4.0 text is then read for them only (its photo, notes and the
    ///   rest are not decoded), while ``StoredContact/bytes`` stay the whole card. Others are read whole.
    public func storedContacts(uids: [String], selecting names: Set<String>? = nil) -> [StoredContact] {
        var wanted: [String: Set<String>] = [:]
        for uid in uids { if let record = index.live(uid) { wanted[record.file, default: []].insert(uid) } }
        let groups = wanted.keys.sorted().map { file in
            (file: file, records: (index.uidsByFile[file] ?? []).compactMap { index.live($0) }, wanted: wanted[file]!)
        }
        let directory = self.directory
        return Parallel.map(groups, minimumPerWorker: 16) { group in
            Self.readContacts(directory: directory, file: group.file, records: group.records, selecting: names)
                .filter { group.wanted.contains($0.uid) }
        }.flatMap { $0 }
    }

    // MARK: - Applying remote changes

    /// Applies changes from `remote`: writes each new version into the folder (every file
    /// written under a temporary name, all synced at once, then moved into place), removes
    /// deleted contacts, then records the content events and the sync state in the journal
    /// with one sync. A contact whose file changed since the last scan is not touched (the next
    /// sync sees the local edit).
    public func applyRemote(_ changes: [RemoteChange], remote: String) async throws(ContactStoreError) -> RemoteApplyReport {
        var report = RemoteApplyReport()
        struct Write { var uid: String; var file: String; var bytes: [UInt8]; var replacing: Bool }
        var writes: [Write] = []
        var removals: [String] = []
        var rewrites: [(file: String, bytes: [UInt8])] = []
        var contentEvents: [JournalEvent] = []
        var syncEvents: [JournalEvent] = []
        var takenFiles: Set<String> = []
        var withText: Set<ContentHash> = []
        var touchedUIDs: Set<String> = []

        func cardText(_ hash: ContentHash, _ bytes: [UInt8]) -> [UInt8]? {
            guard index.cardOffsets[hash] == nil, !withText.contains(hash) else { return nil }
            withText.insert(hash)
            return bytes
        }
        func unchangedOnDisk(_ file: String) -> Bool {
            if let known = index.stamps[file], POSIX.stamp(directory + "/" + file) == known { return true }
            // No trustworthy stamp (the file was written too recently to tell): compare content.
            let scanned = ScannedFile.read(directory: directory, name: file)
            guard scanned.problem == nil, let uids = index.uidsByFile[file] else { return false }
            let recorded = uids.compactMap { index.live($0)?.hash }
            return scanned.cards.map(\.hash).sorted { $0.hexDigits < $1.hexDigits } == recorded.sorted { $0.hexDigits < $1.hexDigits }
        }
        func defer_(_ uid: String, _ file: String, _ why: String) {
            report.deferred.append(DeferredChange(uid: uid, file: file, reason: why + "; left for the next sync"))
        }

        for change in changes {
            switch change {
            case .inStep(let uid, let revision, let hash):
                let record = index.records[uid]
                syncEvents.append(.synced(uid: uid, file: record?.file ?? Self.placeholderFile(for: uid), remote: remote,
                                          revision: revision, hash: hash, isGeneratedUID: record?.isGeneratedUID ?? false))

            case .keptVersion(let version):
                let record = index.records[version.uid]
                contentEvents.append(JournalEvent(operation: .conflict, uid: version.uid, file: record?.file ?? Self.placeholderFile(for: version.uid),
                                                  hash: version.hash, previousHash: nil, source: .remote, name: version.name,
                                                  card: cardText(version.hash, version.bytes),
                                                  isGeneratedUID: record?.isGeneratedUID ?? version.isGeneratedUID))

            case .losingVersion(let version):
                let record = index.records[version.uid]
                let file = record?.file ?? Self.placeholderFile(for: version.uid)
                contentEvents.append(JournalEvent(operation: .conflict, uid: version.uid, file: file, hash: version.hash, previousHash: nil,
                                                  source: .remote, name: version.name, card: cardText(version.hash, version.bytes),
                                                  isGeneratedUID: record?.isGeneratedUID ?? version.isGeneratedUID))
                syncEvents.append(.synced(uid: version.uid, file: file, remote: remote, revision: version.revision, hash: version.hash,
                                          isGeneratedUID: record?.isGeneratedUID ?? version.isGeneratedUID))

            case .version(let version):
                guard !touchedUIDs.contains(version.uid) else { continue }
                touchedUIDs.insert(version.uid)
                let existing = index.live(version.uid)
                var file: String
                var previousFile: String?
                if let existing {
                    guard unchangedOnDisk(existing.file) else {
                        defer_(version.uid, existing.file, "the file changed in the folder during the sync")
                        continue
                    }
                    if (index.uidsByFile[existing.file]?.count ?? 0) > 1 {
                        guard let remaining = remainingCards(of: existing.file, without: existing) else {
                            defer_(version.uid, existing.file, "its file holds other contacts and cannot be rewritten without it")
                            continue
                        }
                        rewrites.append((existing.file, remaining))
                        file = freshFileName(for: version.uid, taken: takenFiles, checkingFolder: false)
                        previousFile = existing.file
                        writes.append(Write(uid: version.uid, file: file, bytes: version.bytes, replacing: false))
                    } else {
                        file = existing.file
                        writes.append(Write(uid: version.uid, file: file, bytes: version.bytes, replacing: true))
                    }
                } else {
                    // No stat per name: the move into place (`link`) never replaces a file the
                    // index does not know, and takes a fresh name then.
                    file = freshFileName(for: version.uid, taken: takenFiles, checkingFolder: false)
                    writes.append(Write(uid: version.uid, file: file, bytes: version.bytes, replacing: false))
                }
                takenFiles.insert(file)
                if existing?.hash != version.hash || previousFile != nil {
                    var event = JournalEvent(operation: existing == nil ? .add : .update, uid: version.uid, file: file, hash: version.hash,
                                             previousHash: existing?.hash, source: .remote, name: version.name,
                                             card: cardText(version.hash, version.bytes), isGeneratedUID: version.isGeneratedUID)
                    event.previousFile = previousFile
                    event.edited = version.edited
                    contentEvents.append(event)
                }
                syncEvents.append(.synced(uid: version.uid, file: file, remote: remote, revision: version.revision, hash: version.hash,
                                          isGeneratedUID: version.isGeneratedUID))

            case .deletion(let uid, let revision):
                guard !touchedUIDs.contains(uid) else { continue }
                touchedUIDs.insert(uid)
                if let existing = index.live(uid) {
                    guard unchangedOnDisk(existing.file) else {
                        defer_(uid, existing.file, "the file changed in the folder during the sync")
                        continue
                    }
                    if (index.uidsByFile[existing.file]?.count ?? 0) > 1 {
                        guard let remaining = remainingCards(of: existing.file, without: existing) else {
                            defer_(uid, existing.file, "its file holds other contacts and cannot be rewritten without it")
                            continue
                        }
                        rewrites.append((existing.file, remaining))
                    } else {
                        removals.append(existing.file)
                    }
                    contentEvents.append(JournalEvent(operation: .delete, uid: uid, file: existing.file, hash: nil, previousHash: existing.hash,
                                                      source: .remote, name: existing.name, isGeneratedUID: existing.isGeneratedUID))
                }
                let record = index.records[uid]
                syncEvents.append(.synced(uid: uid, file: record?.file ?? Self.placeholderFile(for: uid), remote: remote,
                                          revision: revision, hash: nil, isGeneratedUID: record?.isGeneratedUID ?? false))
            }
        }

        // The journal lines this apply will write, set down before any file moves: a run killed
        // after the moves but before the journal has them leaves them to the next opening
        // (``finishInterruptedApply()``), which records the moves they vouch for.
        let pendingApply = metaDirectory + "/" + Self.pendingApplyName
        let touchesFolder = !writes.isEmpty || !rewrites.isEmpty || !removals.isEmpty
        func writePendingApply() throws(ContactStoreError) {
            // Journal lines in form (the journal gives them their real numbers and time). An
            // added or updated version's text is left out: it is the file this apply writes, and
            // the next opening reads it from there (``finishInterruptedApply()``) — so the pending
            // lines do not write every pulled card a second time. A conflict version is in no
            // file and keeps its text.
            let now = clock.now()
            let events = (contentEvents + syncEvents).enumerated().map { position, event in
                var line = event
                if line.operation == .add || line.operation == .update { line.card = nil }
                line.sequence = position + 1
                line.timestamp = now
                line.schemaVersion = JournalEvent.currentSchemaVersion
                return line
            }
            // Encoded on every core, as the journal encodes its lines.
            let lines = Parallel.map(events, minimumPerWorker: 64) { JournalLine.encode($0) }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(lines.reduce(0) { $0 + $1.count })
            for line in lines { bytes.append(contentsOf: line) }
            _ = unlink(pendingApply)
            try POSIX.createFile(pendingApply, bytes, mode: 0o600)
        }
        if touchesFolder {
            try writePendingApply()
            if writes.isEmpty && rewrites.isEmpty {
                try POSIX.sync(pendingApply)
                try POSIX.sync(metaDirectory)
            }
        }

        // Folder first: temporary files (on every core), one file-system sync (the pending lines
        // with them), then into place (a new file never over one the index does not know).
        if !writes.isEmpty || !rewrites.isEmpty {
            let files = writes.map { (name: $0.file, bytes: $0.bytes) } + rewrites.map { (name: $0.file, bytes: $0.bytes) }
            try POSIX.createTemporaryFiles(files, in: directory, name: { $0.name }, bytes: { $0.bytes })
            try POSIX.syncFileSystem(containing: directory)
            for index in writes.indices {
                let temporary = directory + "/" + POSIX.temporaryName(for: writes[index].file)
                if writes[index].replacing {
                    try POSIX.commit(temporary: temporary, to: directory + "/" + writes[index].file, replacing: true)
                    continue
                }
                while true {
                    let failure = POSIX.moveWithoutReplacing(temporary, to: directory + "/" + writes[index].file)
                    if failure == 0 { break }
                    guard failure == EEXIST else { throw .io(directory + "/" + writes[index].file, "cannot move into place", errno: failure) }
                    let fresh = UUID().uuidString.lowercased() + ".vcf"
                    let old = writes[index].file
                    for i in contentEvents.indices where contentEvents[i].file == old && contentEvents[i].uid == writes[index].uid {
                        contentEvents[i].file = fresh
                    }
                    for i in syncEvents.indices where syncEvents[i].file == old && syncEvents[i].uid == writes[index].uid {
                        syncEvents[i].file = fresh
                    }
                    writes[index].file = fresh
                    // The pending lines must name the file the card is really in.
                    try writePendingApply()
                    try POSIX.sync(pendingApply)
                }
            }
            for rewrite in rewrites {
                try POSIX.commit(temporary: directory + "/" + POSIX.temporaryName(for: rewrite.file), to: directory + "/" + rewrite.file,
                                 replacing: true)
            }
        }
        for file in removals {
            guard unlink(directory + "/" + file) == 0 || errno == ENOENT else { throw .io(directory + "/" + file, "cannot remove", errno: errno) }
        }
        if touchesFolder {
            try POSIX.sync(directory)
            CrashPoint.reach(CrashPoint.pullAppliedToFolder)
        }

        // Then the journal: content events before the sync state they lead to, one sync.
        let written = try await record(contentEvents + syncEvents)
        if touchesFolder { _ = unlink(pendingApply) }
        stampWrittenFiles(writes.map(\.file) + rewrites.map(\.file))
        report.events = written.filter { $0.operation != .synced }.map(\.withoutCard)
        return report
    }

    /// `.cardsync/pull-apply.jsonl`: the journal lines of a pull's apply, written before any of
    /// its files moves into place (and made durable with the temporary files), removed once the
    /// journal holds them. Found when a book opens, it means a run was killed in between. Added
    /// and updated versions are written there without their card text: their files hold it.
    static let pendingApplyName = "pull-apply.jsonl"

    /// Finishes an apply killed after its files moved into place but before the journal had
    /// its lines (``pendingApplyName``): each pulled version found in its file, and each removal
    /// found done, is recorded now with the remote revision it came from, so that the next scan
    /// does not take the server's version for an edit made in the folder (which would then win
    /// over the server's later changes, a deletion among them). A version not in its file (the
    /// move never happened, or someone edited the file since) is left out with its sync state:
    /// the checkpoint did not move, so the next sync reads that change again. Lines already in
    /// the journal are not written twice; a torn file (killed while it was written, before
    /// anything moved) is dropped.
    /// - Returns: how many changes were recorded.
    @discardableResult
    func finishInterruptedApply() async throws(ContactStoreError) -> Int {
        let path = metaDirectory + "/" + Self.pendingApplyName
        guard POSIX.exists(path) else { return 0 }
        // Finishing the apply writes and stamps files: the stamps taken when opening may not hold.
        openingListing?.stamped = nil
        var events: [JournalEvent] = []
        if let (bytes, _) = try? POSIX.readFile(path), bytes.last == 0x0A {
            for line in bytes.split(separator: 0x0A) {
                guard let event = try? JournalLine.decode(Array(line), includingCard: true) else {
                    events = []
                    break
                }
                events.append(event)
            }
        }
        var folderEvents: [JournalEvent] = []
        var notInPlace: Set<String> = []
        var withText: Set<ContentHash> = []
        for var event in events {
            switch event.operation {
            case .add, .update:
                if let live = index.live(event.uid), live.hash == event.hash, live.file == event.file { continue }
                let scanned = ScannedFile.read(directory: directory, name: event.file)
                guard let card = scanned.cards.first(where: { $0.hash == event.hash }) else {
                    notInPlace.insert(event.uid)
                    continue
                }
                // The pending line left the text out: the journal gets it from the file, once
                // per version it does not hold yet (as the apply would have written it).
                if event.card == nil, let hash = event.hash, index.cardOffsets[hash] == nil, !withText.contains(hash) {
                    event.card = card.bytes
                }
                if let hash = event.hash, event.card != nil { withText.insert(hash) }
                folderEvents.append(event)
            case .delete:
                guard index.live(event.uid) != nil else { continue }
                var stillThere = false
                if POSIX.exists(directory + "/" + event.file) {
                    let scanned = ScannedFile.read(directory: directory, name: event.file)
                    stillThere = scanned.problem != nil
                        || scanned.cards.contains { $0.uid == event.uid || (event.isGeneratedUID && $0.hash == event.previousHash) }
                }
                if stillThere { notInPlace.insert(event.uid) } else { folderEvents.append(event) }
            default:
                continue
            }
        }
        var recorded = 0
        if !folderEvents.isEmpty {
            // The journal never got this apply's lines: its conflict versions and sync states
            // too, but not the sync state of a version that is not in its file.
            let otherContent = events.filter { ![.add, .update, .delete, .synced].contains($0.operation) }
            let syncStates = events.filter { $0.operation == .synced && !notInPlace.contains($0.uid) }
            recorded = folderEvents.count
            try await record(folderEvents + otherContent + syncStates)
            openingNotes.append("recorded \(recorded) change\(recorded == 1 ? "" : "s") a sync had made in the folder before it was interrupted")
            logger.notice("finished an interrupted sync's apply", metadata: ["changes": "\(recorded)", "left": "\(notInPlace.count)"])
        }
        _ = unlink(path)
        return recorded
    }

    /// The bytes of `file` without the card of `record`, when every other card can be written
    /// back as it was.
    private func remainingCards(of file: String, without record: ContactRecord) -> [UInt8]? {
        guard let (bytes, _) = try? POSIX.readFile(directory + "/" + file),
              let result = try? VCardReader.read(bytes, sourceName: file) else { return nil }
        let writer = VCardWriter()
        var total = 0
        var remaining: [UInt8] = []
        var removed = false
        for card in result.cards {
            let cardBytes = writer.bytes(for: card)
            total += cardBytes.count
            let matches = record.isGeneratedUID ? (card.normalizedUID == nil && ContentHash(of: card) == record.hash)
                : card.normalizedUID == record.uid
            if matches && !removed {
                removed = true
                continue
            }
            remaining.append(contentsOf: cardBytes)
        }
        guard removed, total == bytes.count else { return nil }
        return remaining
    }

    /// The file name recorded with sync events of a contact this book never held.
    static func placeholderFile(for uid: String) -> String {
        SafeFileName.name(forUID: uid) ?? "remote.vcf"
    }
}

extension AddressBook {
    /// A stable identifier of this address book (a UUID kept in `.cardsync/book-id`, made the
    /// first time it is asked for): names the book's checkpoints on servers.
    public var identifier: String {
        let path = metaDirectory + "/book-id"
        func stored() -> String? {
            guard let (bytes, _) = try? POSIX.readFile(path) else { return nil }
            let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return text.isEmpty ? nil : text
        }
        if let id = stored() { return id }
        let id = UUID().uuidString.lowercased()
        try? POSIX.writeAtomically(Array((id + "\n").utf8), directory: metaDirectory, name: "book-id", replacing: false)
        return stored() ?? id
    }
}

extension AddressBook {
    /// When the last sync with `remote` recorded its checkpoint (milliseconds since 1970), or `nil`.
    public func lastSyncTime(remote: String) throws(ContactStoreError) -> Int64? {
        isIndexLoaded ? index.checkpointTimes[remote] : summary.checkpointTimes[remote]
    }

    /// The last sync's checkpoint event (with any remote, or with `remote`): its time, remote
    /// and the summary the sync kept with it; `nil` when the book was never synced. Reads the
    /// journal.
    public func lastSync(remote: String? = nil) throws(ContactStoreError) -> JournalEvent? {
        var last: JournalEvent?
        try JournalFile.read(journalPath, repairHint: repairHint) { line throws(ContactStoreError) in
            let event = line.event
            if event.operation == .checkpoint, event.checkpoint?.isEmpty == false, remote == nil || event.remote == remote { last = event }
        }
        return last
    }
}

extension AddressBook {
    /// The text of the version with content `hash`, as the journal keeps it, or `nil` when the
    /// journal no longer holds it.
    public func storedCardText(_ hash: ContentHash) throws(ContactStoreError) -> String? {
        try storedCard(hash).map { String(decoding: $0, as: UTF8.self) }
    }
}
