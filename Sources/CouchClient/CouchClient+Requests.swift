import ExtrasBase64
import Foundation
import JSONText
import Logging

/// A decoded response.
struct CouchResponse: Sendable {
    var status: Int
    var headers: [CouchHTTPRequest.HeaderField]
    var json: JSONValue
}

extension CouchClient {
    /// Sends one request, retrying transient failures, and returns a 2xx response.
    ///
    /// - Parameters:
    ///   - path: already percent-encoded, starting with `/` (or empty for the root).
    ///   - query: names and values, encoded here.
    /// - Throws: ``CouchClientError`` for any failure.
    func send(_ method: String, path: String, query: [(String, String)] = [], body: JSONValue? = nil,
              documentID: String? = nil) async throws -> CouchResponse {
        try await send(method, path: path, query: query, bodyText: body?.serialized(), documentID: documentID)
    }

    /// ``send(_:path:query:body:documentID:)`` with a body already written as JSON text.
    func send(_ method: String, path: String, query: [(String, String)] = [], bodyText body: [UInt8]?,
              documentID: String? = nil) async throws -> CouchResponse {
        let (response, url) = try await exchange(method, path: path, query: query, body: body, documentID: documentID) { request in
            let response = try await transport.send(request, timeout: configuration.requestTimeout)
            return (response, response)
        }
        return try decode(response, method: method, url: url, documentID: documentID)
    }

    /// Sends one request, retrying transient failures until the head of a 2xx response arrives,
    /// and returns that response with its body still to be read (as it arrives).
    ///
    /// A failure while the body is read is not retried here: the reader knows where to resume.
    ///
    /// - Throws: ``CouchClientError`` for any failure before the body.
    func stream(_ method: String, path: String, query: [(String, String)] = []) async throws -> CouchHTTPStreamingResponse {
        try await exchange(method, path: path, query: query, body: nil, documentID: nil) { request in
            let response = try await transport.stream(request, timeout: configuration.requestTimeout)
            guard (200..<300).contains(response.status) else {
                // An error's body is small: read it whole for its `error` and `reason`.
                let body = try await response.body.collect(upTo: 1 << 20)
                return (CouchHTTPResponse(status: response.status, headers: response.headers, body: body), response)
            }
            return (CouchHTTPResponse(status: response.status, headers: response.headers), response)
        }.response
    }

    /// The retry loop of ``send(_:path:query:body:documentID:)`` and ``stream(_:path:query:)``:
    /// builds the request (credentials, cookie), lets `attempt` exchange it, and repeats
    /// transient failures by ``RetryPolicy``.
    ///
    /// - Parameter attempt: sends the request; returns the response as far as the loop needs it
    ///   (status, headers, and for a failure its body) and what the caller gets on success.
    private func exchange<Answer>(_ method: String, path: String, query: [(String, String)], body: [UInt8]?,
                                  documentID: String?,
                                  attempt send: (CouchHTTPRequest) async throws -> (CouchHTTPResponse, Answer)) async throws -> (response: Answer, url: String) {
        var url = baseURL + path
        if !query.isEmpty {
            url += "?" + query.map { PathEncoding.encode($0.0) + "=" + PathEncoding.encode($0.1) }.joined(separator: "&")
        }
        var headers: [CouchHTTPRequest.HeaderField] = [.init(name: "Accept", value: "application/json")]
        if body != nil { headers.append(.init(name: "Content-Type", value: "application/json")) }
        let usesCookie = credentials != nil && configuration.authentication == .cookie
        if let credentials, !usesCookie {
            let token = Base64.encodeToString(bytes: Array("\(credentials.name):\(credentials.password)".utf8))
            headers.append(.init(name: "Authorization", value: "Basic \(token)"))
        }
        var request = CouchHTTPRequest(method: method, url: url, headers: headers, body: body)
        let policy = configuration.retry
        var attempt = 0
        var loggedInAgain = false
        while true {
            attempt += 1
            let failure: CouchClientError
            var retryAfter: Duration?
            do {
                if usesCookie {
                    let cookie = try await sessionCookie()
                    request.headers = headers + [.init(name: "Cookie", value: cookie)]
                }
                let (response, answer) = try await send(request)
                reachability.markAnswered()
                if usesCookie {
                    if let fresh = response.header("Set-Cookie").flatMap(Self.authSessionCookie) { session.set(fresh) }
                    if response.status == 401 && !loggedInAgain {
                        // The session expired: log in again once, at once.
                        loggedInAgain = true
                        session.set(nil)
                        attempt -= 1
                        continue
                    }
                }
                if (200..<300).contains(response.status) {
                    return (answer, url)
                }
                failure = Self.error(for: response, method: method, url: url, documentID: documentID, attempts: attempt)
                retryAfter = response.header("Retry-After").flatMap { Self.parseRetryAfter($0) }
            } catch let error as CouchClientError {
                if error.code == .invalidResponse { throw error }
                var error = error
                error.method = method
                error.url = url
                error.documentID = documentID
                error.attempts = attempt
                failure = error
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                failure = CouchClientError(.network, method: method, url: url, underlying: String(describing: error),
                                           attempts: attempt)
            }
            // A refusal from a server that has answered before is a restart, which heals.
            let heals = failure.isTransient || (failure.code == .connectionRefused && reachability.hasAnswered)
            guard heals, attempt < policy.maximumAttempts else { throw failure }
            let delay = policy.delay(afterAttempt: attempt, retryAfter: retryAfter)
            logger.debug("retrying CouchDB request", metadata: [
                "method": "\(method)", "url": "\(url)", "attempt": "\(attempt)", "error": "\(failure.code)",
                "delay": "\(delay)",
            ])
            try await sleep(delay)
        }
    }

