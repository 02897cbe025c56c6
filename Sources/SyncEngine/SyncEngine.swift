public import ContactStore
public import CouchClient
import Foundation
import JSONText
public import Logging
import VCardKit

/// Two-way sync of an address book with a database on a CouchDB-compatible server, with each
/// document's `_rev` as its modification state.
///
/// One run: read the remote changes feed since the checkpoint (without bodies) → refuse if one
/// side was emptied → fetch the documents that changed → apply each to the folder when the
/// local contact is unchanged since the last sync, or settle it by the ``ConflictPolicy`` →
/// record the checkpoint (only now that those changes are durable here) → push local changes
/// with `_bulk_docs` in batches using the last known `_rev`, settling per-document conflicts →
/// save the checkpoint on the server too (`_local/cardsync-<book>`).
///
/// Every step is recorded durably before the next depends on it, so a run interrupted at any
/// point (kill -9, network loss, server restart) is finished by the next run: changes already
/// applied are recognised by revision or content hash, nothing is applied twice, and no version
/// is lost — losing versions stay in the journal.
///
/// ```swift
/// let report = try await AddressBook.withOpen(at: folder) { book in
///     try await SyncEngine(book: book, database: client.database("contacts"), remote: location.key).sync()
/// }
/// print("\(report.pulled.count) pulled, \(report.pushed.count) pushed")
/// ```
public struct SyncEngine: Sendable {
    let book: AddressBook
    let database: CouchDatabase
    let remote: String
    let options: SyncOptions
    let logger: Logger
    let resolver: ConflictResolver
    let prefetch: RemotePrefetch?

    /// A sync of `book` with `database`.
    ///
    /// - Parameters:
    ///   - book: the open address book.
    ///   - database: the remote database.
    ///   - remote: the remote's key for the journal (``RemoteLocation/key``: no credentials).
    ///   - options: policy, dry run, batches.
    ///   - logger: where the engine logs (debug level).
    ///   - prefetch: the first requests, started while `book` was opened (``RemotePrefetch``),
    ///     for the same `database`, `remote` and `options`; what they read is used when it
    ///     still applies.
    public init(book: AddressBook, database: CouchDatabase, remote: String, options: SyncOptions = SyncOptions(),
                logger: Logger = Logger(label: "cardsync.sync"), prefetch: RemotePrefetch? = nil) {
        self.book = book
        self.database = database
        self.remote = remote
        self.options = options
        self.logger = logger
        self.resolver = ConflictResolver(policy: options.policy)
        self.prefetch = prefetch
    }

    /// Runs the sync.
    ///
    /// - Returns: what was pulled, pushed, settled and reported, by name.
    /// - Throws: ``SyncError`` (unreachable remote, refused credentials, missing database,
    ///   emptied side), or `ContactStoreError` when the address book cannot be written.
    ///   Problems with single contacts or documents are in the report instead.
    public func sync() async throws -> SyncReport {
        var report = SyncReport(remote: remote)
        report.isDryRun = options.dryRun
        do {
            if options.reset && !options.dryRun { try await book.forgetSyncState(remote: remote) }
            try await checkLocalEmptied()
            let (exists, since, documentCount, serverCheckpoint, prefetchedFeed) = try await openRemote(&report)
            let feed: Feed
            let plan: PullOutcome
            if exists, since == nil, !options.dryRun, await book.isBlank(remote: remote) {
                // A first pull into a book that holds nothing: every document is wanted, and the
                // database's count of them says how many the index is about to hold.
                if let documentCount { await book.reserveCapacity(forAdding: documentCount, remote: remote) }
                let (lastSequence, outcome) = try await pullIntoBlankBook(report: &report)
                (feed, plan) = (Feed(changes: [], lastSequence: lastSequence), outcome)
            } else {
                if let prefetchedFeed {
                    feed = prefetchedFeed
                    options.progress?(SyncProgress(phase: .reading, done: feed.changes.count, total: nil))
                } else {
                    feed = exists ? try await readFeed(since: since) : Feed(changes: [], lastSequence: nil)
                }
                // Nothing changed remotely since the checkpoint: the pull needs no sync state.
                let quietFeed = feed.changes.isEmpty && since != nil
                plan = try await pull(feed, isComplete: since == nil, since: since, states: quietFeed ? [:] : await syncStates(for: feed),
                                      report: &report)
            }
            if !options.dryRun, let last = feed.lastSequence {
                let position = Self.text(of: last)
                try await book.recordCheckpoint(position, remote: remote, summary: report.summaryLine)
                report.checkpoint = position
            }
            if options.dedupe && !options.dryRun {
                let (events, _) = try await book.removeDuplicates()
                report.removedDuplicates = events.map(\.uid)
            }
            try await push(pull: plan, report: &report)
            if !options.dryRun, let start = feed.lastSequence, report.ownWrites > 0,
               let position = try await positionPastOwnWrites(start: start, writes: report.ownWrites) {
                try await book.recordCheckpoint(position, remote: remote, summary: report.summaryLine)
                report.checkpoint = position
            }
            if !options.dryRun, exists || report.createdDatabase, let position = report.checkpoint,
               since.map(Self.text(of:)) != position {
                try await saveServerCheckpoint(position, known: serverCheckpoint)
            }
        } catch let error as CouchClientError {
            throw Self.syncError(error, remote: remote)
        }
        let touched = Set(report.pulled.map(\.uid) + report.pushed.map(\.uid))
        report.duplicateGroups = touched.isEmpty ? [] : await book.duplicateGroups(touching: touched).map { group in
            group.map { SyncReport.Contact(uid: $0.uid, name: $0.name ?? $0.uid) }
        }
        // Files of the folder that could not be read: their contacts were not synced as they are now.
        let unreadFiles = (await book.openingScan?.problems ?? []).map { problem in
            SyncReport.Problem(subject: problem.file, message: problem.message,
                               file: problem.file, line: problem.line, code: problem.code)
        }
        report.problems.insert(contentsOf: unreadFiles, at: 0)
        report.localCount = await book.contactCount
        return report
    }

