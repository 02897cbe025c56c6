/// How a sync runs.
public struct SyncOptions: Sendable {
    /// How contacts changed on both sides are settled.
    public var policy: ConflictPolicy
    /// Plan only: read both sides, change nothing, report what would happen.
    public var dryRun: Bool
    /// Go on even when one side became empty while the other still has the contacts of the
    /// last sync (without it, such a sync is refused: it would delete everything).
    public var force: Bool
    /// Forget the sync state with this remote first (the journal records a fresh start) and
    /// match contacts by content again: contacts only here are pushed, contacts only there are
    /// pulled, and no deletion travels either way. Refills a server that was emptied or whose
    /// database was deleted, without losing anything on either side.
    public var reset: Bool
    /// Remove contacts whose content became identical to another's (the oldest is kept);
    /// without it they are only reported.
    public var dedupe: Bool
    /// Documents per `_bulk_docs` request (and per `_all_docs` request of a pull).
    public var batchSize: Int
    /// Documents of a streamed `_changes` feed that a pull applies together: written to the
    /// folder with one file-system sync and to the journal with one `fsync`, durable before the
    /// next batch is applied (what a crash inside a pull can lose is redone by the next sync).
    /// ``batchSize`` unless given: `cardsync sync` takes 1,024 when `--batch-size` is not given,
    /// as many as an import writes together.
    public var pullBatchSize: Int
    /// `_bulk_docs` requests in flight at once.
    public var concurrentBatches: Int
    /// Rows per `_changes` request.
    public var changesPageSize: Int
    /// The largest row of a streamed `_changes?include_docs=true` response taken whole (64 MB);
    /// a larger document is fetched by key instead.
    public var maximumStreamedRowBytes = 64 << 20
    /// The most changes a sync reads with their documents in its first `_changes` request after
    /// a checkpoint (1,024): a feed no longer than this — what usually changed between two
    /// syncs — brings what the pull applies in the request that lists it; a longer one is
    /// listed on without them, and the pull fetches only the rest (0: never). A row above
    /// 1 MB is fetched as a long feed's documents are.
    public var feedDocumentLimit = 1_024
    /// The most response bytes whose documents the first `_changes` request keeps (16 MB): the
    /// rows after that are kept without them, and the pull fetches those (bounds the memory a
    /// feed of large documents, photos, holds before it is applied).
    public var feedDocumentBytes = 16 << 20
    /// Called as the sync goes (from any task).
    public var progress: (@Sendable (SyncProgress) -> Void)?

    /// Options: `newest` wins, batches of 500, four in flight; a pull applies `pullBatchSize`
    /// documents of a streamed feed together (`batchSize` when not given).
    public init(policy: ConflictPolicy = .newest, dryRun: Bool = false, force: Bool = false, dedupe: Bool = false,
                reset: Bool = false, batchSize: Int = 500, pullBatchSize: Int? = nil, concurrentBatches: Int = 4,
                changesPageSize: Int = 5000, progress: (@Sendable (SyncProgress) -> Void)? = nil) {
        self.policy = policy
        self.dryRun = dryRun
        self.force = force
        self.dedupe = dedupe
        self.reset = reset
        self.batchSize = max(1, batchSize)
        self.pullBatchSize = max(1, pullBatchSize ?? batchSize)
        self.concurrentBatches = max(1, concurrentBatches)
        self.changesPageSize = max(1, changesPageSize)
        self.progress = progress
    }
}
