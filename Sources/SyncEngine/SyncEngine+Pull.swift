import ContactStore
import CouchClient
import Foundation
import JSONText
import VCardKit

extension SyncEngine {
    /// What the pull left for the push.
    struct PullOutcome {
        /// Contacts not to push this time (their remote document could not be read, or their
        /// change waits for the next sync).
        var skipped: Set<String> = []
        /// For a dry run: the changes the address book would take, in order, so the push can be
        /// planned over the sync state they would leave.
        var plannedChanges: [RemoteChange] = []
        /// For a dry run: the `keep-both` copies that would become new contacts.
        var plannedCopies: [(uid: String, bytes: [UInt8])] = []
    }

    /// Fetches the documents that changed remotely and applies them, batch by batch (each batch
    /// durable before the next is applied; the next batch is read and decoded while one is
    /// applied). `isComplete`: the feed was read from the start, so a document it does not
    /// list is not on the server at all.
    ///
    /// The documents the feed carried (``Feed/carriedThrough``: all of a short feed's) are
    /// applied first, with no request. When most of the rest is to be fetched (a first pull),
    /// its documents come from one streamed `_changes?include_docs=true&style=all_docs`
    /// response read as it arrives (``ChangesFeedReader``) from where the carried rows end;
    /// otherwise, and for any document the stream did not give (too large, or gone), by key
    /// from `_all_docs`.
    func pull(_ feed: Feed, isComplete: Bool, since: CouchSequence?, states: [String: RemoteSyncState],
              report: inout SyncReport) async throws -> PullOutcome {
        var outcome = PullOutcome()
        // Nothing changed since the checkpoint: nothing to fetch, and no emptied side to refuse.
        if feed.changes.isEmpty && !isComplete { return outcome }
        let candidates = feed.changes.filter { change in
            guard let uid = ContactDocument.uid(fromDocumentID: change.id) else { return false }
            if let state = states[uid], change.revisions == [state.revision] { return false }
            return true
        }
        try await checkRemoteEmptied(candidates, listed: isComplete ? Set(feed.changes.map(\.id)) : nil)
        // The records of the contacts the pull may change: not the whole book's.
        let records = await book.records(for: candidates.compactMap { ContactDocument.uid(fromDocumentID: $0.id) })
        guard !candidates.isEmpty else { return outcome }
        var done = 0
        let carried = candidates.filter { $0.document != nil }
        if !carried.isEmpty {
            try await pullBatches(from: CarriedDocuments(carried.map(FetchedDocument.init), batchSize: options.pullBatchSize),
                                  total: candidates.count, done: &done, states: states, records: records,
                                  outcome: &outcome, report: &report)
            if carried.count == candidates.count { return outcome }
        }
        let uncarried = candidates.filter { $0.document == nil }
        var leftovers = uncarried.map(\.id)
        if uncarried.count > 1 && uncarried.count * 2 >= feed.changes.count(where: { $0.document == nil }) {
            let start = feed.carriedThrough ?? since ?? .zero
            let streamed = StreamedFetch(feed: database.changesFeed(ChangesRequest(since: start, includeDocuments: true,
                                                                                   allRevisions: true, conflicts: true),
                                                                    maximumRowBytes: options.maximumStreamedRowBytes),
                                         wanted: Set(leftovers), batchSize: options.pullBatchSize)
            try await pullBatches(from: streamed, total: candidates.count, done: &done, states: states, records: records,
                                  outcome: &outcome, report: &report)
            let wanted = await streamed.wanted
            leftovers = leftovers.filter { wanted.contains($0) }
        }
        if !leftovers.isEmpty {
            let keyed = KeyedFetch(database: database, keys: leftovers, batchSize: options.batchSize)
            try await pullBatches(from: keyed, total: candidates.count, done: &done, states: states, records: records,
                                  outcome: &outcome, report: &report)
        }
        return outcome
    }