    /// The sync state with the remote (none for a dry run of ``SyncOptions/reset``, which
    /// plans the fresh start without recording it).
    func syncStates() async -> [String: RemoteSyncState] {
        options.reset && options.dryRun ? [:] : await book.syncStates(remote: remote)
    }

    /// The sync states of the contacts `feed` names (what the pull compares its changes with):
    /// looked up one by one, so that a feed of a few changes does not read every contact's.
    private func syncStates(for feed: Feed) async -> [String: RemoteSyncState] {
        guard !(options.reset && options.dryRun) else { return [:] }
        return await book.syncStates(remote: remote, uids: feed.changes.compactMap { ContactDocument.uid(fromDocumentID: $0.id) })
    }

    // MARK: - Database and checkpoint

    /// Makes sure the database exists (creating it when allowed); `false` for a dry run against
    /// a missing one. `documentCount`: the live documents the database reported, when it did.
    private func prepareDatabase(_ report: inout SyncReport) async throws -> (exists: Bool, documentCount: Int?) {
        do {
            return (true, try await database.info().documentCount)
        } catch let error as CouchClientError where error.status == 404 {
            if options.dryRun { return (false, nil) }
            do {
                _ = try await database.create(ignoringExisting: true)
                report.createdDatabase = true
                return (true, 0)
            } catch let error as CouchClientError where error.status == 401 || error.status == 403 {
                throw SyncError(.missingDatabase,
                                "the database \(remote) does not exist and these credentials cannot create it (\(error.status!) \(error.error ?? "")); create it on the server or give an admin's credentials")
            }
        }
    }

    /// The id of this book's checkpoint document on the server.
    var checkpointDocumentID: String {
        get async { Self.checkpointDocumentID(forBook: await book.identifier) }
    }

    /// The id of the checkpoint document of the book with ``AddressBook/identifier`` `identifier`.
    static func checkpointDocumentID(forBook identifier: String) -> String {
        "cardsync-" + identifier
    }

    /// What a run knows of its checkpoint document on the server (``checkpointDocumentID``).
    enum ServerCheckpoint: Sendable, Equatable {
        /// The run did not read it.
        case unread
        /// Read when the run began: its revision then, or `nil` when it was not there.
        case read(revision: JSONValue?)
    }

    /// Whether the database exists (creating it when allowed) and the checkpoint both sides
    /// agree on. With a checkpoint here, reading the server's copy of it shows the database
    /// exists, so a sync with nothing to do makes two requests (this and the changes feed).
    /// `documentCount`: the live documents the database reported, when it was asked;
    /// `serverCheckpoint`: what reading the server's copy found, so that saving the new position
    /// at the end does not read it again; `feed`: the changes feed since `since`, when the
    /// ``RemotePrefetch`` read it while the book was opened.
    private func openRemote(_ report: inout SyncReport) async throws
        -> (exists: Bool, since: CouchSequence?, documentCount: Int?, serverCheckpoint: ServerCheckpoint, feed: Feed?) {
        guard !(options.reset && options.dryRun), let local = await book.checkpoint(remote: remote) else {
            let (exists, documentCount) = try await prepareDatabase(&report)
            return (exists, nil, documentCount, .unread, nil)
        }
        if let prefetched = try await prefetch?.fetched(agreeingWith: local) {
            // Read while the book was opened, and still what both sides agree on.
            return (true, prefetched.since, nil, .read(revision: prefetched.revision), try prefetched.feed.get())
        }
        let serverSide = try await database.localDocument(id: await checkpointDocumentID)
        let serverCheckpoint = ServerCheckpoint.read(revision: serverSide?["_rev"])
        guard let serverSide, let stored = serverSide["last_seq"] else {
            // No checkpoint there: a missing database, or one that never saw this book.
            let (exists, documentCount) = try await prepareDatabase(&report)
            logger.debug("no checkpoint on the server; reading the changes feed from the start", metadata: ["journal": "\(local)"])
            return (exists, nil, documentCount, serverCheckpoint, nil)
        }
        guard Self.text(of: CouchSequence(stored)) == local else {
            logger.debug("checkpoints disagree; reading the changes feed from the start", metadata: ["journal": "\(local)"])
            return (true, nil, nil, serverCheckpoint, nil)
        }
        return (true, CouchSequence(stored), nil, serverCheckpoint, nil)
    }