    private func decode(_ response: CouchHTTPResponse, method: String, url: String, documentID: String?) throws -> CouchResponse {
        if response.body.isEmpty || method == "HEAD" {
            return CouchResponse(status: response.status, headers: response.headers, json: .null)
        }
        do {
            return CouchResponse(status: response.status, headers: response.headers,
                                 json: try JSONValue(parsing: response.body))
        } catch {
            throw CouchClientError(.invalidResponse, status: response.status, reason: "the response is not JSON",
                                   documentID: documentID, method: method, url: url)
        }
    }

    static func error(for response: CouchHTTPResponse, method: String, url: String, documentID: String?,
                      attempts: Int) -> CouchClientError {
        let json = try? JSONValue(parsing: response.body)
        return CouchClientError(
            .forStatus(response.status), status: response.status,
            error: json?["error"]?.stringValue, reason: json?["reason"]?.stringValue,
            documentID: documentID, method: method, url: url, attempts: attempts
        )
    }

    /// `Retry-After` as seconds, or as an HTTP date (the time left until then).
    static func parseRetryAfter(_ value: String, now: Date = Date()) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed), seconds >= 0 { return .seconds(seconds) }
        if let seconds = Double(trimmed), seconds >= 0 { return .milliseconds(Int(seconds * 1000)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) {
                return .milliseconds(max(0, Int((date.timeIntervalSince(now) * 1000).rounded(.up))))
            }
        }
        return nil
    }

    /// The `AuthSession=…` pair of a `Set-Cookie` header.
    static func authSessionCookie(_ header: String) -> String? {
        guard let pair = header.split(separator: ";").first?.trimmingCharacters(in: .whitespaces),
              pair.hasPrefix("AuthSession="), pair.count > "AuthSession=".count else { return nil }
        return pair
    }

    /// The current session cookie, logging in with `POST /_session` when there is none.
    func sessionCookie() async throws -> String {
        if let cookie = session.value { return cookie }
        guard let credentials else { throw CouchClientError(.unauthorized, reason: "cookie authentication needs credentials") }
        let url = baseURL + "/_session"
        let body = JSONValue.object(["name": .string(credentials.name), "password": .string(credentials.password)]).serialized()
        let request = CouchHTTPRequest(method: "POST", url: url,
                                       headers: [.init(name: "Accept", value: "application/json"),
                                                 .init(name: "Content-Type", value: "application/json")],
                                       body: Array(body))
        let response: CouchHTTPResponse
        do {
            response = try await transport.send(request, timeout: configuration.requestTimeout)
        } catch let error as CouchClientError {
            var error = error
            error.method = "POST"
            error.url = url
            throw error
        } catch {
            throw CouchClientError(.network, method: "POST", url: url, underlying: String(describing: error))
        }
        guard (200..<300).contains(response.status) else {
            throw Self.error(for: response, method: "POST", url: url, documentID: nil, attempts: 1)
        }
        guard let cookie = response.header("Set-Cookie").flatMap(Self.authSessionCookie) else {
            throw CouchClientError(.invalidResponse, status: response.status, reason: "the server sent no AuthSession cookie", method: "POST", url: url)
        }
        session.set(cookie)
        return cookie
    }
}

/// The session cookie shared by copies of a client.
final class SessionCookie: @unchecked Sendable {
    private let lock = NSLock()
    private var cookie: String?

    var value: String? { lock.withLock { cookie } }
    func set(_ value: String?) { lock.withLock { cookie = value } }
}

/// Whether a server has answered at least once (a later refused connection is then a restart).
final class ServerReachability: @unchecked Sendable {
    private let lock = NSLock()
    private var answered = false

    var hasAnswered: Bool { lock.withLock { answered } }
    func markAnswered() { lock.withLock { answered = true } }
}

/// Percent-encoding for path segments and query values.
enum PathEncoding {
    private static let unreserved = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")

    /// Encodes everything but unreserved characters (so `/`, `+`, `?`, `%` are encoded).
    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// A document id as a path: `_design/` and `_local/` prefixes stay, the rest is encoded.
    static func documentPath(_ id: String) -> String {
        for prefix in ["_design/", "_local/"] where id.hasPrefix(prefix) {
            return prefix + encode(String(id.dropFirst(prefix.count)))
        }
        return encode(id)
    }
}
