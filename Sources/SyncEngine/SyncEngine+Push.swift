import ContactStore
import CouchClient
import JSONText
import VCardKit

extension SyncEngine {
    /// A local change to send.
    struct PendingPush: Sendable {
        var record: ContactRecord
        var state: RemoteSyncState?
        var isDeletion: Bool { record.hash == nil }
    }

    /// What one `_bulk_docs` batch did.
    struct BatchOutcome: Sendable {
        var synced: [(uid: String, state: RemoteSyncState)] = []
        var pushed: [SyncReport.Change] = []
        var conflicts: [PendingPush] = []
        var problems: [SyncReport.Problem] = []
    }

    /// The local changes since the last sync: contacts whose content is not the synced one,
    /// and deletions of contacts the remote still holds.
    func pendingPushes(records: [ContactRecord], states: [String: RemoteSyncState], skipping: Set<String>) -> [PendingPush] {
        var pending: [PendingPush] = []
        for record in records where !skipping.contains(record.uid) {
            let state = states[record.uid]
            if let hash = record.hash {
                if state?.hash != hash { pending.append(PendingPush(record: record, state: state)) }
            } else if let state, state.hash != nil {
                pending.append(PendingPush(record: record, state: state))
            }
        }
        return pending.sorted { $0.record.uid < $1.record.uid }
    }

    /// The sync state and records a dry run's pull would leave: `changes` applied to `states`
    /// and `records` in memory, the way ``AddressBook/applyRemote(_:remote:)`` records them.
    static func planned(_ changes: [RemoteChange], states: [String: RemoteSyncState],
                        records: [ContactRecord]) -> (states: [String: RemoteSyncState], records: [ContactRecord]) {
        var states = states
        var byUID = Dictionary(records.map { ($0.uid, $0) }, uniquingKeysWith: { first, _ in first })
        var touched: Set<String> = []
        for change in changes {
            switch change {
            case .version(let version):
                guard touched.insert(version.uid).inserted else { continue }
                byUID[version.uid]?.hash = version.hash
                states[version.uid] = RemoteSyncState(revision: version.revision, hash: version.hash)
            case .deletion(let uid, let revision):
                guard touched.insert(uid).inserted else { continue }
                byUID[uid]?.hash = nil
                states[uid] = RemoteSyncState(revision: revision, hash: nil)
            case .inStep(let uid, let revision, let hash):
                states[uid] = RemoteSyncState(revision: revision, hash: hash)
            case .losingVersion(let version):
                states[version.uid] = RemoteSyncState(revision: version.revision, hash: version.hash)
            case .keptVersion:
                break
            }
        }
        return (states, Array(byUID.values))
    }

    /// Refuses to push the deletion of every contact of the last sync when the folder became
    /// empty, unless forced.
    func checkLocalEmptied() async throws {
        guard !options.force, await book.contactCount == 0 else { return }
        let states = options.reset && options.dryRun ? [:] : await book.syncStates(remote: remote)
        let records = await book.allRecords()
        let deletions = records.filter { $0.hash == nil && states[$0.uid]?.hash != nil }.count
        guard deletions > 1 else { return }
        throw SyncError(.emptiedSide,
                        "the address book \(book.directory) is empty, but \(deletions) of its contacts are on \(remote) from the last sync; refusing to delete them all there. If that is what you want, run again with --force; to get them back here, `cardsync restore` them or move the folder aside and sync into a fresh one")
    }

