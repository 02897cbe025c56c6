public import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A ``CouchTransport`` over AsyncHTTPClient's `HTTPClient` (connection pooling, TLS).
public struct HTTPClientTransport: CouchTransport {
    /// The client; its owner shuts it down.
    public let client: HTTPClient
    /// The largest response body read.
    public var maximumResponseSize: Int

    /// A transport over `client`, which the caller keeps and shuts down.
    public init(client: HTTPClient, maximumResponseSize: Int = 512 * 1024 * 1024) {
        self.client = client
        self.maximumResponseSize = maximumResponseSize
    }

    /// The request as AsyncHTTPClient sends it.
    private static func outgoing(_ request: CouchHTTPRequest) -> HTTPClientRequest {
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = .init(rawValue: request.method)
        for field in request.headers {
            outgoing.headers.add(name: field.name, value: field.value)
        }
        if let body = request.body {
            outgoing.body = .bytes(body)
        }
        return outgoing
    }

    /// Sends the request and reads the whole response.
    public func send(_ request: CouchHTTPRequest, timeout: Duration) async throws -> CouchHTTPResponse {
        let outgoing = Self.outgoing(request)
        let nanoseconds = timeout.nanoseconds
        do {
            let response = try await client.execute(outgoing, timeout: .nanoseconds(max(nanoseconds, 1)))
            let buffer = try await response.body.collect(upTo: maximumResponseSize)
            return CouchHTTPResponse(
                status: Int(response.status.code),
                headers: response.headers.map { .init(name: $0.name, value: $0.value) },
                body: Array(buffer.readableBytesView)
            )
        } catch {
            throw Self.transportError(error, url: request.url)
        }
    }

    /// Sends the request and returns at the response head; the body's chunks are read as they
    /// arrive (the connection's read timeout applies between chunks).
    public func stream(_ request: CouchHTTPRequest, timeout: Duration) async throws -> CouchHTTPStreamingResponse {
        let outgoing = Self.outgoing(request)
        let response: HTTPClientResponse
        do {
            response = try await client.execute(outgoing, timeout: .nanoseconds(max(timeout.nanoseconds, 1)))
        } catch {
            throw Self.transportError(error, url: request.url)
        }
        let chunks = BodyChunks(response.body.makeAsyncIterator())
        let url = request.url
        return CouchHTTPStreamingResponse(
            status: Int(response.status.code),
            headers: response.headers.map { .init(name: $0.name, value: $0.value) },
            body: CouchHTTPBody {
                do {
                    return try await chunks.next()
                } catch {
                    throw Self.transportError(error, url: url)
                }
            }
        )
    }

    /// The iterator over a response body's buffers, read by one task at a time (see ``CouchHTTPBody``).
    private final class BodyChunks: @unchecked Sendable {
        private var iterator: HTTPClientResponse.Body.AsyncIterator
        init(_ iterator: HTTPClientResponse.Body.AsyncIterator) { self.iterator = iterator }
        func next() async throws -> [UInt8]? {
            try await iterator.next().map { Array($0.readableBytesView) }
        }
    }

    /// A failure of AsyncHTTPClient, NIO or TLS as a ``CouchClientError`` (other errors as they are).
    static func transportError(_ error: any Error, url: String) -> any Error {
        switch error {
        case let error as HTTPClientError:
            let isTimeout = error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout
                || error == .writeTimeout
            return CouchClientError(isTimeout ? .timeout : .network, url: url, underlying: String(describing: error))
        case let error as NIOSSLError:
            return CouchClientError(.tls, url: url, underlying: Self.tlsReason(error))
        case let error as NIOSSLExtraError:
            return CouchClientError(.tls, url: url, underlying: String(describing: error))
        case let error as IOError where error.errnoCode == ECONNREFUSED:
            return Self.refused(url)
        case let error as NIOConnectionError:
            return Self.connectionError(error, url: url)
        default:
            return error
        }
    }

    /// A refused connection, named plainly: `nothing is listening on 127.0.0.1:9`.
    static func refused(_ url: String) -> CouchClientError {
        CouchClientError(.connectionRefused, url: url, underlying: "nothing is listening on \(Self.hostAndPort(of: url))")
    }

    /// What the attempts to connect to every address of the host came to.
    static func connectionError(_ error: NIOConnectionError, url: String) -> CouchClientError {
        let errors = error.connectionErrors.map(\.error)
        if !errors.isEmpty, errors.allSatisfy({ ($0 as? IOError)?.errnoCode == ECONNREFUSED }) {
            return refused(url)
        }
        if errors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
            return CouchClientError(.unknownHost, url: url, underlying: "the host \(error.host) is not known (no address found for it)")
        }
        let first = errors.first.map { ($0 as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? String(describing: $0) }
        return CouchClientError(.network, url: url, underlying: "cannot connect to \(error.host):\(error.port)" + (first.map { ": \($0)" } ?? ""))
    }

    /// `host:port` of an http(s) URL, with the scheme's default port.
    static func hostAndPort(of url: String) -> String {
        guard let components = URLComponents(string: url), let host = components.host else { return url }
        let port = components.port ?? (components.scheme?.lowercased() == "https" ? 443 : 80)
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// BoringSSL's reason (`CERTIFICATE_VERIFY_FAILED`) rather than its whole error stack, which
    /// names source files of the build.
    static func tlsReason(_ error: NIOSSLError) -> String {
        let text = String(describing: error)
        guard let marker = text.range(of: "OPENSSL_internal:") else { return text }
        let reason = text[marker.upperBound...].prefix { $0 != " " && $0 != "]" && $0 != ")" }
        if reason == "CERTIFICATE_VERIFY_FAILED" {
            return "the server's certificate could not be verified (CERTIFICATE_VERIFY_FAILED: self-signed, unknown issuer, expired or for another host)"
        }
        return "TLS handshake failed (\(reason))"
    }
}