    /// The feed position just past this sync's own writes, when they are all that changed on the
    /// server since `start` (the end of the feed this sync read): the database's update sequence
    /// then counts exactly `writes` more. Each of them is recorded here with the revision the
    /// server acknowledged, so the checkpoint can move past them and the next sync does not
    /// read them back. `nil` (the checkpoint stays) when anything else may have changed, or the
    /// sequences cannot be compared.
    private func positionPastOwnWrites(start: CouchSequence, writes: Int) async throws -> String? {
        guard let before = Self.updateCount(start) else { return nil }
        let info = try await database.info()
        guard let after = Self.updateCount(info.updateSequence), after - before == writes else {
            logger.debug("other changes landed during the push; the checkpoint stays before them")
            return nil
        }
        return Self.text(of: info.updateSequence)
    }

    /// The number of updates a feed position stands for: the number itself, or the leading
    /// number of an opaque `N-…` token (CouchDB 2 and later); `nil` for anything else.
    static func updateCount(_ sequence: CouchSequence) -> Int? {
        switch sequence.value {
        case .number(let text): return Int(text)
        case .string(let text):
            let digits = text.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count == text.count || text.dropFirst(digits.count).first == "-" else { return nil }
            return Int(digits)
        default: return nil
        }
    }

    /// Saves `position` in this book's checkpoint document on the server (`_local`, not
    /// replicated). `known`: what the run read of that document when it began; its revision is
    /// used as it is, and read again only when the server refuses it (a second writer).
    private func saveServerCheckpoint(_ position: String, known: ServerCheckpoint) async throws {
        let id = await checkpointDocumentID
        var document: JSONObject = [
            "last_seq": Self.sequence(fromText: position).value,
            "book": .string(await book.identifier),
            "updated": .string(UTCTimestamp.format(milliseconds: book.clock.now())),
        ]
        for attempt in 0..<3 {
            document["_rev"] = nil
            if attempt == 0, case .read(let revision) = known {
                // Read when this run began: not read again (one request less). Another writer
                // since then makes the server refuse the revision (409), and it is read below.
                document["_rev"] = revision
            } else if let existing = try await database.localDocument(id: id), let revision = existing["_rev"] {
                document["_rev"] = revision
            }
            do {
                try await database.putLocalDocument(id: id, document)
                return
            } catch let error as CouchClientError where error.status == 409 && attempt < 2 {
                continue
            }
        }
    }

    /// A feed position as the journal stores it: the string itself, or the JSON text of any other value.
    static func text(of sequence: CouchSequence) -> String {
        if case .string(let text) = sequence.value { return text }
        return String(decoding: sequence.value.serialized(), as: UTF8.self)
    }

    static func sequence(fromText text: String) -> CouchSequence {
        if let number = Int(text) { return CouchSequence(.integer(number)) }
        if text.hasPrefix("[") || text.hasPrefix("{"), let value = try? JSONValue(parsing: Data(text.utf8)) { return CouchSequence(value) }
        return CouchSequence(.string(text))
    }

    // MARK: - Reading the feed

    struct Feed: Sendable {
        /// The latest change per contact document, in feed order.
        var changes: [Change]
        var lastSequence: CouchSequence?
        /// How far the feed's rows carry their documents: every row up to this position was
        /// read with its document (the winner with its `_conflicts`, or a deletion's stub),
        /// which the pull applies without fetching it; a row after it has none (`nil`: no row
        /// carries one). A document listed again later in the feed is listed without it.
        var carriedThrough: CouchSequence?
    }

    /// Every contact change since `since`, the latest per document (see ``readFeed(from:since:options:progress:)``).
    func readFeed(since: CouchSequence?) async throws -> Feed {
        try await Self.readFeed(from: database, since: since, options: options, progress: options.progress)
    }

