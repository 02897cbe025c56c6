/// One way the network between a client and a server can fail, as ``FaultProxy`` injects it.
///
/// Kinds marked *applied* forward the request to the server first, so the server has done the
/// work and only the answer is lost or damaged: those are the faults that find lost or
/// duplicated writes in sync code.
public enum FaultKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// The connection is reset (TCP RST) before the request reaches the server.
    case resetBeforeForwarding
    /// The request reaches the server (*applied*), then the client's connection is reset
    /// instead of answered.
    case resetAfterForwarding
    /// No answer at all: the request is held for ``FaultProxy/Configuration/stallDuration``
    /// (longer than the client's timeout), then the connection is closed. Not forwarded.
    case stall
    /// The request is forwarded (*applied*) and the whole answer arrives, but slowly: the body in
    /// small pieces with a pause between them.
    case slowBody
    /// The request is forwarded (*applied*); the answer announces its full length but stops
    /// half-way and the connection closes.
    case truncatedResponse
    /// `500 Internal Server Error` with a CouchDB error body. Not forwarded.
    case internalServerError
    /// `503 Service Unavailable` with `Retry-After`. Not forwarded.
    case serviceUnavailable
    /// `429 Too Many Requests` with `Retry-After`. Not forwarded.
    case tooManyRequests
    /// The request reaches the server twice (*applied* twice); the client gets the second
    /// answer, as after a retransmission whose first answer was lost.
    case duplicatedRequest

    /// Whether the server receives the request before the fault (so the client cannot tell
    /// whether its write happened).
    public var forwardsRequest: Bool {
        switch self {
        case .resetAfterForwarding, .slowBody, .truncatedResponse, .duplicatedRequest: true
        case .resetBeforeForwarding, .stall, .internalServerError, .serviceUnavailable, .tooManyRequests: false
        }
    }
}
