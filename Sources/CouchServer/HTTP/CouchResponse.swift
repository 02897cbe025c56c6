import Hummingbird
import JSONText
import NIOCore

/// An answer before the common headers are added.
struct CouchResponse: Sendable {
    enum Body: Sendable {
        case json(JSONValue)
        case bytes([UInt8], contentType: String)
        /// Written as it is produced (longpoll heartbeats, continuous feeds).
        case stream(@Sendable (inout any ResponseBodyWriter) async throws -> Void)
        /// Bytes and files sent one after the other with a known length (attachments, multipart).
        case pieces(ResponsePieces)
        case empty
    }

    var status: HTTPResponse.Status
    var headers: HTTPFields = [:]
    var body: Body

    init(status: HTTPResponse.Status = .ok, _ json: JSONValue) {
        self.status = status
        self.body = .json(json)
    }

    init(status: HTTPResponse.Status, body: Body) {
        self.status = status
        self.body = body
    }

    /// `{"ok": true}`.
    static func ok(status: HTTPResponse.Status = .ok) -> CouchResponse {
        CouchResponse(status: status, .object(["ok": .bool(true)]))
    }

    /// The answer to a failure.
    static func error(_ error: CouchError) -> CouchResponse {
        CouchResponse(status: HTTPResponse.Status(code: error.code.status), error.body)
    }

    mutating func setHeader(_ name: String, _ value: String) {
        if let field = HeaderName(name) { headers[field] = value }
    }

    /// Sets `ETag: "value"`.
    mutating func setETag(_ value: String) {
        setHeader("ETag", "\"\(value)\"")
    }
}
