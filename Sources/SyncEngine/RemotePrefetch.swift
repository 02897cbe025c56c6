public import ContactStore
public import CouchClient
public import Foundation
import JSONText
import Synchronization

/// A sync's first requests, made while its book is being opened.
///
/// A sync's first two requests are the server's copy of the book's checkpoint, then the changes
/// feed since it. The first needs nothing from the book but its identifier, and goes out before
/// the book is opened; the second needs the checkpoint the book holds, and goes out as soon as
/// opening has read the index (``AddressBook/OpenOptions/indexOpened``), when the server's
/// agrees with it. Both then overlap the locking, the index and the walk and scan of the folder:
/// against a server across the internet, a sync with nothing to do takes about as long as the
/// longer of the network's wait and that work rather than their sum.
///
/// ``SyncEngine`` uses what was read when the server's checkpoint is still the one the book
/// holds; otherwise (the server lost or moved its checkpoint) it makes its own requests. A
/// feed read before the scan ends is the same as one read just after it: a change that lands
/// on the server after the read is read by the next sync, and a push over it is refused (409)
/// and settled, as when it lands during a sync.
///
/// ```swift
/// let report = try await RemotePrefetch.withRequests(forBookAt: folder, database: database,
///                                                    remote: location.key, options: options) { prefetch in
///     var opening = AddressBook.OpenOptions()
///     opening.indexOpened = { prefetch.bookOpened($0) }
///     return try await AddressBook.withOpen(at: folder, options: opening) { book in
///         try await SyncEngine(book: book, database: database, remote: location.key, options: options,
///                              prefetch: prefetch).sync()
///     }
/// }
/// ```
public final class RemotePrefetch: Sendable {
    /// What the requests read when the server's checkpoint was the book's.
    struct Fetched: Sendable {
        /// The server's checkpoint (its document's `last_seq`).
        let since: CouchSequence
        /// The revision of the server's checkpoint document.
        let revision: JSONValue?
        /// The changes feed since ``since``, or what reading it threw.
        let feed: Result<SyncEngine.Feed, any Error>
    }

    /// The book's checkpoint with this remote, as far as the requests know it.
    private enum LocalCheckpoint {
        /// Not known yet; the requests may be waiting for it.
        case unknown(waiting: CheckedContinuation<String?, Never>?)
        /// Known (`nil`: the book has none), or given up on (the sync is over).
        case known(String?)
    }

    private struct State {
        /// The requests; they end with `nil` when the server has no checkpoint for the book or
        /// another one than the book's.
        var task: Task<Fetched?, any Error>?
        var local = LocalCheckpoint.unknown(waiting: nil)
    }

    let database: CouchDatabase
    let remote: String
    let options: SyncOptions
    private let state = Mutex(State())

    /// Requests for a sync with `database`, as a ``SyncEngine`` with the same `remote` and
    /// `options` makes them.
    public init(database: CouchDatabase, remote: String, options: SyncOptions) {
        self.database = database
        self.remote = remote
        self.options = options
    }

    /// Runs `body` with the requests started for the book at `url` (before `body` opens it),
    /// and cancels and waits for what is left of them when `body` ends, however it ends
    /// (before the client they use shuts down). `body` hands ``bookOpened(_:)`` to the book's
    /// ``AddressBook/OpenOptions/indexOpened`` and the prefetch to its ``SyncEngine``.
    public static func withRequests<Result: Sendable>(
        forBookAt url: URL, database: CouchDatabase, remote: String, options: SyncOptions,
        _ body: (RemotePrefetch) async throws -> Result
    ) async throws -> Result {
        let prefetch = RemotePrefetch(database: database, remote: remote, options: options)
        prefetch.start(bookAt: url)
        do {
            let result = try await body(prefetch)
            await prefetch.finish()
            return result
        } catch {
            await prefetch.finish()
            throw error
        }
    }

    /// Starts the requests for the book at `url`, before it is opened. Starts nothing for a
    /// book that never synced (it has no ``AddressBook/identifier`` yet), for a sync that
    /// starts over (``SyncOptions/reset``), or when the requests were already started.
    func start(bookAt url: URL) {
        guard !options.reset, let identifier = AddressBook.storedIdentifier(ofBookAt: url) else { return }
        let database = database
        let options = options
        state.withLock { state in
            guard state.task == nil else { return }
            state.task = Task {
                let serverSide = try await database.localDocument(id: SyncEngine.checkpointDocumentID(forBook: identifier))
                guard let stored = serverSide?["last_seq"] else { return nil }
                let since = CouchSequence(stored)
                guard await self.localCheckpoint() == SyncEngine.text(of: since) else { return nil }
                let feed: Result<SyncEngine.Feed, any Error>
                do {
                    feed = .success(try await SyncEngine.readFeed(from: database, since: since, options: options, progress: nil))
                } catch {
                    feed = .failure(error)
                }
                return Fetched(since: since, revision: serverSide?["_rev"], feed: feed)
            }
        }
    }

    /// Tells the requests the checkpoint the book holds (an ``AddressBook/OpenOptions/indexOpened``
    /// handler): the changes feed is read when the server's is the same.
    public func bookOpened(_ opening: AddressBook.IndexOpening) {
        provide(opening.checkpoints[remote])
    }

    /// What the requests read, when the server's checkpoint they found is `localCheckpoint`
    /// (the opened book's) and the feed was read since it; `nil` otherwise, or when nothing was
    /// started. Waits for the requests; throws what reading the server's checkpoint threw (the
    /// engine would make that same request now).
    func fetched(agreeingWith localCheckpoint: String) async throws -> Fetched? {
        // The requests may still wait for the book's checkpoint (opened without ``bookOpened(_:)``).
        provide(localCheckpoint)
        guard let task = state.withLock({ $0.task }) else { return nil }
        let fetched = try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
        guard let fetched, SyncEngine.text(of: fetched.since) == localCheckpoint else { return nil }
        return fetched
    }

    /// Cancels the requests if they are still under way and waits for them to end.
    func finish() async {
        provide(nil)
        guard let task = state.withLock({ $0.task }) else { return }
        task.cancel()
        _ = try? await task.value
    }

    /// Records the book's checkpoint (the first time only) and hands it to requests waiting for it.
    private func provide(_ checkpoint: String?) {
        let waiting = state.withLock { state -> CheckedContinuation<String?, Never>? in
            guard case .unknown(let waiting) = state.local else { return nil }
            state.local = .known(checkpoint)
            return waiting
        }
        waiting?.resume(returning: checkpoint)
    }

    /// The book's checkpoint, once opening has read it (`nil`: it has none, or it will not be
    /// known: the requests were cancelled).
    private func localCheckpoint() async -> String? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let known = state.withLock { state -> String?? in
                    if case .known(let checkpoint) = state.local { return .some(checkpoint) }
                    state.local = .unknown(waiting: continuation)
                    return nil
                }
                if let known { continuation.resume(returning: known) }
            }
        } onCancel: {
            provide(nil)
        }
    }
}
