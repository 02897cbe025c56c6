import Crypto
public import Foundation
import JSONText

/// One CouchDB database: a journal file on disk and an index in memory, rebuilt at open.
///
/// All reads and writes go through the actor, so writes are applied in order and every write is
/// on disk (fsynced) before the call returns.
///
/// ```swift
/// let database = try Database.create(named: "contacts", in: folder)
/// let outcomes = try await database.update([DocumentEdit(id: "a", body: ["fn": .string("Ann")])])
/// ```
public actor Database {
    /// The database name.
    public nonisolated let name: String
    /// The folder holding the journal.
    public nonisolated let directory: URL
    /// A random id fixed at creation, part of sequence tokens.
    public nonisolated let uuid: String
    /// When the database was created (seconds since 1970).
    public nonisolated let createdAt: Int
    /// What opening the journal had to set aside.
    public nonisolated let recovery: JournalRecovery
    /// How many revisions of each branch are kept unless `_revs_limit` set another number.
    private nonisolated let defaultRevisionsLimit: Int

    /// The attachment files.
    nonisolated let attachments: AttachmentStore
    private let journal: DatabaseJournal
    private var state: DatabaseState
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiterID = 0
    private var isClosed = false

    /// The sequence number of the last change.
    public var updateSequence: Int { state.updateSequence }

    static let journalName = "journal.jsonl"

    private init(name: String, directory: URL, journal: DatabaseJournal, header: JSONObject, recovery: JournalRecovery,
                 revisionsLimit: Int, state: DatabaseState = DatabaseState()) {
        self.state = state
        self.name = name
        self.directory = directory
        self.journal = journal
        self.uuid = header["uuid"]?.stringValue ?? "00000000000000000000000000000000"
        self.createdAt = header["created"]?.intValue ?? 0
        self.recovery = recovery
        self.defaultRevisionsLimit = revisionsLimit
        self.attachments = AttachmentStore(databaseDirectory: directory.path)
    }

    /// Creates the journal of a new database in `directory` (which must exist and be empty).
    public static func create(named name: String, in directory: URL, revisionsLimit: Int = 1000) throws(CouchError) -> Database {
        let header: JSONObject = [
            "t": .string("header"), "format": .integer(1), "name": .string(name),
            "uuid": .string(randomHex()), "created": .integer(Int(Date().timeIntervalSince1970)),
        ]
        let path = directory.appendingPathComponent(journalName).path
        let journal = try DatabaseJournal.create(at: path, header: header)
        try AttachmentStore(databaseDirectory: directory.path).prepare()
        let recovery = JournalRecovery(setAsideFile: nil, setAsideBytes: 0, skippedLineOffsets: [])
        return Database(name: name, directory: directory, journal: journal, header: header, recovery: recovery,
                        revisionsLimit: revisionsLimit)
    }

    /// Opens an existing database and rebuilds its index from the journal.
    ///
    /// - Throws: ``CouchError`` (`storage_failure`) when the journal cannot be read.
    public static func open(named name: String, in directory: URL, revisionsLimit: Int = 1000) throws(CouchError) -> Database {
        let path = directory.appendingPathComponent(journalName).path
        let (journal, lines, recovery) = try DatabaseJournal.open(at: path)
        guard let header = lines.first?.value, header["t"]?.stringValue == "header" else {
            throw CouchError(.storageFailure, reason: "\(path) does not start with a journal header")
        }
        try AttachmentStore(databaseDirectory: directory.path).prepare()
        var state = DatabaseState()
        state.apply(lines.dropFirst(), revisionsLimit: revisionsLimit)
        return Database(name: name, directory: directory, journal: journal, header: header, recovery: recovery,
                        revisionsLimit: revisionsLimit, state: state)
    }

    /// Stops serving: later calls fail with `not_found` (the database was deleted).
    func close() {
        isClosed = true
        for continuation in waiters.values { continuation.resume() }
        waiters.removeAll()
    }

    private func ensureOpen() throws(CouchError) {
        if isClosed { throw CouchError.missingDatabase }
    }

    // MARK: Information

    /// How many revisions of each branch are kept (CouchDB's `revs_limit`).
    public var revisionsLimit: Int { state.settings.revisionsLimit ?? defaultRevisionsLimit }

    /// The `_security` object: what was last stored, else CouchDB's default (admins only).
    var security: JSONObject {
        state.settings.security ?? [
            "members": .object(["roles": .array([.string("_admin")])]),
            "admins": .object(["roles": .array([.string("_admin")])]),
        ]
    }

    /// How many purge records CouchDB would keep (`_purged_infos_limit`, default 1000).
    var purgedInfosLimit: Int { state.settings.purgedInfosLimit ?? 1000 }

    /// Stores `_revs_limit`; later writes stem every branch to it.
    func setRevisionsLimit(_ limit: Int) throws(CouchError) {
        try writeSetting(DatabaseSettings.revisionsLimitLine, .integer(limit))
    }

    /// Stores the `_security` object.
    func setSecurity(_ security: JSONObject) throws(CouchError) {
        try writeSetting(DatabaseSettings.securityLine, .object(security))
    }

    /// Stores `_purged_infos_limit`.
    func setPurgedInfosLimit(_ limit: Int) throws(CouchError) {
        try writeSetting(DatabaseSettings.purgedInfosLimitLine, .integer(limit))
    }

    /// Appends one setting line durably, then applies it.
    private func writeSetting(_ name: String, _ value: JSONValue) throws(CouchError) {
        try ensureOpen()
        let line: JSONObject = ["t": .string(name), "value": value]
        var bytes = line.serialized()
        bytes.append(0x0A)
        try journal.appendDurably(bytes)
        state.settings.apply(line)
    }

    /// Purges leaf revisions (CouchDB's `_purge`): they and the ancestors only they had leave the
    /// index, so reads, listings and the changes feed no longer see them. Their bodies stay in
    /// the journal file (there is no compaction yet).
    ///
    /// - Parameter requests: document ids with the revisions to purge, in request order.
    /// - Returns: per id, the revisions that were purged (leaves only; others are ignored).
    func purge(_ requests: [(id: String, revisions: [Revision])]) throws(CouchError) -> [(id: String, revisions: [Revision])] {
        try ensureOpen()
        var trial = state
        var sequence = state.updateSequence
        var results: [(id: String, revisions: [Revision])] = []
        var batch: [UInt8] = []
        for (id, revisions) in requests {
            let purged = trial.purge(id: id, revisions: revisions, sequence: sequence + 1)
            results.append((id, purged))
            guard !purged.isEmpty else { continue }
            sequence += 1
            let line: JSONObject = [
                "t": .string("purge"), "seq": .integer(sequence), "id": .string(id),
                "revs": .array(purged.map { .string($0.description) }),
            ]
            line.write(to: &batch)
            batch.append(0x0A)
        }
        guard !batch.isEmpty else { return results }
        try journal.appendDurably(batch)
        state = trial
        compactChangeLogIfNeeded()
        wakeWaiters()
        return results
    }

    /// Documents whose winning revision is not deleted.
    public var documentCount: Int { state.liveCount }
    /// Documents whose winning revision is a tombstone.
    public var deletedDocumentCount: Int { state.deletedCount }
    /// Bytes in the journal.
    public var fileSize: Int { journal.length }
    /// Bytes in the attachment files.
    public var attachmentsSize: Int { attachments.totalSize() }

    /// The opaque token CouchDB clients see for `sequence`.
    public nonisolated func sequenceToken(_ sequence: Int) -> String {
        "\(sequence)-\(uuid)"
    }

    /// The sequence number in a `since` token: `0`, `now`, a number, or a token this server made.
    public func parseSequence(_ token: String) -> Int? {
        if token == "now" { return updateSequence }
        let digits = token.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let value = Int(digits) else { return nil }
        let rest = token.dropFirst(digits.count)
        guard rest.isEmpty || rest.first == "-" else { return nil }
        return value
    }

    // MARK: Writing state.documents

    /// Applies edits in order; all that succeed are written with one fsync before this returns.
    ///
    /// - Parameters:
    ///   - edits: the writes, in request order.
    ///   - newEdits: `true` for ordinary edits (new revisions are made and must extend a leaf);
    ///     `false` for replicated revisions stored as given with their ``DocumentEdit/history``.
    /// - Returns: one outcome per edit.
    /// - Throws: ``CouchError`` when the journal cannot be written; then nothing was applied.
    public func update(_ edits: [DocumentEdit], newEdits: Bool = true) throws(CouchError) -> [EditOutcome] {
        try ensureOpen()
        var staged: [DocumentKey: DocumentEntry] = [:]
        var outcomes: [EditOutcome] = []
        var batch: [UInt8] = []
        var appended: [(sequence: Int, id: String)] = []
        var sequence = updateSequence
        for var edit in edits {
            var entry = staged[DocumentKey(edit.id)] ?? state.documents[DocumentKey(edit.id)] ?? DocumentEntry(id: edit.id)
            do throws(CouchError) {
                // Attachment files are durable before the journal line that refers to them.
                if let stored = try storeAttachments(of: edit, entry: entry, newEdits: newEdits) { edit.body = stored }
            } catch {
                outcomes.append(.failed(id: edit.id, error: error))
                continue
            }
            // The text the request's size check wrote, unless attachments changed the body since.
            let bodyBytes = edit.bodyText.bytes ?? edit.body.serialized()
            let path: [Revision]
            if newEdits {
                let parent: Revision?
                if let base = edit.baseRevision {
                    guard entry.tree.leaves.contains(base) else {
                        outcomes.append(.failed(id: edit.id, error: .conflictingUpdate))
                        continue
                    }
                    parent = base
                } else if entry.tree.leaves.isEmpty {
                    parent = nil
                } else if entry.isDeleted {
                    parent = entry.winner
                } else {
                    outcomes.append(.failed(id: edit.id, error: .conflictingUpdate))
                    continue
                }
                let revision = Self.makeRevision(parent: parent, isDeleted: edit.isDeleted, body: bodyBytes)
                if entry.tree.contains(revision) {
                    outcomes.append(.failed(id: edit.id, error: .conflictingUpdate))
                    continue
                }
                path = [revision] + (parent.map { [$0] } ?? [])
            } else {
                guard let history = edit.history, let head = history.first else {
                    outcomes.append(.failed(id: edit.id, error: .invalidRevisionFormat))
                    continue
                }
                if entry.tree.contains(head) {
                    outcomes.append(.alreadyPresent(id: edit.id))
                    continue
                }
                path = history
            }
            sequence += 1
            var prefix: [UInt8] = Array(#"{"t":"doc","seq":"#.utf8)
            prefix.append(contentsOf: String(sequence).utf8)
            prefix.append(contentsOf: #","id":"#.utf8)
            JSONWriter.writeString(edit.id, to: &prefix)
            prefix.append(contentsOf: #","path":"#.utf8)
            JSONValue.array(path.map { .string($0.description) }).write(to: &prefix)
            prefix.append(contentsOf: (edit.isDeleted ? #","deleted":true"# : #","deleted":false"#).utf8)
            prefix.append(contentsOf: #","bytes":"#.utf8)
            prefix.append(contentsOf: String(bodyBytes.count).utf8)
            prefix.append(contentsOf: #","body":"#.utf8)
            let location = BodyLocation(offset: journal.length + batch.count + prefix.count, length: bodyBytes.count)
            batch.append(contentsOf: prefix)
            batch.append(contentsOf: bodyBytes)
            batch.append(contentsOf: [UInt8(ascii: "}"), 0x0A])
            entry.tree.merge(path: path, isDeleted: edit.isDeleted, body: location)
            entry.tree.stem(limit: revisionsLimit)
            entry.sequence = sequence
            staged[DocumentKey(edit.id)] = entry
            appended.append((sequence, edit.id))
            outcomes.append(.saved(id: edit.id, revision: path[0]))
        }
        guard !batch.isEmpty else { return outcomes }
        try journal.appendDurably(batch)
        let createdCount = staged.keys.filter { state.documents[$0] == nil }.count
        state.staleChangeCount += appended.count - createdCount
        for (sequence, id) in appended where staged[DocumentKey(id)]?.sequence != sequence {
            state.markStale(sequence)
        }
        for (key, entry) in staged {
            let previous = state.documents[key]
            if let previous { state.markStale(previous.sequence) }
            state.countChange(wasNew: previous == nil, wasDeleted: previous?.isDeleted ?? false, isDeleted: entry.isDeleted)
            state.documents[key] = entry
        }
        state.changeLog.append(contentsOf: appended)
        state.updateSequence = sequence
        compactChangeLogIfNeeded()
        wakeWaiters()
        return outcomes
    }

    private func compactChangeLogIfNeeded() {
        guard state.staleChangeCount > 1024, state.staleChangeCount * 2 > state.changeLog.count else { return }
        state.changeLog.removeAll { state.documents[DocumentKey($0.id)]?.sequence != $0.sequence }
        state.staleChangeCount = 0
        state.staleSequences = []
    }

    /// A new revision id: generation one past the parent, and the MD5 of the tombstone flag,
    /// the parent revision and the body, so the same edit gives the same id on every server.
    static func makeRevision(parent: Revision?, isDeleted: Bool, body: [UInt8]) -> Revision {
        var hasher = Insecure.MD5()
        withUnsafeBytes(of: isDeleted ? 1 as UInt8 : 0) { hasher.update(bufferPointer: $0) }
        var parentText = parent?.description ?? ""
        parentText.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        withUnsafeBytes(of: 0 as UInt8) { hasher.update(bufferPointer: $0) }
        body.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        let digest = hasher.finalize()
        // Written in place, two digits a byte (a `_bulk_docs` write makes one per document).
        let hash = String(unsafeUninitializedCapacity: 2 * Insecure.MD5.byteCount) { out in
            digest.withUnsafeBytes { bytes in
                for (position, byte) in bytes.enumerated() {
                    HexDigits.write(UInt64(byte), count: 2, into: UnsafeMutableRawBufferPointer(out), at: 2 * position)
                }
            }
            return 2 * Insecure.MD5.byteCount
        }
        return Revision(generation: (parent?.generation ?? 0) + 1, hash: hash)
    }

    static func randomHex() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(unsafeUninitializedCapacity: 32) { out in
            HexDigits.write(generator.next(), count: 16, into: UnsafeMutableRawBufferPointer(out), at: 0)
            HexDigits.write(generator.next(), count: 16, into: UnsafeMutableRawBufferPointer(out), at: 16)
            return 32
        }
    }

    // MARK: Reading state.documents

    /// The ids of every document, deleted ones too, in no particular order.
    func documentIDs() throws(CouchError) -> [String] {
        try ensureOpen()
        return state.documents.values.map(\.id)
    }

    /// The index entry of a document: its revision tree and last sequence.
    func entry(_ id: String) throws(CouchError) -> DocumentEntry? {
        try ensureOpen()
        return state.documents[DocumentKey(id)]
    }

    /// A stored body.
    func body(at location: BodyLocation) throws(CouchError) -> JSONObject {
        let bytes = try journal.read(location)
        guard let object = try? JSONParser.parse(bytes).objectValue else {
            throw CouchError(.storageFailure, reason: "damaged body at offset \(location.offset) of \(journal.path)")
        }
        return object
    }

    /// What to add to a rendered document.
    struct RenderOptions: Sendable {
        var revisions = false
        var revisionsInfo = false
        var conflicts = false
        var deletedConflicts = false
        /// `att_encoding_info`: `encoding` and `encoded_length` in attachment stubs.
        var attachmentEncodingInfo = false
        /// Leaves `_attachments` as stored, for the caller to render (inline data, multipart).
        var keepsStoredAttachments = false
    }

    /// A revision of a document as CouchDB shows it: `_id`, `_rev`, the body, then what
    /// `options` ask for. `nil` when the revision's body is not stored.
    func render(_ entry: DocumentEntry, revision: Revision, options: RenderOptions = RenderOptions()) throws(CouchError) -> JSONObject? {
        guard let node = entry.tree[revision], let location = node.body else { return nil }
        var object: JSONObject = ["_id": .string(entry.id), "_rev": .string(revision.description)]
        object.members.append(contentsOf: try body(at: location).members)
        if node.isDeleted { object["_deleted"] = .bool(true) }
        if options.revisions {
            let ancestry = entry.tree.ancestry(of: revision)
            object["_revisions"] = .object([
                "start": .integer(revision.generation), "ids": .array(ancestry.map { .string($0.hash) }),
            ])
        }
        if options.revisionsInfo {
            object["_revs_info"] = .array(entry.tree.ancestry(of: revision).map { ancestor in
                let node = entry.tree[ancestor]
                let status = node?.body == nil ? "missing" : (node?.isDeleted == true ? "deleted" : "available")
                return .object(["rev": .string(ancestor.description), "status": .string(status)])
            })
        }
        if options.conflicts || options.deletedConflicts {
            let others = entry.tree.sortedLeaves.filter { $0 != revision }
            if options.conflicts {
                let live = others.filter { entry.tree[$0]?.isDeleted == false }
                if !live.isEmpty { object["_conflicts"] = .array(live.map { .string($0.description) }) }
            }
            if options.deletedConflicts {
                let deleted = others.filter { entry.tree[$0]?.isDeleted == true }
                if !deleted.isEmpty { object["_deleted_conflicts"] = .array(deleted.map { .string($0.description) }) }
            }
        }
        // CouchDB writes `_attachments` after the members the options add.
        if let attachments = object["_attachments"] {
            object["_attachments"] = nil
            object.append("_attachments", attachments)
            if !options.keepsStoredAttachments {
                Self.renderAttachmentStubs(&object, encodingInfo: options.attachmentEncodingInfo)
            }
        }
        return object
    }

    /// ``render(_:revision:options:)``'s object as JSON text (the bytes its `serialized()`
    /// gives), made without parsing the stored body when nothing is added after its members:
    /// not a tombstone, no revision history asked, no other leaf when conflicts are asked, and
    /// no `_attachments` in it (whose stubs are rendered). A body is stored as the compact JSON
    /// text of its members in order (``JSONObject/serialized()``), which reading it and writing
    /// it again gives back, so it follows `_id` and `_rev` as it is: a `_changes` feed with
    /// documents costs copying each body instead of parsing and writing it. (Every stored line,
    /// body included, was parsed when the database was opened.)
    func renderedText(_ entry: DocumentEntry, revision: Revision, options: RenderOptions = RenderOptions()) throws(CouchError) -> [UInt8]? {
        guard let node = entry.tree[revision], let location = node.body else { return nil }
        let addsNothing = !node.isDeleted && !options.revisions && !options.revisionsInfo
            && (!(options.conflicts || options.deletedConflicts) || entry.tree.leaves.count == 1)
        if addsNothing, let text = Self.documentText(id: entry.id, revision: revision, storedBody: try journal.read(location)) {
            return text
        }
        return try render(entry, revision: revision, options: options)?.serialized()
    }

    /// `{"_id":…,"_rev":…` followed by the members of `body`, the stored text of a document's
    /// body; `nil` when `body` is not an object's text or may hold `_attachments`.
    static func documentText(id: String, revision: Revision, storedBody body: [UInt8]) -> [UInt8]? {
        guard body.count >= 2, body.first == UInt8(ascii: "{"), body.last == UInt8(ascii: "}"),
              body.firstIndex(ofBytes: attachmentsKey) == nil else { return nil }
        var text: [UInt8] = []
        text.reserveCapacity(body.count + id.utf8.count + revision.description.utf8.count + 20)
        text.append(contentsOf: #"{"_id":"#.utf8)
        JSONWriter.writeString(id, to: &text)
        text.append(contentsOf: #","_rev":"#.utf8)
        JSONWriter.writeString(revision.description, to: &text)
        if body.count > 2 { text.append(UInt8(ascii: ",")) }
        text.append(contentsOf: body[1...])
        return text
    }

    /// `"_attachments"`: a body that holds these bytes anywhere (a member, or text that only
    /// looks like one) is rendered from its parsed object.
    private static let attachmentsKey = Array(#""_attachments""#.utf8)

    // MARK: Local state.documents

    /// A `_local` document, with `_id` and `_rev`.
    func localDocument(_ id: String) throws(CouchError) -> JSONObject? {
        try ensureOpen()
        guard let local = state.locals[DocumentKey(id)] else { return nil }
        var object: JSONObject = ["_id": .string(id), "_rev": .string("0-\(local.revision)")]
        object.members.append(contentsOf: local.body.members)
        return object
    }

    /// Writes or deletes a `_local` document; `revision` must be its current `0-N` (or absent
    /// when it does not exist). Returns the new revision (`0-0` after a delete).
    func updateLocal(_ id: String, revision: String?, isDeleted: Bool, body: JSONObject) throws(CouchError) -> String {
        try ensureOpen()
        let existing = state.locals[DocumentKey(id)]
        let current = existing.map { "0-\($0.revision)" }
        if let existing = current {
            guard revision == existing else { throw CouchError.conflictingUpdate }
        } else if isDeleted {
            throw CouchError.missingDocument
        } else if let revision, revision != "0-0" {
            throw CouchError.conflictingUpdate
        }
        let newRevision = isDeleted ? 0 : (existing?.revision ?? 0) + 1
        var line: JSONObject = ["t": .string("local"), "id": .string(id), "rev": .integer(newRevision),
                                "deleted": .bool(isDeleted)]
        line["body"] = .object(isDeleted ? [:] : body)
        var bytes = line.serialized()
        bytes.append(0x0A)
        try journal.appendDurably(bytes)
        state.locals[DocumentKey(id)] = isDeleted ? nil : LocalDocument(revision: newRevision, body: body)
        return "0-\(newRevision)"
    }

    /// The `_local` documents' ids and revision numbers, in `_all_docs` order.
    func localDocumentRevisions() throws(CouchError) -> [(id: String, revision: Int)] {
        try ensureOpen()
        return state.locals.map { (key, local) in (key.id, local.revision) }
            .sorted { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
    }

    // MARK: Listing

    /// Ids of state.documents whose winner is not deleted, in CouchDB's `_all_docs` order (UTF-8 bytes).
    func liveDocumentIDs() throws(CouchError) -> [String] {
        try ensureOpen()
        if let cached = state.liveIDsCache { return cached }
        let ids = state.documents.values.filter { !$0.isDeleted }.map(\.id).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        state.liveIDsCache = ids
        return ids
    }

    /// One row of a changes feed.
    struct Change: Sendable {
        var sequence: Int
        var entry: DocumentEntry
    }

    /// Changes after `since`, each document once at its latest sequence.
    ///
    /// - Returns: the rows, the sequence to resume from, and how many changes remain after it.
    ///
    /// `selects`, when given, is asked about each document's winning revision as rendered
    /// (`_selector` filters); `pending` does not apply it.
    func changes(since: Int, limit: Int?, descending: Bool, includes: @Sendable (String) -> Bool,
                 selects: (@Sendable (JSONObject) -> Bool)? = nil) throws(CouchError)
        -> (rows: [Change], lastSequence: Int, pending: Int)
    {
        try ensureOpen()
        func passes(_ id: String, _ entry: DocumentEntry) -> Bool {
            guard includes(id) else { return false }
            guard let selects else { return true }
            guard let winner = entry.winner, let object = try? render(entry, revision: winner) else { return false }
            return selects(object)
        }
        var rows: [Change] = []
        let limit = limit ?? Int.max
        if descending {
            var index = state.changeLog.count - 1
            while index >= 0, rows.count < limit {
                let (sequence, id) = state.changeLog[index]
                if sequence > since, let entry = state.documents[DocumentKey(id)], entry.sequence == sequence, passes(id, entry) {
                    rows.append(Change(sequence: sequence, entry: entry))
                }
                index -= 1
            }
            // Live entries left below: those at positions first...index with a sequence above `since`.
            var first = 0
            var high = state.changeLog.count
            while first < high {
                let middle = (first + high) / 2
                if state.changeLog[middle].sequence <= since { first = middle + 1 } else { high = middle }
            }
            var pending = 0
            if index >= first {
                pending = (index - first + 1)
                    - state.staleCount(from: state.changeLog[first].sequence, through: state.changeLog[index].sequence)
            }
            return (rows, rows.last?.sequence ?? state.updateSequence, pending)
        }
        var low = 0
        var high = state.changeLog.count
        while low < high {
            let middle = (low + high) / 2
            if state.changeLog[middle].sequence <= since { low = middle + 1 } else { high = middle }
        }
        var index = low
        while index < state.changeLog.count, rows.count < limit {
            let (sequence, id) = state.changeLog[index]
            if let entry = state.documents[DocumentKey(id)], entry.sequence == sequence, passes(id, entry) {
                rows.append(Change(sequence: sequence, entry: entry))
            }
            index += 1
        }
        // Live entries after this page: all entries after it, less the stale ones among them.
        var pending = 0
        if index < state.changeLog.count {
            pending = (state.changeLog.count - index) - state.staleCount(from: state.changeLog[index].sequence, through: Int.max)
        }
        let lastSequence = rows.count == limit ? rows.last!.sequence : max(state.updateSequence, since)
        return (rows, lastSequence, pending)
    }

    // MARK: Waiting for changes

    /// Returns when a change after `sequence` is written, the database is closed, or `timeout`
    /// passes, whichever comes first.
    public func waitForChange(after sequence: Int, timeout: Duration) async {
        if state.updateSequence > sequence || isClosed { return }
        let id = nextWaiterID
        nextWaiterID += 1
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.resumeWaiter(id)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                waiters[id] = continuation
            }
        } onCancel: {
            Task { await self.resumeWaiter(id) }
        }
        timer.cancel()
    }

    private func resumeWaiter(_ id: Int) {
        waiters.removeValue(forKey: id)?.resume()
    }

    private func wakeWaiters() {
        let current = waiters
        waiters.removeAll()
        for continuation in current.values { continuation.resume() }
    }
}