    /// The first pull into a blank book (``AddressBook/isBlank(remote:)``), which takes every
    /// contact document of the server: the documents come from one streamed
    /// `_changes?include_docs=true` response read from the start, with no listing of the
    /// feed's ids and revisions first (a request, and a pass over every change, that cost a tenth
    /// of a large first pull and held every id in memory). There is nothing here to compare
    /// them with and no side to guard against emptying. Should the stream pass rows over (larger
    /// than a row may be), the feed is listed after all and what the stream did not give is
    /// fetched by key.
    ///
    /// - Returns: the feed position the checkpoint may take, and what the pull left for the push.
    func pullIntoBlankBook(report: inout SyncReport) async throws -> (lastSequence: CouchSequence?, outcome: PullOutcome) {
        var outcome = PullOutcome()
        let reader = database.changesFeed(ChangesRequest(since: .zero, includeDocuments: true, allRevisions: true, conflicts: true),
                                          maximumRowBytes: options.maximumStreamedRowBytes)
        let streamed = WholeFeedFetch(feed: reader, batchSize: options.pullBatchSize)
        var done = 0
        try await pullBatches(from: streamed, total: nil, done: &done, states: [:], records: [:], outcome: &outcome, report: &report)
        let checkpoint = await streamed.checkpoint
        if await reader.skippedRowCount > 0 {
            let taken = await streamed.taken
            let listed = try await readFeed(since: nil)
            let leftovers = listed.changes.map(\.id).filter { !taken.contains($0) }
            logger.debug("rows too large for the stream; fetching them by key", metadata: ["documents": "\(leftovers.count)"])
            let keyed = KeyedFetch(database: database, keys: leftovers, batchSize: options.batchSize)
            try await pullBatches(from: keyed, total: nil, done: &done, states: [:], records: [:], outcome: &outcome, report: &report)
        }
        return (checkpoint, outcome)
    }

    /// Applies the batches of `source` until it has none left, reading and decoding the next
    /// batch while one is applied.
    private func pullBatches(from source: some PullSource, total: Int?, done: inout Int, states: [String: RemoteSyncState],
                             records: [String: ContactRecord], outcome: inout PullOutcome, report: inout SyncReport) async throws {
        func fetch() -> Task<(rows: [FetchedDocument], decoded: [Result<ContactDocument.Decoded, ContactDocument.DocumentProblem>?]), any Error> {
            Task {
                let rows = try await source.nextBatch()
                return (rows, await Self.decodeInParallel(rows))
            }
        }
        var pending = fetch()
        defer { pending.cancel() }
        while true {
            let (rows, decoded) = try await pending.value
            if rows.isEmpty { return }
            pending = fetch()
            try await apply(rows, decoded: decoded, states: states, records: records, outcome: &outcome, report: &report)
            done += rows.count
            options.progress?(SyncProgress(phase: .pulling, done: done, total: total))
        }
    }

