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
}
