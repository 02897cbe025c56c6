import Foundation
import Hummingbird
import Logging
import NIOCore

/// Turns Hummingbird requests into ``WebRequest``s, checks the CSRF token of every POST, asks
/// the site for the page, and adds the headers every answer carries (the Content-Security-Policy
/// first of all).
typealias HeaderName = HTTPFields.Element.Name

struct WebResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    let site: WebSite

    /// Nothing from elsewhere, no inline script or style, no framing, forms post only here; the
    /// script may fetch from this server only (search as you type, the raw editor's check).
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    func respond(to request: Request, context: Context) async throws -> Response {
        let started = ContinuousClock.now
        var answer: WebResponse
        do throws(WebError) {
            let webRequest = try await makeRequest(request)
            if WebServerConfiguration.isLoopback(site.configuration.host) && !Self.isLoopbackHost(request) {
                answer = WebResponse(status: 421, contentType: "text/plain; charset=utf-8",
                                     body: Array("cardsync web answers requests for 127.0.0.1, localhost or [::1] only.\n".utf8))
            } else if webRequest.method == "POST" && !site.csrf.accepts(webRequest.form["csrf"]) {
                answer = site.forbidden()
            } else if webRequest.method == "POST" && !Self.isSameOrigin(request) {
                answer = site.forbidden()
            } else if let signIn = site.signIn, !SignInGuard.isPublic(webRequest.path),
                      !signIn.isSignedIn(cookieHeader: request.headers[.cookie]) {
                answer = webRequest.method == "GET" || webRequest.method == "HEAD" ? .redirect(to: "/login")
                    : site.signInPage(notice: Notice(kind: .error, message: "Sign in first; nothing was changed."), status: 401)
            } else {
                answer = await site.respond(to: webRequest)
            }
        } catch {
            answer = site.errorPage(error)
        }
        var headers = HTTPFields()
        headers[.contentType] = answer.contentType
        headers[HeaderName("Content-Security-Policy")!] = Self.contentSecurityPolicy
        headers[HeaderName("X-Content-Type-Options")!] = "nosniff"
        headers[HeaderName("X-Frame-Options")!] = "DENY"
        headers[HeaderName("Referrer-Policy")!] = "no-referrer"
        headers[.cacheControl] = answer.contentType.hasPrefix("text/css") || answer.contentType.hasPrefix("text/javascript")
            ? "max-age=3600" : "no-store"
        for (name, value) in answer.headers {
            if let field = HeaderName(name) { headers[field] = value }
        }
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        headers[HeaderName("Server-Timing")!] = String(format: "app;dur=%.2f", milliseconds)
        site.logger.info("\(request.method) \(request.uri.path) \(answer.status)", metadata: ["ms": "\(String(format: "%.1f", milliseconds))"])
        let body = request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body))
        return Response(status: HTTPResponse.Status(code: answer.status), headers: headers, body: body)
    }

    /// Whether the request names this computer as its host: a page of another site whose name
    /// was made to point at 127.0.0.1 (DNS rebinding) names its own host and is refused.
    static func isLoopbackHost(_ request: Request) -> Bool {
        guard let authority = request.head.authority else { return true }
        var host = Substring(authority)
        if host.hasPrefix("[") {
            host = host.dropFirst().prefix { $0 != "]" }
        } else if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        return WebServerConfiguration.isLoopback(String(host).lowercased())
    }

    /// A POST whose `Origin` (sent by every current browser) names another site is refused too.
    static func isSameOrigin(_ request: Request) -> Bool {
        guard let origin = request.headers[HeaderName("Origin")!], origin != "null" else { return true }
        guard let authority = request.head.authority else { return false }
        return origin == "http://\(authority)" || origin == "https://\(authority)"
    }

    private func makeRequest(_ request: Request) async throws(WebError) -> WebRequest {
        var body: [UInt8] = []
        let method = request.method.rawValue
        if request.method == .post {
            do {
                let buffer = try await request.body.collect(upTo: site.configuration.maximumUploadSize)
                body = Array(buffer.readableBytesView)
            } catch {
                throw WebError(status: 413, message: "The upload is larger than \(site.configuration.maximumUploadSize >> 20) MB; nothing was changed.")
            }
        }
        let contentType = request.headers[.contentType]
        var form = FormFields()
        if method == "POST", let contentType {
            if contentType.hasPrefix("application/x-www-form-urlencoded") {
                form = FormFields(urlEncoded: String(decoding: body, as: UTF8.self))
            } else if contentType.hasPrefix("multipart/form-data") {
                form = MultipartForm.textFields(body, contentType: contentType)
            }
        }
        return WebRequest(method: method, path: request.uri.path, query: FormFields(urlEncoded: request.uri.query ?? ""),
                          form: form, body: body, contentType: contentType)
    }
}

/// A request the site cannot answer as asked: the status and a message for the page.
struct WebError: Error, Sendable {
    var status: Int
    var message: String
}