    /// Applies one batch of fetched documents (durably, unless a dry run plans them).
    private func apply(_ rows: [FetchedDocument], decoded: [Result<ContactDocument.Decoded, ContactDocument.DocumentProblem>?],
                       states: [String: RemoteSyncState], records: [String: ContactRecord],
                       outcome: inout PullOutcome, report: inout SyncReport) async throws {
        var changes: [RemoteChange] = []
        var settlements: [(uid: String, settlement: Settlement)] = []
        for (rowIndex, row) in rows.enumerated() {
            guard let uid = ContactDocument.uid(fromDocumentID: row.id) else { continue }
            let state = states[uid]
            let side: RemoteSide
            if row.isGone {
                continue  // gone since the feed was read (purged); nothing to apply
            } else if row.isDeleted || row.document == nil {
                guard let revision = row.revision else { continue }
                side = .deleted(revision: revision)
            } else {
                let document = row.document!
                if let conflicts = document["_conflicts"]?.arrayValue, !conflicts.isEmpty {
                    let settlement = try await settleConflictedDocument(uid: uid, document: document,
                                                                        losing: conflicts.compactMap(\.stringValue),
                                                                        record: records[uid], state: state, report: &report)
                    if let settlement { settlements.append((uid, settlement)) } else { outcome.skipped.insert(uid) }
                    continue
                }
                switch decoded[rowIndex] {
                case .success(let value)?:
                    side = .live(value)
                case .failure(let error)?:
                    report.problems.append(.init(subject: row.id, name: document["fn"]?.stringValue,
                                                 message: "\(error.message); the document was left as it is, and the local contact is not pushed over it"))
                    outcome.skipped.insert(uid)
                    continue
                case nil:
                    continue
                }
            }
            if let state, state.revision == side.revision { continue }
            let settlement = await settle(uid: uid, remoteSide: side, record: records[uid], state: state) {
                await book.contact(uid: uid)
            }
            settlements.append((uid, settlement))
        }
        for (_, settlement) in settlements { changes.append(contentsOf: settlement.changes) }
        var deferred: Set<String> = []
        if options.dryRun {
            outcome.plannedChanges.append(contentsOf: changes)
            outcome.plannedCopies.append(contentsOf: settlements.compactMap { $0.settlement.keepBothCopy })
        } else {
            let applied = try await book.applyRemote(changes, remote: remote)
            for item in applied.deferred {
                deferred.insert(item.uid)
                outcome.skipped.insert(item.uid)
                report.problems.append(.init(subject: item.uid, name: records[item.uid]?.name, message: "\(item.file): \(item.reason)"))
            }
            let copies = settlements.compactMap { $0.settlement.keepBothCopy }
            if !copies.isEmpty {
                let sources = copies.map { ContactSource.bytes($0.bytes, name: "keep-both copy \($0.uid)") }
                _ = try await book.importContacts(from: sources, onDuplicate: .keep)
            }
        }
        for (uid, settlement) in settlements where !deferred.contains(uid) {
            if let pulled = settlement.pulled { report.pulled.append(pulled) }
            if let conflict = settlement.conflict { report.conflicts.append(conflict) }
            if settlement.matched { report.matched += 1 }
        }
    }

    /// Decodes the live, conflict-free documents of `rows` (parsing and hashing each card) on all cores.
    static func decodeInParallel(_ rows: [FetchedDocument]) async -> [Result<ContactDocument.Decoded, ContactDocument.DocumentProblem>?] {
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
        let chunk = max(1, (rows.count + workers - 1) / workers)
        return await withTaskGroup(of: (Int, [Result<ContactDocument.Decoded, ContactDocument.DocumentProblem>?]).self) { group in
            for start in stride(from: 0, to: rows.count, by: chunk) {
                let slice = Array(rows[start..<min(start + chunk, rows.count)])
                group.addTask {
                    (start, slice.map { row -> Result<ContactDocument.Decoded, ContactDocument.DocumentProblem>? in
                        guard !row.isGone, !row.isDeleted, let document = row.document,
                              (document["_conflicts"]?.arrayValue ?? []).isEmpty else { return nil }
                        do throws(ContactDocument.DocumentProblem) { return .success(try ContactDocument.decode(document)) } catch { return .failure(error) }
                    })
                }
            }
            var results = [Result<ContactDocument.Decoded, ContactDocument.DocumentProblem>?](repeating: nil, count: rows.count)
            for await (start, part) in group {
                for (offset, value) in part.enumerated() { results[start + offset] = value }
            }
            return results
        }
    }

    /// Refuses to apply a feed that deletes every contact of the last sync while this book
    /// still holds them (the server was emptied), unless forced; and refuses a server that holds
    /// none of them at all (its database was deleted or replaced: `listed`, the ids of a feed
    /// read from the start, names none of them).
    private func checkRemoteEmptied(_ candidates: [Change], listed: Set<String>?) async throws {
        guard !options.force else { return }
        // A live document on the remote means it is not emptied: decided before visiting every state.
        guard !candidates.contains(where: { !$0.isDeleted }) else { return }
        let states = await syncStates()
        let records = await book.records(for: states.keys)
        let heldAndSynced = states.filter { $0.value.hash != nil && records[$0.key]?.hash != nil }
        guard heldAndSynced.count > 1 else { return }
        var deletions = 0
        for change in candidates where change.isDeleted {
            if let uid = ContactDocument.uid(fromDocumentID: change.id), heldAndSynced[uid] != nil { deletions += 1 }
        }
        let absent = listed.map { listed in heldAndSynced.keys.filter { !listed.contains(ContactDocument.documentID(forUID: $0)) }.count } ?? 0
        guard deletions + absent == heldAndSynced.count else { return }
        let how = absent == 0 ? "was deleted on \(remote), which now holds none of them"
            : "is gone from \(remote) (deleted there, or its database was deleted or replaced)"
        throw SyncError(.emptiedSide,
                        "every contact of the last sync (\(heldAndSynced.count)) \(how); refusing to delete them all here. "
                        + "To put this book's contacts back on the server, run `cardsync sync \(book.directory) --reset` "
                        + "(it forgets the sync state with this remote and matches contacts by content: contacts only here are pushed, "
                        + "none is deleted on either side); to delete them here too, run again with --force")
    }

