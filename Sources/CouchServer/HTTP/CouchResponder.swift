import ExtrasBase64
import Foundation
import HTTPServerSupport
import Hummingbird
import JSONText
import Logging
import NIOCore

/// Routes every request the way CouchDB does, checks credentials, turns errors into CouchDB's
/// error bodies, adds CouchDB's common headers and logs one line per request (never credentials).
struct CouchResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    let server: CouchServer

    var catalog: DatabaseCatalog { server.catalog }
    var configuration: CouchServerConfiguration { server.configuration }

    func respond(to request: Request, context: Context) async throws -> Response {
        let started = ContinuousClock.now
        let requestID = String(Database.randomHex().prefix(10))
        let acceptsJSON = request.headers[.accept].map { $0.contains("application/json") } ?? false
        let isHead = request.method == .head
        var answer: CouchResponse
        do {
            var couchRequest = try await makeRequest(request)
            couchRequest.identity = try await identify(couchRequest)
            answer = try await route(&couchRequest)
        } catch {
            answer = .error(error)
        }
        var headers = answer.headers
        headers[.cacheControl] = headers[.cacheControl] ?? "must-revalidate"
        headers[HeaderName("X-Couch-Request-ID")!] = requestID
        headers[HeaderName("X-CouchDB-Body-Time")!] = "0"
        headers[.server] = "CouchDB/3.5.0 (cardsync)"
        let body: ResponseBody
        switch answer.body {
        case .json(let value):
            headers[.contentType] = headers[.contentType] ?? (acceptsJSON ? "application/json" : "text/plain; charset=utf-8")
            var bytes = value.serialized()
            bytes.append(0x0A)
            body = isHead ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
        case .bytes(let bytes, let contentType):
            headers[.contentType] = contentType
            body = isHead ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
        case .stream(let write):
            headers[.contentType] = headers[.contentType] ?? (acceptsJSON ? "application/json" : "text/plain; charset=utf-8")
            body = ResponseBody { writer in
                try await write(&writer)
                try await writer.finish(nil)
            }
        case .pieces(let pieces):
            headers[.contentType] = pieces.contentType
            headers[.contentLength] = String(pieces.length)
            body = isHead ? ResponseBody() : ResponseBody(contentLength: pieces.length) { writer in
                try await pieces.write(to: &writer)
            }
        case .empty:
            body = ResponseBody()
        }
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        server.logger.info("\(request.method) \(request.uri.path) \(answer.status.code)",
                           metadata: ["ms": "\(Int(milliseconds))", "request": "\(requestID)"])
        return Response(status: answer.status, headers: headers, body: body)
    }

    private func makeRequest(_ request: Request) async throws(CouchError) -> CouchRequest {
        var segments: [String] = []
        for raw in request.uri.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            guard let decoded = PercentEncoding.decode(raw) else {
                throw CouchError(.badRequest, reason: "invalid percent-encoding in the path")
            }
            segments.append(decoded)
        }
        while segments.last == "" { segments.removeLast() }
        var query: [String: String] = [:]
        if let text = request.uri.query {
            for pair in text.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let key = PercentEncoding.decode(parts[0], plusIsSpace: true) else { continue }
                let value = parts.count > 1 ? PercentEncoding.decode(parts[1], plusIsSpace: true) : ""
                query[key] = value ?? ""
            }
        }
        var body: [UInt8] = []
        var bodyStream: RequestBody?
        if Self.isAttachmentUpload(request.method, segments)
            || Self.isMultipartDocumentUpload(request.method, segments, contentType: request.headers[.contentType]) {
            bodyStream = request.body
        } else if request.method != .get && request.method != .head {
            do {
                let buffer = try await request.body.collect(upTo: configuration.maximumRequestSize)
                body = Array(buffer.readableBytesView)
            } catch {
                throw CouchError(.requestTooLarge, reason: "the request entity is too large")
            }
        }
        let authority = request.head.authority ?? "\(configuration.host):\(configuration.port)"
        return CouchRequest(method: request.method, segments: segments, target: request.uri.string, query: query,
                            headers: request.headers, body: body, bodyStream: bodyStream, authority: authority)
    }

    // MARK: Authentication

    private func identify(_ request: CouchRequest) async throws(CouchError) -> Authenticator.Identity {
        let authenticator = server.authenticator
        if let authorization = request.headers[.authorization] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "basic" {
                guard let decoded = try? Base64.decode(string: String(parts[1])),
                      let text = String(exactUTF8: decoded), let colon = text.firstIndex(of: ":")
                else { throw Self.badCredentials }
                let name = String(text[..<colon])
                let password = String(text[text.index(after: colon)...])
                guard await authenticator.check(name: name, password: password) else { throw Self.badCredentials }
                return .admin(name: name, via: "default")
            }
        }
        if let cookie = request.headers[.cookie] {
            for part in cookie.split(separator: ";") {
                let pair = part.trimmingCharacters(in: .whitespaces)
                guard pair.hasPrefix("AuthSession=") else { continue }
                let value = String(pair.dropFirst("AuthSession=".count))
                if let name = await authenticator.validateSessionCookie(value) {
                    return .admin(name: name, via: "cookie")
                }
            }
        }
        return .anonymous
    }

    static let badCredentials = CouchError(.unauthorized, reason: "Name or password is incorrect.")

    /// Whether requests need credentials at all (an admin is configured).
    private var requiresAdmin: Bool { server.authenticator.admin != nil }

    private func requireAdmin(_ request: CouchRequest, database: Bool) throws(CouchError) {
        guard requiresAdmin, case .anonymous = request.identity else { return }
        throw CouchError(.unauthorized, reason: database ? "You are not authorized to access this db." : "You are not a server admin.")
    }

    // MARK: Routing

    private func route(_ request: inout CouchRequest) async throws(CouchError) -> CouchResponse {
        let segments = request.segments
        guard let first = segments.first else {
            try allow(request, [.get, .head])
            return welcome()
        }
        if first.hasPrefix("_"), !["_users", "_replicator", "_global_changes"].contains(first) {
            switch (first, segments.count) {
            case ("_up", 1):
                try allow(request, [.get, .head])
                return CouchResponse(.object(["status": .string("ok"), "seeds": .object([:])]))
            case ("_uuids", 1):
                try allow(request, [.get, .head])
                return try uuids(request)
            case ("_session", 1):
                return try await session(request)
            case ("_replicate", 1):
                try requireAdmin(request, database: false)
                return try await replicate(request)
            case ("_dbs_info", 1):
                try requireAdmin(request, database: false)
                return try await databasesInformation(request)
            case ("_all_dbs", 1):
                try requireAdmin(request, database: false)
                try allow(request, [.get, .head])
                return try await allDatabases(request)
            default:
                try requireAdmin(request, database: false)
                if segments.count == 1, request.method == .put {
                    throw DatabaseCatalog.invalidNameError(first)
                }
                throw CouchError(.notFound, reason: "Database does not exist.")
            }
        }
        try requireAdmin(request, database: true)
        let name = first
        if segments.count == 1 {
            return try await databaseRequest(request, name: name)
        }
        let database = try await catalog.database(named: name)
        let second = segments[1]
        switch second {
        case "_all_docs" where segments.count == 2:
            try allow(request, [.get, .head, .post])
            return try await allDocuments(request, database)
        case "_changes" where segments.count == 2:
            try allow(request, [.get, .head, .post])
            return try await changes(request, database)
        case "_bulk_docs" where segments.count == 2:
            try allow(request, [.post])
            return try await bulkDocuments(request, database)
        case "_bulk_get" where segments.count == 2:
            try allow(request, [.post])
            return try await bulkGet(request, database)
        case "_revs_diff" where segments.count == 2:
            try allow(request, [.post])
            return try await revisionsDifference(request, database)
        case "_revs_limit" where segments.count == 2:
            return try await revisionsLimit(request, database)
        case "_purged_infos_limit" where segments.count == 2:
            return try await purgedInfosLimit(request, database)
        case "_purge" where segments.count == 2:
            return try await purge(request, database)
        case "_compact" where segments.count == 2:
            return try await compact(request, database)
        case "_design_docs" where segments.count == 2:
            try allow(request, [.get, .head, .post])
            return try await allDocuments(request, database, designOnly: true)
        case "_local_docs" where segments.count == 2:
            return try await localDocuments(request, database)
        case "_ensure_full_commit" where segments.count == 2:
            try allow(request, [.post])
            // Every write is fsynced before it is acknowledged: there is nothing left to commit.
            return CouchResponse(status: .created, .object(["ok": .bool(true), "instance_start_time": .string("0")]))
        case "_security" where segments.count == 2:
            return try await security(request, database)
        case "_design" where segments.count >= 4 && segments[3].hasPrefix("_"):
            // Views, shows, lists and updates need a JavaScript engine, which this server has not.
            guard try await database.entry("_design/\(segments[2])")?.isDeleted == false else { throw CouchError.missingDocument }
            throw CouchError(.notImplemented, reason: "cardsync serve runs no design functions: \(segments[3]) is not available")
        case "_find" where segments.count == 2, "_index" where segments.count == 2, "_explain" where segments.count == 2:
            throw CouchError(.notImplemented, reason: "cardsync serve answers no Mango queries; _changes?filter=_selector takes a selector")
        case "_local", "_design":
            guard segments.count >= 3 else {
                throw CouchError(.illegalDocumentID, reason: "Only reserved document ids may start with underscore.")
            }
            let id = "\(second)/\(segments[2])"
            if segments.count > 3, second == "_design" {
                return await attachment(request, database, id: id, name: segments[3...].joined(separator: "/"))
            }
            guard segments.count == 3 else { throw attachmentsUnsupported }
            return second == "_local" ? try await localDocument(request, database, id: id) : try await document(request, database, id: id)
        default:
            if segments.count > 2, !second.hasPrefix("_") {
                return await attachment(request, database, id: second, name: segments[2...].joined(separator: "/"))
            }
            guard segments.count == 2 else { throw attachmentsUnsupported }
            if second.hasPrefix("_local/") {
                return try await localDocument(request, database, id: second)
            }
            if second.hasPrefix("_"), !second.hasPrefix("_design/") {
                throw CouchError(.illegalDocumentID, reason: "Only reserved document ids may start with underscore.")
            }
            return try await document(request, database, id: second)
        }
    }

    private var attachmentsUnsupported: CouchError {
        CouchError(.notFound, reason: "Document is missing attachment")
    }

    /// Refuses other methods with 405 and CouchDB's reason.
    func allow(_ request: CouchRequest, _ methods: [HTTPRequest.Method]) throws(CouchError) {
        guard !methods.contains(request.method) else { return }
        let names = methods.map(\.rawValue).joined(separator: ",")
        throw CouchError(.methodNotAllowed, reason: "Only \(names) allowed")
    }

    /// `http://host:port/` followed by encoded path parts.
    func location(_ request: CouchRequest, _ parts: String...) -> String {
        "http://\(request.authority)/" + parts.map { PercentEncoding.encode($0, keeping: PercentEncoding.couchIDPunctuation) }.joined(separator: "/")
    }
}