    /// Pushes local changes in batches, several in flight, and settles per-document conflicts.
    ///
    /// A dry run plans instead: the same pending pushes, computed over the state the planned
    /// pull would leave (``PullOutcome/plannedChanges``), plus the `keep-both` copies the pull
    /// would add, so the plan lists exactly what a real sync sends.
    func push(pull: PullOutcome, report: inout SyncReport) async throws {
        if options.dryRun {
            let states = options.reset ? [:] : await book.syncStates(remote: remote)
            let (plannedStates, records) = Self.planned(pull.plannedChanges, states: states, records: await book.allRecords())
            var plan = pendingPushes(records: records, states: plannedStates, skipping: pull.skipped).map { item in
                SyncReport.Change(uid: item.record.uid, name: item.record.name ?? item.record.uid,
                                  kind: item.isDeletion ? .delete : (item.state?.hash == nil ? .add : .update))
            }
            for copy in pull.plannedCopies {
                let name = (try? VCardReader.read(copy.bytes, sourceName: copy.uid))?.cards.first?.formattedName
                plan.append(.init(uid: copy.uid, name: name ?? copy.uid, kind: .add))
            }
            report.pushed.append(contentsOf: plan.sorted { $0.uid < $1.uid })
            return
        }
        var pending = await book.unsyncedChanges(remote: remote).filter { !pull.skipped.contains($0.record.uid) }.map {
            PendingPush(record: $0.record, state: $0.state)
        }
        for round in 0..<4 where !pending.isEmpty {
            let conflicts = try await pushBatches(pending, report: &report)
            guard !conflicts.isEmpty else { break }
            pending = try await settlePushConflicts(conflicts, finalRound: round == 3, report: &report)
        }
    }

    /// Sends the pushes in batches, at most ``SyncOptions/concurrentBatches`` in flight; records
    /// each batch's new revisions as it comes back. Returns the documents that got 409.
    private func pushBatches(_ pending: [PendingPush], report: inout SyncReport) async throws -> [PendingPush] {
        let batches = stride(from: 0, to: pending.count, by: options.batchSize).map {
            Array(pending[$0..<min($0 + options.batchSize, pending.count)])
        }
        var conflicts: [PendingPush] = []
        var done = 0
        var next = 0
        try await withThrowingTaskGroup(of: BatchOutcome.self) { group in
            func startNext() {
                guard next < batches.count else { return }
                let batch = batches[next]
                next += 1
                group.addTask { try await self.pushBatch(batch) }
            }
            for _ in 0..<options.concurrentBatches { startNext() }
            while let outcome = try await group.next() {
                try await book.recordSynced(outcome.synced, remote: remote)
                report.ownWrites += outcome.synced.count
                report.pushed.append(contentsOf: outcome.pushed)
                report.problems.append(contentsOf: outcome.problems)
                conflicts.append(contentsOf: outcome.conflicts)
                done += outcome.synced.count + outcome.conflicts.count + outcome.problems.count
                options.progress?(SyncProgress(phase: .pushing, done: done, total: pending.count))
                startNext()
            }
        }
        return conflicts
    }

    /// One `_bulk_docs` request: builds the documents (reading the cards), sends them, sorts the results.
    private func pushBatch(_ batch: [PendingPush]) async throws -> BatchOutcome {
        var outcome = BatchOutcome()
        let live = batch.filter { !$0.isDeletion }
        let read = await book.storedContacts(records: live.map(\.record), selecting: ContactDocument.propertiesRead)
        let contacts = Dictionary(read.contacts.map { ($0.uid, $0) }, uniquingKeysWith: { first, _ in first })
        // Edited in the folder since the scan: its document would pair the new text with the old
        // hash (which a pull takes beside a matching digest), so it waits for the next sync.
        let changed = Set(read.changed.map(\.uid))
        var documents: [SerializedDocument] = []
        documents.reserveCapacity(batch.count)
        var sent: [PendingPush] = []
        for item in batch {
            let uid = item.record.uid
            if item.isDeletion {
                guard let revision = item.state?.revision else { continue }
                let tombstone = ContactDocument.tombstone(uid: uid, revision: revision, updated: item.record.modified,
                                                          edited: item.record.editTime)
                documents.append(SerializedDocument(id: ContactDocument.documentID(forUID: uid), text: tombstone.serialized()))
            } else {
                if changed.contains(uid) {
                    outcome.problems.append(.init(subject: uid, name: item.record.name,
                                                  message: "\(item.record.file) changed in the folder during the sync; the next sync pushes it"))
                    continue
                }
                guard let contact = contacts[uid], let hash = item.record.hash else {
                    outcome.problems.append(.init(subject: uid, name: item.record.name,
                                                  message: "\(item.record.file) cannot be read now; it is pushed by the next sync once readable"))
                    continue
                }
                documents.append(ContactDocument.serializedDocument(uid: uid, bytes: contact.bytes, card: contact.card, hash: hash,
                                                                    revision: item.state?.revision, updated: item.record.modified,
                                                                    edited: item.record.editTime))
            }
            sent.append(item)
        }
        let results = try await database.bulkDocuments(serialized: documents)
        for (index, item) in sent.enumerated() {
            let uid = item.record.uid
            let documentID = ContactDocument.documentID(forUID: uid)
            let result = index < results.count && results[index].id == documentID ? results[index]
                : results.first { $0.id == documentID }
            guard let result else {
                outcome.problems.append(.init(subject: uid, name: item.record.name, message: "the server did not answer for this document; the next sync retries"))
                continue
            }
            if result.isSuccess, let revision = result.revision {
                outcome.synced.append((uid, RemoteSyncState(revision: revision, hash: item.record.hash)))
                outcome.pushed.append(.init(uid: uid, name: item.record.name ?? uid,
                                            kind: item.isDeletion ? .delete : (item.state?.hash == nil ? .add : .update)))
            } else if result.error == "conflict" {
                outcome.conflicts.append(item)
            } else {
                outcome.problems.append(.init(subject: uid, name: item.record.name,
                                              message: "the server refused the document (\(result.error ?? "error"): \(result.reason ?? "no reason given")); the rest of the sync went on"))
            }
        }
        return outcome
    }

