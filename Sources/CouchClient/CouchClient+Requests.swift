import Foundation
import Logging

/// A decoded response.
struct CouchResponse: Sendable {
    var status: Int
    var headers: [CouchHTTPRequest.HeaderField]
    var json: CouchJSON
}

extension CouchClient {
    /// Sends one request, retrying transient failures, and returns a 2xx response.
    ///
    /// - Parameters:
    ///   - path: already percent-encoded, starting with `/` (or empty for the root).
    ///   - query: names and values, encoded here.
    /// - Throws: ``CouchClientError`` for any failure.
    func send(_ method: String, path: String, query: [(String, String)] = [], body: CouchJSON? = nil,
              documentID: String? = nil) async throws -> CouchResponse {
        var url = baseURL + path
        if !query.isEmpty {
            url += "?" + query.map { PathEncoding.encode($0.0) + "=" + PathEncoding.encode($0.1) }.joined(separator: "&")
        }
        var headers: [CouchHTTPRequest.HeaderField] = [.init(name: "Accept", value: "application/json")]
        var bytes: [UInt8]?
        if let body {
            do {
                bytes = Array(try body.serialized())
            } catch {
                throw CouchClientError(.invalidDocument, reason: String(describing: error), documentID: documentID,
                                       method: method, url: url)
            }
            headers.append(.init(name: "Content-Type", value: "application/json"))
        }
        if let credentials {
            let token = Data("\(credentials.name):\(credentials.password)".utf8).base64EncodedString()
            headers.append(.init(name: "Authorization", value: "Basic \(token)"))
        }
        let request = CouchHTTPRequest(method: method, url: url, headers: headers, body: bytes)
        let policy = configuration.retry
        var attempt = 0
        while true {
            attempt += 1
            let failure: CouchClientError
            var retryAfter: Duration?
            do {
                let response = try await transport.send(request, timeout: configuration.requestTimeout)
                if (200..<300).contains(response.status) {
                    return try decode(response, method: method, url: url, documentID: documentID)
                }
                failure = Self.error(for: response, method: method, url: url, documentID: documentID, attempts: attempt)
                retryAfter = response.header("Retry-After").flatMap(Self.parseRetryAfter)
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
            guard failure.isTransient, attempt < policy.maximumAttempts else { throw failure }
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
                                 json: try CouchJSON(parsing: Data(response.body)))
        } catch {
            throw CouchClientError(.invalidResponse, status: response.status, reason: "the response is not JSON",
                                   documentID: documentID, method: method, url: url)
        }
    }

    static func error(for response: CouchHTTPResponse, method: String, url: String, documentID: String?,
                      attempts: Int) -> CouchClientError {
        let json = try? CouchJSON(parsing: Data(response.body))
        return CouchClientError(
            .forStatus(response.status), status: response.status,
            error: json?["error"]?.stringValue, reason: json?["reason"]?.stringValue,
            documentID: documentID, method: method, url: url, attempts: attempts
        )
    }

    /// `Retry-After` in seconds (the HTTP-date form is ignored).
    static func parseRetryAfter(_ value: String) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed), seconds >= 0 { return .seconds(seconds) }
        if let seconds = Double(trimmed), seconds >= 0 { return .milliseconds(Int(seconds * 1000)) }
        return nil
    }
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
