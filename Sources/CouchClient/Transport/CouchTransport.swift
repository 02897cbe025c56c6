/// One HTTP request as the client sends it to a transport.
public struct CouchHTTPRequest: Sendable, Hashable {
    /// The method: `GET`, `PUT`, `POST`, `DELETE`, `HEAD`.
    public var method: String
    /// The full URL, without credentials.
    public var url: String
    /// Header fields in order.
    public var headers: [HeaderField]
    /// The body, if any.
    public var body: [UInt8]?

    /// A header field.
    public struct HeaderField: Sendable, Hashable {
        /// The field name.
        public var name: String
        /// The field value.
        public var value: String
        /// A field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// A request.
    public init(method: String, url: String, headers: [HeaderField] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// One HTTP response as a transport returns it.
public struct CouchHTTPResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// Header fields in order.
    public var headers: [CouchHTTPRequest.HeaderField]
    /// The whole body.
    public var body: [UInt8]

    /// A response.
    public init(status: Int, headers: [CouchHTTPRequest.HeaderField] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the field `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// Sends HTTP requests: ``HTTPClientTransport`` over AsyncHTTPClient, or a fake in tests.
///
/// A transport throws for network failures (``CouchClientError/Code-swift.struct/network``
/// or ``CouchClientError/Code-swift.struct/timeout`` when it can tell, any error otherwise)
/// and returns every HTTP response, whatever its status.
public protocol CouchTransport: Sendable {
    /// Sends `request` and returns the complete response.
    ///
    /// - Parameters:
    ///   - request: the request.
    ///   - timeout: the deadline for the whole exchange.
    /// - Throws: when no response arrived.
    func send(_ request: CouchHTTPRequest, timeout: Duration) async throws -> CouchHTTPResponse

    /// Sends `request` and returns as soon as the response head arrived; the body is read from
    /// the response as it arrives.
    ///
    /// The default sends with ``send(_:timeout:)`` and hands the whole body over as one chunk,
    /// so a transport that only wraps another one still works (without streaming).
    ///
    /// - Parameters:
    ///   - request: the request.
    ///   - timeout: the deadline for the response head; the body is bounded by the transport's
    ///     read timeout only (between chunks), since its reader sets its pace.
    /// - Throws: when no response arrived.
    func stream(_ request: CouchHTTPRequest, timeout: Duration) async throws -> CouchHTTPStreamingResponse
}

extension CouchTransport {
    /// Sends with ``send(_:timeout:)`` and hands the whole body over as one chunk.
    public func stream(_ request: CouchHTTPRequest, timeout: Duration) async throws -> CouchHTTPStreamingResponse {
        let response = try await send(request, timeout: timeout)
        return CouchHTTPStreamingResponse(status: response.status, headers: response.headers, body: CouchHTTPBody(response.body))
    }
}

/// One HTTP response whose body is read as it arrives.
public struct CouchHTTPStreamingResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Header fields in order.
    public var headers: [CouchHTTPRequest.HeaderField]
    /// The body, chunk by chunk.
    public var body: CouchHTTPBody

    /// A response.
    public init(status: Int, headers: [CouchHTTPRequest.HeaderField] = [], body: CouchHTTPBody) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the field `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// The body of a response, read chunk by chunk as the bytes arrive.
///
/// It is `@unchecked Sendable` so that it can be handed from one task to the next: it is read
/// by one task at a time (each read awaited before the next starts), never concurrently.
public final class CouchHTTPBody: @unchecked Sendable {
    private let nextChunk: () async throws -> [UInt8]?

    /// A body whose chunks `nextChunk` returns in order, `nil` at the end.
    public init(nextChunk: @escaping () async throws -> [UInt8]?) {
        self.nextChunk = nextChunk
    }

    /// A body that is already complete: `bytes` as one chunk.
    public convenience init(_ bytes: [UInt8]) {
        var remaining: [UInt8]? = bytes
        self.init { defer { remaining = nil }; return remaining }
    }

    /// The next chunk, `nil` at the end of the body.
    ///
    /// - Throws: when the connection failed before the body ended.
    public func next() async throws -> [UInt8]? {
        try await nextChunk()
    }

    /// The rest of the body, up to `limit` bytes (the rest is dropped).
    ///
    /// - Throws: when the connection failed before the body ended.
    public func collect(upTo limit: Int) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        while let chunk = try await next() {
            if bytes.count < limit { bytes.append(contentsOf: chunk.prefix(limit - bytes.count)) }
        }
        return bytes
    }
}
