import CouchClient
import JSONText

/// A document as the pull fetched it, from `_all_docs` or from the `_changes` feed.
struct FetchedDocument: Sendable {
    /// The document id.
    var id: String
    /// The winning revision, when known.
    var revision: String?
    /// Whether the winning revision is a deletion.
    var isDeleted: Bool
    /// The server has no such document (any more).
    var isGone: Bool
    /// The document, for a live one.
    var document: JSONObject?

    init(_ row: AllDocumentsRow) {
        id = row.key
        revision = row.revision
        isDeleted = row.isDeleted
        isGone = row.error != nil
        document = row.document
    }

    /// A row of `_changes?include_docs=true`: the document's `_rev` is the winner (with
    /// `style=all_docs` the row lists every leaf).
    init(_ change: Change) {
        id = change.id
        revision = change.document?["_rev"]?.stringValue ?? change.revisions.first
        isDeleted = change.isDeleted || change.document?["_deleted"]?.boolValue == true
        isGone = false
        document = isDeleted ? nil : change.document
    }
}

/// Where the pull takes its documents from, a batch at a time (an empty batch: no more).
protocol PullSource: Sendable {
    func nextBatch() async throws -> [FetchedDocument]
}

/// The documents of a streamed `_changes?include_docs=true` response that the pull wants, in
/// feed order, a batch at a time; the rest of the feed is passed over. Reading stops once every
/// wanted document came.
actor StreamedFetch: PullSource {
    let feed: ChangesFeedReader
    /// The ids still to come.
    private(set) var wanted: Set<String>
    let batchSize: Int

    init(feed: ChangesFeedReader, wanted: Set<String>, batchSize: Int) {
        self.feed = feed
        self.wanted = wanted
        self.batchSize = batchSize
    }

    func nextBatch() async throws -> [FetchedDocument] {
        var rows: [FetchedDocument] = []
        while rows.count < batchSize, !wanted.isEmpty, let change = try await feed.next() {
            // A document listed twice (changed while the feed was read) is taken once, the first time.
            if wanted.remove(change.id) != nil { rows.append(FetchedDocument(change)) }
        }
        return rows
    }
}

/// Every contact document of a streamed `_changes?include_docs=true` response read from the
/// start, in feed order, a batch at a time: the first pull into a blank book, which wants them
/// all, without listing the feed's ids first.
actor WholeFeedFetch: PullSource {
    let feed: ChangesFeedReader
    let batchSize: Int
    /// The ids taken so far.
    private(set) var taken: Set<String> = []
    /// Whether a document was listed a second time (changed while the feed was read; the later
    /// listing is not taken).
    private(set) var listedTwice = false
    /// How far the feed is applied when a document was listed twice: the sequence of the row
    /// before the first repeated listing (`nil` if that was the first row). The checkpoint must
    /// not pass it, so that the next sync reads the later version.
    private(set) var appliedThrough: CouchSequence?
    private var lastSequence: CouchSequence?

    init(feed: ChangesFeedReader, batchSize: Int) {
        self.feed = feed
        self.batchSize = batchSize
    }

    func nextBatch() async throws -> [FetchedDocument] {
        var rows: [FetchedDocument] = []
        while rows.count < batchSize, let change = try await feed.next() {
            defer { lastSequence = change.sequence }
            guard change.id.hasPrefix(ContactDocument.idPrefix) else { continue }
            if taken.insert(change.id).inserted {
                rows.append(FetchedDocument(change))
            } else if !listedTwice {
                listedTwice = true
                appliedThrough = lastSequence
            }
        }
        return rows
    }

    /// The position the checkpoint may take once every batch is applied: the end of the feed,
    /// or where it was applied through when a document was listed twice.
    var checkpoint: CouchSequence? {
        get async { listedTwice ? appliedThrough : await feed.lastSequence }
    }
}

/// The documents the changes feed carried (``SyncEngine/Feed/carriedThrough``), in feed
/// order, a batch at a time: nothing is fetched.
actor CarriedDocuments: PullSource {
    private var rows: ArraySlice<FetchedDocument>
    let batchSize: Int

    init(_ rows: [FetchedDocument], batchSize: Int) {
        self.rows = rows[...]
        self.batchSize = batchSize
    }

    func nextBatch() -> [FetchedDocument] {
        let batch = rows.prefix(batchSize)
        rows = rows.dropFirst(batch.count)
        return Array(batch)
    }
}

/// The documents named by `keys`, fetched with `_all_docs?include_docs=true&conflicts=true`,
/// `batchSize` per request.
actor KeyedFetch: PullSource {
    let database: CouchDatabase
    let keys: [String]
    let batchSize: Int
    private var next = 0

    init(database: CouchDatabase, keys: [String], batchSize: Int) {
        self.database = database
        self.keys = keys
        self.batchSize = batchSize
    }

    func nextBatch() async throws -> [FetchedDocument] {
        guard next < keys.count else { return [] }
        let batch = Array(keys[next..<min(next + batchSize, keys.count)])
        next += batch.count
        return try await database.allDocuments(keys: batch, includeDocuments: true, conflicts: true).map(FetchedDocument.init)
    }
}
