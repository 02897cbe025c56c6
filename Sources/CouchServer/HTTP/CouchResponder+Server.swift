import Foundation
import HTTPServerSupport
import Hummingbird
import JSONText

extension CouchResponder {
    /// `GET /`.
    func welcome() -> CouchResponse {
        CouchResponse(.object([
            "couchdb": .string("Welcome"),
            "version": .string("3.5.0"),
            "git_sha": .string("cardsync"),
            "uuid": .string(server.serverUUID),
            "features": .array([]),
            "vendor": .object(["name": .string("cardsync"), "version": .string("0.1.0")]),
        ]))
    }

    /// `GET /_uuids?count=N`.
    func uuids(_ request: CouchRequest) throws(CouchError) -> CouchResponse {
        let count = try request.integer("count") ?? 1
        guard count <= 1000 else { throw CouchError(.badRequest, reason: "count parameter too large") }
        var response = CouchResponse(.object(["uuids": .array((0..<count).map { _ in .string(Database.randomHex()) })]))
        response.setHeader("Cache-Control", "no-cache")
        response.setHeader("Pragma", "no-cache")
        response.setHeader("Expires", "Fri, 01 Jan 1990 00:00:00 GMT")
        response.setETag(String(Database.randomHex().prefix(25)).uppercased())
        return response
    }

    /// `GET /_all_dbs` (`descending`, `skip`, `limit`).
    func allDatabases(_ request: CouchRequest) async throws(CouchError) -> CouchResponse {
        var names = await catalog.databaseNames()
        if try request.flag("descending") { names.reverse() }
        let skip = try request.integer("skip") ?? 0
        let limit = try request.integer("limit") ?? Int.max
        names = Array(names.dropFirst(skip).prefix(limit))
        var response = CouchResponse(.array(names.map(JSONValue.string)))
        response.setETag(Self.opaqueTag(Array(names.joined(separator: "\n").utf8)))
        return response
    }

    // MARK: Sessions

    /// `GET`, `POST` and `DELETE /_session`: cookie authentication.
    func session(_ request: CouchRequest) async throws(CouchError) -> CouchResponse {
        let authenticator = server.authenticator
        switch request.method {
        case .get, .head:
            var userContext: JSONObject = ["name": .null, "roles": .array([])]
            var info: JSONObject = ["authentication_handlers": .array([.string("cookie"), .string("default")])]
            if case .admin(let name, let via) = request.identity {
                userContext = ["name": .string(name), "roles": .array([.string("_admin")])]
                info["authenticated"] = .string(via)
            } else if authenticator.admin == nil {
                userContext = ["name": .null, "roles": .array([.string("_admin")])]
            }
            return CouchResponse(.object(["ok": .bool(true), "userCtx": .object(userContext), "info": .object(info)]))
        case .post:
            let (name, password) = try sessionCredentials(request)
            guard await authenticator.check(name: name, password: password) else {
                var response = CouchResponse.error(Self.badCredentials)
                response.setHeader("Set-Cookie", sessionCookieHeader(value: "", maxAge: 0))
                return response
            }
            let cookie = await authenticator.makeSessionCookie(name: name)
            var response = CouchResponse(.object(["ok": .bool(true), "name": .string(name), "roles": .array([.string("_admin")])]))
            response.setHeader("Set-Cookie", sessionCookieHeader(value: cookie, maxAge: authenticator.sessionTimeout))
            return response
        case .delete:
            var response = CouchResponse.ok()
            response.setHeader("Set-Cookie", sessionCookieHeader(value: "", maxAge: 0))
            return response
        default:
            try allow(request, [.get, .head, .post, .delete])
            return .ok()
        }
    }

    private func sessionCredentials(_ request: CouchRequest) throws(CouchError) -> (String, String) {
        let type = request.headers[.contentType]?.lowercased() ?? ""
        if type.hasPrefix("application/x-www-form-urlencoded") {
            var fields: [String: String] = [:]
            for pair in String(decoding: request.body, as: UTF8.self).split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                if let key = PercentEncoding.decode(parts[0], plusIsSpace: true) {
                    fields[key] = parts.count > 1 ? PercentEncoding.decode(parts[1], plusIsSpace: true) : ""
                }
            }
            return (fields["name"] ?? "", fields["password"] ?? "")
        }
        let body = try request.jsonObjectBody()
        guard let name = body["name"]?.stringValue, let password = body["password"]?.stringValue else {
            throw CouchError(.badRequest, reason: "Missing or invalid name or password.")
        }
        return (name, password)
    }

    private func sessionCookieHeader(value: String, maxAge: Int) -> String {
        let expires = Date().addingTimeInterval(TimeInterval(maxAge))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd-MMM-yyyy HH:mm:ss 'GMT'"
        return "AuthSession=\(value); Version=1; Expires=\(formatter.string(from: expires)); Max-Age=\(maxAge); Path=/; HttpOnly"
    }

    // MARK: Databases

    /// `PUT`, `GET`, `HEAD`, `DELETE` and `POST /{db}`.
    func databaseRequest(_ request: CouchRequest, name: String) async throws(CouchError) -> CouchResponse {
        switch request.method {
        case .put:
            try await catalog.createDatabase(named: name)
            var response = CouchResponse.ok(status: .created)
            response.setHeader("Location", location(request, name))
            return response
        case .get, .head:
            let database = try await catalog.database(named: name)
            return CouchResponse(try await databaseInformation(database))
        case .delete:
            try await catalog.deleteDatabase(named: name)
            return .ok()
        case .post:
            let database = try await catalog.database(named: name)
            return try await postDocument(request, database)
        default:
            try allow(request, [.get, .head, .put, .delete, .post])
            return .ok()
        }
    }

    func databaseInformation(_ database: Database) async throws(CouchError) -> JSONValue {
        let sequence = await database.updateSequence
        return .object([
            "instance_start_time": .string(String(database.createdAt)),
            "db_name": .string(database.name),
            "purge_seq": .string(database.sequenceToken(0)),
            "update_seq": .string(database.sequenceToken(sequence)),
            "sizes": .object(["file": .integer(await database.fileSize + database.attachmentsSize), "external": .integer(0), "active": .integer(0)]),
            "props": .object([:]),
            "doc_del_count": .integer(await database.deletedDocumentCount),
            "doc_count": .integer(await database.documentCount),
            "disk_format_version": .integer(8),
            "compact_running": .bool(false),
            "cluster": .object(["q": .integer(1), "n": .integer(1), "w": .integer(1), "r": .integer(1)]),
        ])
    }
}
