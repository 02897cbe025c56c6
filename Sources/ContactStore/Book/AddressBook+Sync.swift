#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import Foundation
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
        index.syncStates[remote]?.dictionary ?? [:]
    }

    /// The last synced states with `remote` of the contacts among `uids` that have one, by UID:
    /// looked up one by one, not every contact's.
    public func syncStates(remote: String, uids: some Sequence<String>) -> [String: RemoteSyncState] {
        index.syncStates[remote]?.entries(for: uids) ?? [:]
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
        return index.syncedCounts[remote] ?? 0
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

    /// Makes room in the index for `count` more contacts with sync state on `remote`: a first
    /// pull that knows how many documents the remote holds (its `doc_count`) then fills maps
    /// that do not grow and rehash as they fill (at 100,000 contacts the last growth rehashed
    /// every map at once, on one core, near the pull's end). At most
    /// ``largestCapacityReserved`` are reserved, so a count that is wrong costs no more.
    public func reserveCapacity(forAdding count: Int, remote: String) {
        index.reserveCapacity(forAdding: min(max(0, count), Self.largestCapacityReserved), remote: remote)
    }

    /// The most contacts ``reserveCapacity(forAdding:remote:)`` makes room for.
    public static let largestCapacityReserved = 250_000

    /// Whether the book never held a contact (no record, live or deleted) and has no sync state
    /// with `remote`: a first pull into it takes every contact document the remote has.
    public func isBlank(remote: String) -> Bool {
        index.records.isEmpty && (index.syncStates[remote]?.isEmpty ?? true)
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

    /// The contacts of `records` as their files hold them now, for `names` (the pending records
    /// of a push), and the records whose file no longer holds the version they describe (changed
    /// in the folder since the book recorded it: the next scan records the new version).
    ///
    /// A file of one contact in plain 3.0 or 4.0 text, carrying the record's UID, whose stamp is
    /// the one the book took when it recorded that version, is read for `names` only. Any other
    /// contact — its file changed since, or written too shortly before that record to tell, or
    /// holding other cards — is read whole, and kept only when its card still has the recorded
    /// content hash: what a push sends with that hash is then always the text it was computed
    /// from. A contact whose file cannot be read is in neither list.
    public func storedContacts(records: [ContactRecord], selecting names: Set<String>)
        -> (contacts: [StoredContact], changed: [ContactRecord]) {
        let directory = self.directory
        let wanted = names.union(["UID"])
        let recordedStamps = records.map { index.stamps[$0.file] }
        let read = Parallel.map(Array(records.indices), minimumPerWorker: 16) { position -> StoredContact? in
            let record = records[position]
            guard !record.isGeneratedUID, let recorded = recordedStamps[position],
                  let (bytes, stamp) = try? POSIX.readFile(directory + "/" + record.file), stamp == recorded else { return nil }
            return Self.plainContact(bytes, record: record, wanted: wanted, directory: directory, names: names)
        }
        var contacts = read.compactMap { $0 }
        let others = zip(records, read).filter { $0.1 == nil }.map(\.0)
        var changed: [ContactRecord] = []
        if !others.isEmpty {
            let whole = Dictionary(storedContacts(uids: others.map(\.uid)).map { ($0.uid, $0) }, uniquingKeysWith: { first, _ in first })
            // A card without a UID of its own was found by its recorded hash already.
            let hashes = Parallel.map(others, minimumPerWorker: 16) { record in
                record.isGeneratedUID ? record.hash : whole[record.uid].map { ContentHash(of: $0.card) }
            }
            for (record, hash) in zip(others, hashes) {
                guard let hash, let contact = whole[record.uid] else { continue }
                if hash == record.hash { contacts.append(contact) } else { changed.append(record) }
            }
        }
        return (contacts, changed)
    }

    // MARK: - Applying remote changes

    /// Applies changes from `remote`: writes each new version into the folder (every file
    /// written under a temporary name, all synced at once, then moved into place), removes
    /// deleted contacts, then records the content events and the sync state in the journal
    /// with one sync. A contact whose file changed since the last scan is not touched (the next
    /// sync sees the local edit).
    public func applyRemote(_ changes: [RemoteChange], remote: String) async throws(ContactStoreError) -> RemoteApplyReport {
        var report = RemoteApplyReport()
        struct Write { var uid: String; var file: String; var bytes: [UInt8]; var replacing: Bool; var previousFile: String? = nil }
        var writes: [Write] = []
        var removals: [String] = []
        var rewrites: [(file: String, bytes: [UInt8])] = []
        var contentEvents: [JournalEvent] = []
        var syncEvents: [JournalEvent] = []
        contentEvents.reserveCapacity(changes.count)
        syncEvents.reserveCapacity(changes.count)
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
        // A contact leaves a file it shares with others: the file is rewritten without its card,
        // starting from what earlier changes of this apply left of it.
        func leave(_ record: ContactRecord) -> Bool {
            let earlier = rewrites.firstIndex { $0.file == record.file }
            guard let bytes = earlier.map({ rewrites[$0].bytes }) ?? (try? POSIX.readFile(directory + "/" + record.file).bytes),
                  let remaining = remainingCards(of: bytes, file: record.file, without: record) else { return false }
            if let earlier { rewrites[earlier].bytes = remaining } else { rewrites.append((record.file, remaining)) }
            return true
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
                        guard leave(existing) else {
                            defer_(version.uid, existing.file, "its file holds other contacts and cannot be rewritten without it")
                            continue
                        }
                        file = freshFileName(for: version.uid, taken: takenFiles, checkingFolder: false)
                        previousFile = existing.file
                        writes.append(Write(uid: version.uid, file: file, bytes: version.bytes, replacing: false, previousFile: existing.file))
                    } else {
                        file = existing.file
                        writes.append(Write(uid: version.uid, file: file, bytes: version.bytes, replacing: true))
                    }
                } else {
                    // Not checked against the folder one by one here: every new file's name is
                    // checked below, on every core, before anything is written.
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
                        guard leave(existing) else {
                            defer_(uid, existing.file, "its file holds other contacts and cannot be rewritten without it")
                            continue
                        }
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

        // A shared file whose every card left in this apply goes.
        for rewrite in rewrites where rewrite.bytes.isEmpty { removals.append(rewrite.file) }
        rewrites.removeAll { $0.bytes.isEmpty }

        // A contact that goes to a new file is written straight under its name, which no file
        // may hold: the names are checked (on every core) before the pending lines name them, so
        // that a file the book does not track (one it cannot read, or one made since the scan)
        // is never named there, let alone replaced.
        func renameWrite(at position: Int, to fresh: String) {
            let old = writes[position].file
            let uid = writes[position].uid
            for i in contentEvents.indices where contentEvents[i].file == old && contentEvents[i].uid == uid { contentEvents[i].file = fresh }
            for i in syncEvents.indices where syncEvents[i].file == old && syncEvents[i].uid == uid { syncEvents[i].file = fresh }
            writes[position].file = fresh
        }
        let newFiles = writes.indices.filter { !writes[$0].replacing }
        let freeNames = namesFreeInFolder(newFiles.map { (writes[$0].file, writes[$0].uid) }, taken: &takenFiles)
        for (position, name) in zip(newFiles, freeNames) where name != writes[position].file {
            renameWrite(at: position, to: name)
        }

        // The journal lines this apply will write, set down before any file is written: a run
        // killed after the files but before the journal has them leaves them to the next opening
        // (``finishInterruptedApply()``), which records the files they vouch for and sets aside
        // a new file it finds half written.
        let pendingApply = metaDirectory + "/" + Self.pendingApplyName
        let touchesFolder = !writes.isEmpty || !rewrites.isEmpty || !removals.isEmpty
        func writePendingApply() throws(ContactStoreError) {
            // Journal lines in form (the journal gives them their real numbers and time). An
            // added or updated version's text is left out: it is the file this apply writes, and
            // the next opening reads it from there (``finishInterruptedApply()``) — so the pending
            // lines do not write every pulled card a second time. A conflict version is in no
            // file and keeps its text. Encoded on every core, as the journal encodes its lines,
            // from the events where they are (numbered and timed as arguments, not in copies).
            let now = clock.now()
            func lines(_ events: [JournalEvent], from first: Int) -> [[UInt8]] {
                Parallel.map(Array(events.indices), minimumPerWorker: 64) { position in
                    let operation = events[position].operation
                    return JournalLine.encode(events[position], sequence: first + position, timestamp: now,
                                              schemaVersion: JournalEvent.currentSchemaVersion,
                                              includingCard: operation != .add && operation != .update)
                }
            }
            let lines = lines(contentEvents, from: 1) + lines(syncEvents, from: contentEvents.count + 1)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(lines.reduce(0) { $0 + $1.count })
            for line in lines { bytes.append(contentsOf: line) }
            _ = unlink(pendingApply)
            try POSIX.createFile(pendingApply, bytes, mode: 0o600)
        }
        if touchesFolder {
            try writePendingApply()
            // Durable before a file is written under its own name: whatever of this apply a
            // crash leaves in the folder, the pending lines name it.
            if !newFiles.isEmpty || (writes.isEmpty && rewrites.isEmpty) {
                try POSIX.sync(pendingApply)
                try POSIX.sync(metaDirectory)
            }
        }

        // Nothing of this apply is kept: the new files it wrote go (the checkpoint stays, so the
        // next sync pulls them again), and the pending lines with them.
        func abandon(removing created: [String], _ error: ContactStoreError) -> ContactStoreError {
            for file in created { unlink(directory + "/" + file) }
            _ = unlink(pendingApply)
            return error
        }

        // Folder first, on every core: the new files under their names, the temporary files of
        // those replaced; then one file-system sync, then the replacements moved into place.
        var renamesInFolder = !removals.isEmpty
        var createdStamps: [String: FileStamp] = [:]
        if !writes.isEmpty || !rewrites.isEmpty {
            let created = POSIX.createNewFiles(newFiles.map { (name: writes[$0].file, bytes: writes[$0].bytes) }, in: directory,
                                               name: { $0.name }, bytes: { $0.bytes })
            var failure: ContactStoreError?
            var appeared: Set<Int> = []
            for (position, result) in zip(newFiles, created) {
                if let stamp = result.stamp {
                    createdStamps[writes[position].file] = stamp
                    continue
                }
                let result = result.errorNumber
                if result == EEXIST {
                    // Made by another program since the names were checked: left for the next sync.
                    appeared.insert(position)
                } else if failure == nil {
                    failure = .io(directory + "/" + writes[position].file, "cannot create", errno: result)
                }
            }
            if failure == nil, let moving = appeared.first(where: { writes[$0].previousFile != nil }) {
                // Its card is leaving a shared file that this apply rewrites along with others:
                // nothing of this apply is kept rather than leave that file half changed.
                failure = ContactStoreError(code: .stale, message: "a file of this name appeared in the folder during the sync; nothing was "
                                                + "changed, run the sync again", path: directory + "/" + writes[moving].file)
            }
            if let failure {
                throw abandon(removing: zip(newFiles, created).filter { $0.1.stamp != nil }.map { writes[$0.0].file }, failure)
            }
            if !appeared.isEmpty {
                let left = Set(appeared.map { writes[$0].uid })
                for position in appeared.sorted() {
                    defer_(writes[position].uid, writes[position].file, "a file of that name appeared in the folder during the sync")
                }
                contentEvents.removeAll { left.contains($0.uid) }
                syncEvents.removeAll { left.contains($0.uid) }
                writes = writes.enumerated().filter { !appeared.contains($0.offset) }.map(\.element)
            }
            let replaced = writes.filter(\.replacing).map { (name: $0.file, bytes: $0.bytes) } + rewrites.map { (name: $0.file, bytes: $0.bytes) }
            do {
                try POSIX.createTemporaryFiles(replaced, in: directory, name: { $0.name }, bytes: { $0.bytes })
                try POSIX.syncFileSystem(containing: directory)
            } catch {
                // Nothing replaced is in place yet.
                throw abandon(removing: writes.filter { !$0.replacing }.map(\.file), error)
            }
            for file in replaced {
                // Linked aside first, so that the rename does not wait for the old file to be freed.
                releasedFiles.keep(directory + "/" + file.name)
                try POSIX.commit(temporary: directory + "/" + POSIX.temporaryName(for: file.name), to: directory + "/" + file.name, replacing: true)
            }
            renamesInFolder = renamesInFolder || !replaced.isEmpty
        }
        for file in removals {
            let result = releasedFiles.release(directory + "/" + file)
            guard result == 0 || result == ENOENT else { throw .io(directory + "/" + file, "cannot remove", errno: result) }
        }
        // The old files are freed while the journal is written and the checkpoint saved.
        releasedFiles.freeInBackground()
        if touchesFolder {
            // The file-system sync above made the new files durable; moves and removals need the folder's.
            if renamesInFolder { try POSIX.sync(directory) }
            CrashPoint.reach(CrashPoint.pullAppliedToFolder)
        }

        // Then the journal: content events before the sync state they lead to, one sync. The
        // content events are moved into the lines to write, not copied.
        var events: [JournalEvent] = []
        swap(&events, &contentEvents)
        events.append(contentsOf: syncEvents)
        syncEvents = []
        let written = try await record(consume events)
        if touchesFolder { _ = unlink(pendingApply) }
        stampWrittenFiles(writes.map(\.file) + rewrites.map(\.file), known: createdStamps)
        for position in written.indices where written[position].operation != .synced {
            report.events.append(written[position].withoutCard)
        }
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
                    // A new file the apply was writing when it was killed: set aside, not left for
                    // the scan to take for the user's (the server still has the whole version).
                    if index.uidsByFile[event.file] == nil, Self.isHalfWritten(directory + "/" + event.file) {
                        try setAsideHalfWrittenFile(event.file)
                    }
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

    /// Whether the file at `path` is there but ends before the end of a card (empty, or not
    /// ending in `END:VCARD` and white space): what a write cut short leaves. A pulled version
    /// always ends in `END:VCARD`.
    static func isHalfWritten(_ path: String) -> Bool {
        guard let (bytes, _) = try? POSIX.readFile(path, maximumBytes: ScannedFile.maximumFileBytes) else { return false }
        var end = bytes.count
        while end > 0, [0x20, 0x09, 0x0D, 0x0A].contains(bytes[end - 1]) { end -= 1 }
        let tail = Array("END:VCARD".utf8)
        guard end >= tail.count else { return true }
        return !zip(bytes[(end - tail.count)..<end], tail).allSatisfy { ($0 | 0x20) == ($1 | 0x20) }
    }

    /// Moves `file`, a new file an interrupted pull or import left half written, to
    /// `.cardsync/half-written/` (kept, never deleted) and says so in ``openingNotes``.
    func setAsideHalfWrittenFile(_ file: String) throws(ContactStoreError) {
        let folder = metaDirectory + "/" + Self.halfWrittenFolderName
        try POSIX.makeDirectory(folder, mode: 0o700)
        var target = folder + "/" + file
        if POSIX.exists(target) { target = folder + "/" + UUID().uuidString.lowercased() + "-" + file }
        guard rename(directory + "/" + file, target) == 0 else {
            throw .io(directory + "/" + file, "cannot set aside a file an interrupted sync or import left half written", errno: errno)
        }
        try POSIX.sync(directory)
        openingNotes.append("set aside \(file), which an interrupted sync or import had left half written, in \(target); "
                            + "sync or import again to write that contact again")
        logger.notice("set aside a half-written file", metadata: ["file": "\(file)", "to": "\(target)"])
    }

    /// `.cardsync/half-written/`: where new files an interrupted pull or import left half written are kept.
    static let halfWrittenFolderName = "half-written"

    /// `bytes` (those of `file`, as read or as this apply already rewrote them) without the card
    /// of `record`, when every other card can be written back as it was; empty when it was the
    /// last.
    private func remainingCards(of bytes: [UInt8], file: String, without record: ContactRecord) -> [UInt8]? {
        guard let result = try? VCardReader.read(bytes, sourceName: file) else { return nil }
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
        if let id = Self.storedIdentifier(metaDirectory: metaDirectory) { return id }
        let id = UUID().uuidString.lowercased()
        try? POSIX.writeAtomically(Array((id + "\n").utf8), directory: metaDirectory, name: "book-id", replacing: false)
        return Self.storedIdentifier(metaDirectory: metaDirectory) ?? id
    }

    /// The ``identifier`` of the book at `url`, read without opening it (no lock taken); `nil`
    /// when it has none yet (it never synced) or is no book.
    public static func storedIdentifier(ofBookAt url: URL) -> String? {
        storedIdentifier(metaDirectory: normalize(url) + "/.cardsync")
    }

    /// The identifier kept in `.cardsync/book-id`, or `nil` when there is none yet.
    static func storedIdentifier(metaDirectory: String) -> String? {
        guard let (bytes, _) = try? POSIX.readFile(metaDirectory + "/book-id") else { return nil }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
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
