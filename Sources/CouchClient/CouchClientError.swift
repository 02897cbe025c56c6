/// Why a CouchDB call failed: what kind of failure (``code-swift.property``), the HTTP status,
/// CouchDB's `error` and `reason`, and the document concerned.
///
/// It never holds a password: URLs in it are the ones sent, which carry no credentials.
///
/// ```swift
/// do {
///     _ = try await database.document(id: "alice")
/// } catch let error as CouchClientError where error.code == .notFound {
///     print("no such contact")
/// }
/// ```
public struct CouchClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A kind of failure. New kinds may be added without breaking callers.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// A short name, like `not_found`.
        public let name: String
        init(_ name: String) { self.name = name }
        /// The name.
        public var description: String { name }

        /// 400: the server rejected the request.
        public static let badRequest = Code("bad_request")
        /// 401: missing or wrong credentials.
        public static let unauthorized = Code("unauthorized")
        /// 403: the credentials do not allow this.
        public static let forbidden = Code("forbidden")
        /// 404: no such database or document.
        public static let notFound = Code("not_found")
        /// 409: the revision given is not the current one.
        public static let conflict = Code("conflict")
        /// 412: the database already exists, or another precondition failed.
        public static let preconditionFailed = Code("precondition_failed")
        /// 413: the request or a document is too large.
        public static let tooLarge = Code("too_large")
        /// 429: the server asks to slow down.
        public static let tooManyRequests = Code("too_many_requests")
        /// 5xx: the server failed.
        public static let serverError = Code("server_error")
        /// Any other unexpected status.
        public static let unexpectedStatus = Code("unexpected_status")
        /// The connection failed or was lost.
        public static let network = Code("network")
        /// Nothing listens at the server's address and port: the connection was refused. Not
        /// retried before the server has answered once (a server that answered and then refuses
        /// is restarting, and that can heal).
        public static let connectionRefused = Code("connection_refused")
        /// The server's host name is not known (no DNS answer). Not retried.
        public static let unknownHost = Code("unknown_host")
        /// No response in time.
        public static let timeout = Code("timeout")
        /// No secure connection: the server's TLS certificate was not trusted (unknown issuer,
        /// expired, another host's name) or the TLS handshake failed. Retrying does not help.
        public static let tls = Code("tls")
        /// The response was not the JSON expected.
        public static let invalidResponse = Code("invalid_response")
        /// The URL given cannot be used.
        public static let invalidURL = Code("invalid_url")
        /// A document or request body could not be encoded.
        public static let invalidDocument = Code("invalid_document")

        /// The code for an HTTP error status.
        public static func forStatus(_ status: Int) -> Code {
            switch status {
            case 400: .badRequest
            case 401: .unauthorized
            case 403: .forbidden
            case 404: .notFound
            case 409: .conflict
            case 412: .preconditionFailed
            case 413: .tooLarge
            case 429: .tooManyRequests
            case 500...599: .serverError
            default: .unexpectedStatus
            }
        }
    }

    /// The kind of failure.
    public var code: Code
    /// The HTTP status, when a response arrived.
    public var status: Int?
    /// CouchDB's `error` field, like `conflict`.
    public var error: String?
    /// CouchDB's `reason` field, like `Document update conflict.`
    public var reason: String?
    /// The document concerned, if any.
    public var documentID: String?
    /// The method and URL of the request (never with credentials).
    public var method: String?
    /// The URL of the request (never with credentials).
    public var url: String?
    /// A description of the lower-level failure (network errors).
    public var underlying: String?
    /// How many attempts were made.
    public var attempts: Int

    /// An error.
    public init(_ code: Code, status: Int? = nil, error: String? = nil, reason: String? = nil,
                documentID: String? = nil, method: String? = nil, url: String? = nil,
                underlying: String? = nil, attempts: Int = 1) {
        self.code = code
        self.status = status
        self.error = error
        self.reason = reason
        self.documentID = documentID
        self.method = method
        self.url = url
        self.underlying = underlying
        self.attempts = attempts
    }

    /// Whether retrying the same request may succeed (network failures, timeouts, 5xx, 429).
    /// A refused connection or an unknown host is not: they do not heal in seconds.
    public var isTransient: Bool {
        code == .network || code == .timeout || code == .serverError || code == .tooManyRequests
            || status == 408
    }

    /// One line: `couchdb: 409 conflict: Document update conflict. (doc "alice", PUT http://…)`.
    public var description: String {
        var text = "couchdb: "
        if let status { text += "\(status) " }
        text += error ?? code.name
        if let reason { text += ": \(reason)" }
        if let underlying { text += ": \(underlying)" }
        var context: [String] = []
        if let documentID { context.append("doc \"\(documentID)\"") }
        if let url { context.append([method, url].compactMap { $0 }.joined(separator: " ")) }
        if attempts > 1 { context.append("after \(attempts) attempts") }
        if !context.isEmpty { text += " (" + context.joined(separator: ", ") + ")" }
        return text
    }
}