    /// The largest row the feed's first request carries whole (see
    /// ``SyncOptions/feedDocumentLimit``): a larger document is fetched as a long feed's are.
    static let largestCarriedRowBytes = 1 << 20

    /// Every contact change of `database` since `since`, the latest per document.
    ///
    /// After a checkpoint, the first ``SyncOptions/feedDocumentLimit`` rows are asked for with
    /// their documents (`include_docs=true&style=all_docs&conflicts=true`, read as they arrive),
    /// and kept with their rows (``Feed/carriedThrough``) until the response has brought
    /// ``SyncOptions/feedDocumentBytes``: when that is the whole feed — the usual case between
    /// two syncs — the pull needs no request of its own. A longer feed goes on from there in
    /// pages of ``SyncOptions/changesPageSize`` without bodies (small: ids and revisions), as
    /// does every feed read from the start, and the pull fetches only what the first request
    /// did not bring.
    static func readFeed(from database: CouchDatabase, since: CouchSequence?, options: SyncOptions,
                         progress: (@Sendable (SyncProgress) -> Void)?) async throws -> Feed {
        var latest: [String: Int] = [:]
        var changes: [Change] = []
        func take(_ change: Change) {
            guard change.id.hasPrefix(ContactDocument.idPrefix) else { return }
            if let index = latest[change.id] {
                changes[index] = change
            } else {
                latest[change.id] = changes.count
                changes.append(change)
            }
        }
        var position = since
        var last: CouchSequence?
        var carriedThrough: CouchSequence?
        if let since, options.feedDocumentLimit > 0 {
            let limit = options.feedDocumentLimit
            let reader = database.changesFeed(ChangesRequest(since: since, limit: limit, includeDocuments: true,
                                                             allRevisions: true, conflicts: true),
                                              maximumRowBytes: min(options.maximumStreamedRowBytes, largestCarriedRowBytes))
            var rows = 0
            var carrying = true
            while var change = try await reader.next() {
                rows += 1
                if carrying {
                    let received = await reader.bytesReceived
                    carrying = change.document != nil && received <= options.feedDocumentBytes
                }
                if carrying {
                    carriedThrough = change.sequence
                } else {
                    change.document = nil
                }
                take(change)
            }
            let (end, pending, skipped) = (await reader.lastSequence, await reader.pending, await reader.skippedRowCount)
            if skipped > 0 || end == nil {
                // A row too large to carry was passed over: list the feed again, without documents.
                (latest, changes, carriedThrough) = ([:], [], nil)
            } else if rows < limit || pending == 0 {
                progress?(SyncProgress(phase: .reading, done: changes.count, total: nil))
                return Feed(changes: changes, lastSequence: end, carriedThrough: carriedThrough)
            } else {
                // A long feed: the rest is listed from here, and its documents come as the pull wants them.
                position = end
            }
        }
        while true {
            let page = try await database.changes(ChangesRequest(since: position, limit: options.changesPageSize, allRevisions: true))
            page.results.forEach(take)
            last = page.lastSequence
            position = page.lastSequence
            progress?(SyncProgress(phase: .reading, done: changes.count, total: nil))
            if page.results.count < options.changesPageSize || page.pending == 0 { break }
        }
        return Feed(changes: changes, lastSequence: last, carriedThrough: carriedThrough)
    }

    // MARK: - Errors

    static func syncError(_ error: CouchClientError, remote: String) -> SyncError {
        if error.code == .tls {
            return SyncError(.untrustedRemote, "no secure connection to \(remote): \(error.underlying ?? "TLS failed"); nothing was changed. Check the URL; if you trust this server (your own, with a self-signed certificate), sync with --insecure or save it with `cardsync remote DIR set URL --insecure`")
        }
        switch error.status {
        case 401?:
            return SyncError(.unauthorized, "\(remote) refused the credentials (401 \(error.reason ?? "unauthorized")); give the user in the URL and the password with CARDSYNC_PASSWORD or --password-file")
        case 403?:
            return SyncError(.unauthorized, "\(remote) does not allow this (403 \(error.reason ?? "forbidden")); use an account with access to the database")
        case nil where error.code == .connectionRefused || error.code == .unknownHost:
            return SyncError(.unreachable, "cannot reach \(remote): \(error.underlying ?? error.code.description); check the URL and that the server runs, then sync again — nothing is lost, the next sync resumes")
        case nil:
            let attempts = error.attempts > 1 ? " (after \(error.attempts) attempts)" : ""
            return SyncError(.unreachable, "cannot reach \(remote): \(error.underlying ?? error.reason ?? error.code.description)\(attempts); check the URL and that the server runs, then sync again — nothing is lost, the next sync resumes")
        default:
            return SyncError(.unreachable, "\(remote) failed: \(error.description); sync again later — nothing is lost, the next sync resumes")
        }
    }
}
