import JSONText

/// The `_changes` feed read as the response arrives, one row at a time: rows are taken from
/// the bytes as they come (``JSONStreamReader``), so memory holds about one row and one chunk,
/// not the feed, and the reader sets the pace (the connection waits while rows are applied).
///
/// A network failure in the middle of the body is resumed: the feed is asked for again from the
/// position of the last row read (`since=<its seq>`), waiting as the client's ``RetryPolicy``
/// says, as long as rows keep coming. A row larger than `maximumRowBytes` is passed over and
/// counted in ``skippedRowCount`` (the caller fetches what it still needs another way).
///
/// ```swift
/// let feed = database.changesFeed(ChangesRequest(includeDocuments: true, allRevisions: true))
/// while let change = try await feed.next() {
///     apply(change)
/// }
/// let checkpoint = await feed.lastSequence
/// ```
public actor ChangesFeedReader {
    /// The database read.
    public let database: CouchDatabase
    /// What is asked for; `since` moves to the last row read when the feed is resumed.
    public private(set) var request: ChangesRequest
    /// The largest row taken whole.
    public let maximumRowBytes: Int
    /// The feed's `last_seq`, once the response's end was read.
    public private(set) var lastSequence: CouchSequence?
    /// The feed's `pending`, once the response's end was read (when the server says).
    public private(set) var pending: Int?
    /// Rows passed over because they were larger than ``maximumRowBytes``.
    public private(set) var skippedRowCount = 0
    /// Requests sent for this feed (1, plus one per resumption).
    public private(set) var requestCount = 0
    /// Bytes of response body taken from the connection so far (every request's), a chunk ahead
    /// of the rows returned at most.
    public private(set) var bytesReceived = 0

    private enum Place { case beforeDocument, inDocument, inResults, done }

    private var body: CouchHTTPBody?
    private var reader: JSONStreamReader
    private var place = Place.beforeDocument
    private var rowsRead = 0
    private var failedAttempts = 0

    /// A reader of the feed `request` asks for; nothing is sent before the first ``next()``.
    public init(database: CouchDatabase, request: ChangesRequest, maximumRowBytes: Int = 64 << 20) {
        self.database = database
        self.request = request
        self.maximumRowBytes = maximumRowBytes
        self.reader = JSONStreamReader(options: JSONReadingOptions(maximumBytes: maximumRowBytes))
    }

    /// The next row of the feed, `nil` after the last.
    ///
    /// - Throws: ``CouchClientError``: the request failed (after the retry policy's attempts),
    ///   the connection kept failing without a row read in between, or the response is not a
    ///   `_changes` feed (`invalidResponse`).
    public func next() async throws -> Change? {
        while true {
            do {
                return try await readRow()
            } catch let error as CouchClientError where error.isTransient && body != nil
                && failedAttempts + 1 < database.client.configuration.retry.maximumAttempts {
                // The connection broke inside the body: ask again from the last row read.
                failedAttempts += 1
                body = nil
                place = .beforeDocument
                reader = JSONStreamReader(options: JSONReadingOptions(maximumBytes: maximumRowBytes))
                try await database.client.sleep(database.client.configuration.retry.delay(afterAttempt: failedAttempts, retryAfter: nil))
            }
        }
    }

    private func readRow() async throws -> Change? {
        while true {
            switch place {
            case .done:
                return nil
            case .beforeDocument:
                if body == nil {
                    body = try await database.client.stream("GET", path: database.path + "/_changes", query: request.query).body
                    requestCount += 1
                }
                guard try await event(whole: false) == .startObject else { throw invalid("expected an object") }
                place = .inDocument
            case .inDocument:
                switch try await event(whole: false) {
                case .key("results"):
                    guard try await event(whole: false) == .startArray else { throw invalid("expected results to be an array") }
                    place = .inResults
                case .key(let name):
                    guard case .value(let value) = try await event(whole: true) else { throw invalid("expected a value for \(name)") }
                    if name == "last_seq" { lastSequence = CouchSequence(value) }
                    if name == "pending" { pending = value.intValue }
                case .endObject:
                    guard try await event(whole: false) == .endOfDocument else { throw invalid("expected the end of the response") }
                    place = .done
                    body = nil
                default:
                    throw invalid("expected a member of the response")
                }
            case .inResults:
                let row: JSONEvent
                do {
                    row = try await event(whole: true)
                } catch let error as JSONError where error.code == .tooLarge {
                    skippedRowCount += 1
                    continue
                }
                switch row {
                case .value(let json):
                    let change = Change(json: json)
                    rowsRead += 1
                    failedAttempts = 0
                    request.since = change.sequence
                    if let limit = request.limit { request.limit = max(0, limit - 1) }
                    return change
                case .endArray:
                    place = .inDocument
                default:
                    throw invalid("expected a row of results")
                }
            }
        }
    }

    /// The next event, feeding the reader from the body as needed.
    private func event(whole: Bool) async throws -> JSONEvent {
        while true {
            do {
                if let event = whole ? try reader.nextValue() : try reader.next() { return event }
            } catch where error.code == .tooLarge {
                throw error
            } catch {
                throw invalid("the response is not JSON: \(error)")
            }
            guard let body else { throw invalid("the response ended") }
            let chunk: [UInt8]?
            do {
                chunk = try await body.next()
            } catch let error as CouchClientError {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                // Whatever else broke the body is the network's doing, as for a whole response.
                throw CouchClientError(.network, method: "GET", url: database.client.baseURL + database.path + "/_changes",
                                       underlying: String(describing: error))
            }
            if let chunk {
                bytesReceived += chunk.count
                reader.feed(chunk)
            } else {
                reader.finish()
            }
        }
    }

    private func invalid(_ reason: String) -> CouchClientError {
        CouchClientError(.invalidResponse, reason: "_changes: \(reason)", method: "GET",
                         url: database.client.baseURL + database.path + "/_changes")
    }
}

extension CouchDatabase {
    /// `GET /{db}/_changes` read as it arrives (see ``ChangesFeedReader``); nothing is sent
    /// before its first row is asked for.
    ///
    /// - Parameters:
    ///   - request: what to ask for; usually without a limit, or with a large one.
    ///   - maximumRowBytes: the largest row taken whole; larger ones are passed over.
    public func changesFeed(_ request: ChangesRequest, maximumRowBytes: Int = 64 << 20) -> ChangesFeedReader {
        ChangesFeedReader(database: self, request: request, maximumRowBytes: maximumRowBytes)
    }
}
