import HTTPServerSupport
import Hummingbird
import JSONText
import NIOCore

/// A header field name (`HTTPField.Name`, which Hummingbird does not re-export).
typealias HeaderName = HTTPFields.Element.Name

/// A request as the handlers see it: decoded path segments, query parameters, the collected
/// body and who sent it.
struct CouchRequest: Sendable {
    var method: HTTPRequest.Method
    /// Path segments, percent-decoded (`%2F` inside a segment stays a `/` in that segment).
    var segments: [String]
    /// Path and query as sent, for logs.
    var target: String
    /// Query parameters, decoded; the last of repeated names wins.
    var query: [String: String]
    var headers: HTTPFields
    var body: [UInt8]
    /// The body not yet read, for a standalone attachment `PUT` (streamed to a file instead
    /// of collected into ``body``).
    var bodyStream: RequestBody?
    var identity: Authenticator.Identity = .anonymous
    /// `host:port` the client addressed, for `Location` headers.
    var authority: String

    /// Whether the client accepts JSON (else CouchDB answers `text/plain`).
    var acceptsJSON: Bool {
        headers[.accept].map { $0.contains("application/json") } ?? false
    }

    func header(_ name: String) -> String? {
        HeaderName(name).flatMap { headers[$0] }
    }

    /// A Boolean query parameter (`true`/`false`); absent is `defaultValue`.
    func flag(_ name: String, default defaultValue: Bool = false) throws(CouchError) -> Bool {
        guard let value = query[name] else { return defaultValue }
        switch value {
        case "true": return true
        case "false": return false
        default: throw CouchError(.badRequest, reason: "Invalid boolean parameter: \"\(value)\"")
        }
    }

    /// A non-negative integer query parameter.
    func integer(_ name: String) throws(CouchError) -> Int? {
        guard let value = query[name] else { return nil }
        guard let number = Int(value), number >= 0 else {
            throw CouchError(.badRequest, reason: "Invalid value for integer parameter \"\(name)\": \"\(value)\"")
        }
        return number
    }

    /// A query parameter holding JSON (`startkey="a"`, `keys=[…]`).
    func json(_ name: String) throws(CouchError) -> JSONValue? {
        guard let value = query[name] else { return nil }
        do {
            return try JSONValue(parsing: Array(value.utf8), options: Self.jsonOptions)
        } catch {
            throw CouchError(.badRequest, reason: "Invalid JSON for parameter \"\(name)\"")
        }
    }

    /// How requests' JSON is read: as CouchDB reads it, a `\u` escape of half a UTF-16
    /// surrogate pair is refused rather than changed into U+FFFD.
    static let jsonOptions = JSONReadingOptions(maximumDepth: 512, replacesLoneSurrogates: false)

    /// The body as JSON.
    func jsonBody() throws(CouchError) -> JSONValue {
        do {
            return try JSONValue(parsing: body, options: Self.jsonOptions)
        } catch {
            throw CouchError(.badRequest, reason: "invalid UTF-8 JSON")
        }
    }

    /// The body as a JSON object.
    func jsonObjectBody() throws(CouchError) -> JSONObject {
        guard let object = try jsonBody().objectValue else {
            throw CouchError(.badRequest, reason: "Request body must be a JSON object")
        }
        return object
    }

    /// POST endpoints insist on `Content-Type: application/json`, as CouchDB does.
    func requireJSONContentType() throws(CouchError) {
        guard let type = headers[.contentType], type.lowercased().hasPrefix("application/json") else {
            throw CouchError(.badContentType, reason: "Content-Type must be application/json")
        }
    }
}

extension PercentEncoding {
    /// The punctuation CouchDB leaves as it is when it writes a document id or database name
    /// into a URL (`_ . - :`); every other byte but letters and digits becomes `%XX`.
    static let couchIDPunctuation: Set<UInt8> = Set("_.-:".utf8)
}