    /// Settles a document that already has conflicting leaves (made by other replicators):
    /// picks one version by policy, keeps the others in the journal, deletes the losing leaves.
    private func settleConflictedDocument(uid: String, document: JSONObject, losing: [String], record: ContactRecord?,
                                          state: RemoteSyncState?, report: inout SyncReport) async throws -> Settlement? {
        let winner: ContactDocument.Decoded
        do {
            winner = try ContactDocument.decode(document)
        } catch {
            report.problems.append(.init(subject: ContactDocument.documentID(forUID: uid), name: document["fn"]?.stringValue,
                                         message: "\(error.message); its conflicts were left for another client to settle"))
            return nil
        }
        var leaves = [winner]
        for revision in losing {
            if let leaf = try? await database.document(id: ContactDocument.documentID(forUID: uid), revision: revision),
               let decoded = try? ContactDocument.decode(leaf) {
                leaves.append(decoded)
            }
        }
        // The remote version by policy among the leaves (the server's own winner for `remote`).
        var chosen = winner
        if options.policy != .remote {
            for leaf in leaves.dropFirst() {
                let (pick, _) = resolver.winner(local: ConflictSide(card: leaf.card, edited: leaf.editTime),
                                                remote: ConflictSide(card: chosen.card, edited: chosen.editTime))
                if pick == .local { chosen = leaf }
            }
        }
        // Delete the losing leaves; when the chosen version is not the server's winner, write it over the winner.
        var writes: [JSONObject] = losing.map { ContactDocument.tombstone(uid: uid, revision: $0, updated: chosen.updated ?? 0) }
        if chosen.revision != winner.revision {
            var document = ContactDocument.document(uid: uid, bytes: chosen.bytes, card: chosen.card, hash: chosen.hash,
                                                    revision: winner.revision, updated: chosen.updated ?? 0, edited: chosen.edited)
            document["_rev"] = .string(winner.revision)
            writes.append(document)
        }
        var settledSide = chosen
        if !options.dryRun {
            let results = try await database.bulkDocuments(writes)
            report.ownWrites += results.filter(\.isSuccess).count
            if chosen.revision != winner.revision, let written = results.last, written.isSuccess, let revision = written.revision {
                settledSide.revision = revision
            } else if chosen.revision != winner.revision {
                report.problems.append(.init(subject: ContactDocument.documentID(forUID: uid), name: chosen.card.formattedName,
                                             message: "its conflicts could not be settled now (\(results.last?.error ?? "no answer")); the next sync tries again"))
                return nil
            }
        }
        var settlement = await settle(uid: uid, remoteSide: .live(settledSide), record: record, state: state) {
            await book.contact(uid: uid)
        }
        for leaf in leaves where leaf.hash != settledSide.hash {
            settlement.changes.insert(.keptVersion(RemoteVersion(uid: uid, bytes: leaf.bytes, hash: leaf.hash, name: leaf.card.formattedName,
                                                                 isGeneratedUID: leaf.isGeneratedUID, revision: leaf.revision,
                                                                 edited: leaf.editTime)), at: 0)
        }
        var conflict = settlement.conflict ?? SyncReport.Conflict(uid: uid, name: chosen.card.formattedName ?? uid, winner: .remote,
                                                                  reason: "the server held \(leaves.count) conflicting versions; \(options.policy.rawValue) picked one")
        conflict.removedRevisions = losing
        settlement.conflict = conflict
        return settlement
    }
}
