import CouchServer
import Foundation
import Testing

@Suite struct ServerEndpoints {
    @Test func welcomeNamesCouchDBVersion() async throws {
        try await withTestServer { client, _ in
            let result = try await client.request(.get, "/", credentials: .none)
            #expect(result.status == 200)
            #expect(result.json?["couchdb"]?.stringValue == "Welcome")
            #expect(result.json?["version"]?.stringValue == "3.5.0")
            #expect(result.header("Cache-Control") == "must-revalidate")
            #expect(result.header("Content-Type") == "application/json")
            #expect(result.header("X-Couch-Request-ID")?.count == 10)
        }
    }

    @Test func upAndUUIDsAnswerWithoutCredentials() async throws {
        try await withTestServer { client, _ in
            #expect(try await client.request(.get, "/_up", credentials: .none).json?["status"]?.stringValue == "ok")
            let uuids = try await client.request(.get, "/_uuids?count=3", credentials: .none)
            #expect(uuids.json?["uuids"]?.arrayValue?.count == 3)
            #expect(Set(uuids.json?["uuids"]?.arrayValue ?? []).count == 3)
            #expect(uuids.header("Cache-Control") == "no-cache")
            #expect(try await client.request(.get, "/_uuids?count=1001").status == 400)
        }
    }

    @Test func answersTextPlainWhenJSONIsNotAccepted() async throws {
        try await withTestServer { client, _ in
            let result = try await client.request(.get, "/", headers: ["Accept": "*/*"])
            #expect(result.header("Content-Type") == "text/plain; charset=utf-8")
        }
    }

    @Test func createsListsAndDeletesDatabases() async throws {
        try await withTestServer { client, _ in
            let created = try await client.request(.put, "/contacts")
            #expect(created.status == 201)
            #expect(created.header("Location")?.hasPrefix("http://") == true)
            #expect(created.header("Location")?.hasSuffix("/contacts") == true)
            #expect(try await client.request(.put, "/contacts").json?["error"]?.stringValue == "file_exists")
            #expect(try await client.request(.put, "/contacts").status == 412)
            #expect(try await client.request(.put, "/a%2Fb(c)").status == 201)
            let names = try await client.request(.get, "/_all_dbs").json?.arrayValue?.compactMap(\.stringValue)
            #expect(names == ["a/b(c)", "contacts"])
            let info = try await client.request(.get, "/contacts").json
            #expect(info?["db_name"]?.stringValue == "contacts")
            #expect(info?["update_seq"]?.stringValue?.hasPrefix("0-") == true)
            #expect(info?["doc_count"]?.intValue == 0)
            #expect(try await client.request(.head, "/contacts").status == 200)
            #expect(try await client.request(.delete, "/contacts").json?["ok"]?.boolValue == true)
            let missing = try await client.request(.get, "/contacts")
            #expect(missing.status == 404)
            #expect(missing.json?["reason"]?.stringValue == "Database does not exist.")
            #expect(try await client.request(.delete, "/contacts").status == 404)
        }
    }

    @Test(arguments: ["Bad_Name", "1abc", "_private", "a.b", "with space"])
    func rejectsIllegalDatabaseNames(_ name: String) async throws {
        try await withTestServer { client, _ in
            let result = try await client.request(.put, "/" + name.pathEncoded)
            #expect(result.status == 400)
            #expect(result.json?["error"]?.stringValue == "illegal_database_name")
        }
    }
}

@Suite struct Authentication {
    @Test func rejectsAWrongPassword() async throws {
        try await withTestServer { client, _ in
            let result = try await client.request(.get, "/_all_dbs", credentials: .basic("admin", "wrong"))
            #expect(result.status == 401)
            #expect(result.json?["error"]?.stringValue == "unauthorized")
            #expect(result.json?["reason"]?.stringValue == "Name or password is incorrect.")
        }
    }

    @Test func rejectsAnUnknownUser() async throws {
        try await withTestServer { client, _ in
            let result = try await client.request(.get, "/", credentials: .basic("mallory", "secret"))
            #expect(result.status == 401)
        }
    }

    @Test func requiresAnAdminForServerAndDatabaseRequests() async throws {
        try await withTestServer { client, _ in
            let server = try await client.request(.get, "/_all_dbs", credentials: .none)
            #expect(server.status == 401)
            #expect(server.json?["reason"]?.stringValue == "You are not a server admin.")
            try await client.request(.put, "/db")
            let database = try await client.request(.get, "/db", credentials: .none)
            #expect(database.status == 401)
            #expect(try await client.request(.put, "/db/x", json: .obj([:]), credentials: .none).status == 401)
            #expect(database.header("WWW-Authenticate") == nil)
        }
    }

    @Test func cookieSessionsLogInAndOut() async throws {
        try await withTestServer { client, _ in
            let login = try await client.request(.post, "/_session", json: .obj(["name": .string("admin"), "password": .string("secret")]), credentials: .none)
            #expect(login.status == 200)
            #expect(login.json?["roles"]?.arrayValue == [.string("_admin")])
            let setCookie = try #require(login.header("Set-Cookie"))
            #expect(setCookie.contains("Max-Age=600; Path=/; HttpOnly"))
            let value = String(setCookie.dropFirst("AuthSession=".count).prefix { $0 != ";" })
            let session = try await client.request(.get, "/_session", credentials: .cookie(value))
            #expect(session.json?["userCtx"]?["name"]?.stringValue == "admin")
            #expect(session.json?["info"]?["authenticated"]?.stringValue == "cookie")
            #expect(try await client.request(.get, "/_all_dbs", credentials: .cookie(value)).status == 200)
            // A forged cookie is ignored: the request is anonymous.
            #expect(try await client.request(.get, "/_all_dbs", credentials: .cookie(value + "x")).status == 401)
            let logout = try await client.request(.delete, "/_session", credentials: .cookie(value))
            #expect(logout.header("Set-Cookie")?.hasPrefix("AuthSession=;") == true)
        }
    }

    @Test func sessionLoginAcceptsAFormBody() async throws {
        try await withTestServer { client, _ in
            let form = try await client.request(.post, "/_session", raw: "name=admin&password=secret",
                                                headers: ["Content-Type": "application/x-www-form-urlencoded"], credentials: .none)
            #expect(form.status == 200)
            let wrong = try await client.request(.post, "/_session", json: .obj(["name": .string("admin"), "password": .string("nope")]), credentials: .none)
            #expect(wrong.status == 401)
            #expect(wrong.json?["reason"]?.stringValue == "Name or password is incorrect.")
        }
    }

    @Test func storesOnlyASaltedHashOfThePassword() async throws {
        try await withTestServer { _, server in
            let stored = try String(contentsOf: server.configuration.dataDirectory.appendingPathComponent("admin.json"), encoding: .utf8)
            #expect(!stored.contains(adminPassword))
            #expect(stored.contains("pbkdf2"))
            #expect(CouchServer.storedAdminName(in: server.configuration.dataDirectory) == "admin")
        }
    }

    @Test func withoutAnAdminEveryRequestIsAllowed() async throws {
        try await withTestServer(admin: false) { client, _ in
            let result = try await client.request(.put, "/open", credentials: .none)
            #expect(result.status == 201)
        }
    }
}
