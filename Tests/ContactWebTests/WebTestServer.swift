import AsyncHTTPClient
import ContactStore
@testable import ContactWeb
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOHTTP1
import TestSupport

/// A real `cardsync web` server on a free loopback port over a temporary book, and a real HTTP
/// client (AsyncHTTPClient) talking to it.
struct WebTestClient: Sendable {
    let port: Int
    let book: URL
    let client: HTTPClient
    /// The book the server has open.
    let openBook: AddressBook

    struct Answer: Sendable {
        var status: Int
        var headers: [(String, String)]
        var body: String

        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }

        /// The value of the first hidden field named `name` on the page.
        func hiddenValue(_ name: String) -> String? {
            guard let range = body.range(of: "name=\"\(name)\" value=\"") else { return nil }
            return String(body[range.upperBound...].prefix { $0 != "\"" })
        }
    }

    func get(_ path: String) async throws -> Answer {
        try await send(path, method: .GET, body: nil, contentType: nil)
    }

    /// Posts form fields (x-www-form-urlencoded).
    func post(_ path: String, _ fields: [(String, String)]) async throws -> Answer {
        let body = fields.map { FormFields.encode($0.0) + "=" + FormFields.encode($0.1) }.joined(separator: "&")
        return try await send(path, method: .POST, body: Array(body.utf8), contentType: "application/x-www-form-urlencoded")
    }

    func send(_ path: String, method: HTTPMethod, body: [UInt8]?, contentType: String?, host: String? = nil) async throws -> Answer {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        if let host { request.headers.replaceOrAdd(name: "Host", value: host) }
        if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(request, timeout: .seconds(60))
        let buffer = try await response.body.collect(upTo: 64 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
                      body: String(buffer: buffer))
    }

    /// Posts a file as the import form does (multipart/form-data), with the page's CSRF token.
    func upload(_ bytes: [UInt8], fileName: String, contentType: String = "application/octet-stream") async throws -> Answer {
        let boundary = "----cardsync-test-\(UUID().uuidString)"
        var body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n\(try await csrfToken())\r\n".utf8)
        body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"\(fileName)\"\r\nContent-Type: \(contentType)\r\n\r\n".utf8)
        body += bytes
        body += Array("\r\n--\(boundary)--\r\n".utf8)
        return try await send("/import", method: .POST, body: body, contentType: "multipart/form-data; boundary=\(boundary)")
    }

    /// The CSRF token the pages carry.
    func csrfToken() async throws -> String {
        try await get("/new").hiddenValue("csrf") ?? ""
    }

    /// The edit page of `uid` as a browser would submit it untouched: every text field and
    /// hidden field with the value shown (check boxes left unticked, selects at their first choice).
    func editForm(_ uid: String) async throws -> [(String, String)] {
        Self.formFields(in: try await get("/contact/edit?uid=\(FormFields.encode(uid))").body)
    }

    /// The fields an edit page (`body`) submits untouched (see ``editForm(_:)``).
    static func formFields(in body: String) -> [(String, String)] {
        let form = String(body[..<(body.range(of: "class=\"raw-editor\"")?.lowerBound ?? body.endIndex)])
        var fields: [(String, String)] = []
        var rest = Substring(form)
        while let start = rest.range(of: "<input ") ?? rest.range(of: "<textarea ") {
            let tag = rest[start.lowerBound...].prefix { $0 != ">" }
            rest = rest[start.upperBound...]
            guard !tag.contains("type=\"checkbox\"") || tag.contains(" checked"), let name = Self.attribute("name", in: tag) else { continue }
            if tag.hasPrefix("<textarea") {
                let content = rest[rest.index(after: rest.firstIndex(of: ">")!)...]
                var text = String(content[..<content.range(of: "</textarea>")!.lowerBound])
                if text.hasPrefix("\n") { text.removeFirst() }
                fields.append((name, Self.unescape(text)))
            } else {
                fields.append((name, Self.unescape(Self.attribute("value", in: tag) ?? "")))
            }
        }
        return fields
    }

    static func attribute(_ name: String, in tag: Substring) -> String? {
        guard let range = tag.range(of: " \(name)=\"") else { return nil }
        return String(tag[range.upperBound...].prefix { $0 != "\"" })
    }

    static func unescape(_ html: String) -> String {
        html.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// The bytes of a file of the book.
    func fileBytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: book.appendingPathComponent(name)))
    }
}

/// Runs `body` against a live server over a new book holding `fixtures` (file names under
/// Tests/ContactWebTests/Fixtures), then removes the book.
func withWebServer<Value: Sendable>(
    fixtures: [String], maximumUploadSize: Int = 32 << 20, _ body: @Sendable (WebTestClient) async throws -> Value
) async throws -> Value {
    let folder = try TestPaths.makeTemporaryDirectory("contactweb")
    defer { try? FileManager.default.removeItem(at: folder) }
    try AddressBook.create(at: folder)
    for name in fixtures {
        try FileManager.default.copyItem(at: TestPaths.fixtures("ContactWebTests").appendingPathComponent(name),
                                         to: folder.appendingPathComponent(name))
    }
    var logger = Logger(label: "contactweb.test")
    logger.logLevel = .warning
    let server = WebServer(configuration: WebServerConfiguration(bookDirectory: folder, port: 0, maximumUploadSize: maximumUploadSize), logger: logger)
    let ports = PortBox()
    return try await AddressBook.withOpen(at: folder) { book in
        let application = try await server.makeApplication(book: book) { port in await ports.set(port) }
        return try await application.test(.live) { _ in
            let port = await ports.value()
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            do {
                let value = try await body(WebTestClient(port: port, book: folder, client: client, openBook: book))
                try await client.shutdown()
                return value
            } catch {
                try? await client.shutdown()
                throw error
            }
        }
    }
}