    /// Settles documents that got 409: fetches the server's version and settles each by policy.
    /// Returns what must be pushed again (over the revision just read).
    private func settlePushConflicts(_ conflicts: [PendingPush], finalRound: Bool, report: inout SyncReport) async throws -> [PendingPush] {
        var again: [PendingPush] = []
        var start = 0
        while start < conflicts.count {
            let batch = Array(conflicts[start..<min(start + options.batchSize, conflicts.count)])
            start += batch.count
            let rows = try await database.allDocuments(keys: batch.map { ContactDocument.documentID(forUID: $0.record.uid) },
                                                       includeDocuments: true)
            var byID: [String: AllDocumentsRow] = [:]
            for row in rows { byID[row.key] = row }
            var changes: [RemoteChange] = []
            var settled: [(PendingPush, Settlement, isMissing: Bool)] = []
            for item in batch {
                let uid = item.record.uid
                let row = byID[ContactDocument.documentID(forUID: uid)]
                let side: RemoteSide
                if row == nil || row?.error != nil {
                    side = .missing
                } else if row!.isDeleted || row!.document == nil {
                    side = .deleted(revision: row!.revision ?? "")
                } else {
                    do {
                        side = .live(try ContactDocument.decode(row!.document!))
                    } catch {
                        report.problems.append(.init(subject: uid, name: item.record.name,
                                                     message: "the server's version cannot be read (\(error.message)); the local version was not pushed over it"))
                        continue
                    }
                }
                let record = await book.record(for: uid) ?? item.record
                // The state the local side last agreed on; a write that landed before a lost answer shows up as equal content.
                let settlement = await settle(uid: uid, remoteSide: side, record: record, state: item.state) { await book.contact(uid: uid) }
                changes.append(contentsOf: settlement.changes)
                let isMissing = if case .missing = side { true } else { false }
                settled.append((item, settlement, isMissing))
            }
            let applied = try await book.applyRemote(changes, remote: remote)
            let deferred = Set(applied.deferred.map(\.uid))
            let copies = settled.compactMap { $0.1.keepBothCopy }
            if !copies.isEmpty {
                _ = try await book.importContacts(from: copies.map { ContactSource.bytes($0.bytes, name: "keep-both copy \($0.uid)") },
                                                  onDuplicate: .keep)
            }
            for (item, settlement, isMissing) in settled where !deferred.contains(item.record.uid) {
                if let pulled = settlement.pulled { report.pulled.append(pulled) }
                if let conflict = settlement.conflict { report.conflicts.append(conflict) }
                guard settlement.pushesLocal else { continue }
                let uid = item.record.uid
                guard let record = await book.record(for: uid) else { continue }
                // A document missing on the server (a new or emptied database) is created afresh.
                let state = isMissing ? nil : await book.syncState(remote: remote, uid: uid)
                if isMissing && record.hash == nil { continue }
                if finalRound {
                    report.problems.append(.init(subject: uid, name: record.name,
                                                 message: "the server's version kept changing while this sync pushed; the next sync tries again"))
                } else {
                    again.append(PendingPush(record: record, state: state))
                }
            }
        }
        return again
    }
}
