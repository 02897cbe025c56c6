import CouchClient
import Foundation
import Testing
import TestSupport

/// Cookie authentication: one `POST /_session`, then the `AuthSession` cookie; a 401 logs in
/// again once; the password crosses the network only in the login.
@Suite struct CookieAuthenticationTests {
    @Test func cookieSessionsWorkAgainstCardsyncServe() async throws {
        try await withLiveServer { url in
            try await withCouchClient(url: url, configuration: .init(retry: .none, authentication: .cookie)) { client in
                let database = client.database("cookies")
                #expect(try await database.create())
                let saved = try await database.put(["_id": "a", "value": 1])
                #expect(saved.revision.hasPrefix("1-"))
                #expect(try await client.allDatabases().contains("cookies"))
            }
            // Wrong password: the login is refused with the server's 401, without the password in the error.
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
            components.password = "wrong-password"
            do {
                try await withCouchClient(url: components.url!, configuration: .init(retry: .none, authentication: .cookie)) { client in
                    _ = try await client.allDatabases()
                }
                Issue.record("expected a 401")
            } catch let error as CouchClientError {
                #expect(error.status == 401)
                #expect(!error.description.contains("wrong-password"))
            }
        }
    }

    @Test func anExpiredSessionLogsInAgainOnceAndOnlyTheLoginCarriesThePassword() async throws {
        let transport = ScriptedTransport { request, attempt in
            if request.url.hasSuffix("/_session") {
                let cookie = attempt == 1 ? "AuthSession=first" : "AuthSession=second"
                return CouchHTTPResponse(status: 200, headers: [.init(name: "Set-Cookie", value: "\(cookie); Version=1; Path=/; HttpOnly")],
                                         body: Array(#"{"ok":true,"name":"admin","roles":["_admin"]}"#.utf8))
            }
            let cookie = request.headers.first { $0.name == "Cookie" }?.value
            if cookie == "AuthSession=first" && attempt == 2 {
                return CouchHTTPResponse(status: 401, body: Array(#"{"error":"unauthorized","reason":"session expired"}"#.utf8))
            }
            return CouchHTTPResponse(status: 200, body: Array(#"["_users","contacts"]"#.utf8))
        }
        let client = try CouchClient(url: URL(string: "http://admin:pa55@couch.example")!, transport: transport,
                                     configuration: .init(retry: .none, authentication: .cookie))
        #expect(try await client.allDatabases() == ["_users", "contacts"])
        let requests = transport.requests
        #expect(requests.map { URL(string: $0.url)!.path } == ["/_session", "/_all_dbs", "/_session", "/_all_dbs"])
        #expect(requests.last?.headers.contains { $0.name == "Cookie" && $0.value == "AuthSession=second" } == true)
        for request in requests where !request.url.hasSuffix("/_session") {
            #expect(!request.headers.contains { $0.name == "Authorization" })
            #expect(!(request.body.map { String(decoding: $0, as: UTF8.self) } ?? "").contains("pa55"))
        }
    }

    @Test func retryAfterAsAnHTTPDateWaitsUntilThen() async throws {
        let start = Date()
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let header = formatter.string(from: start.addingTimeInterval(3))
        let transport = ScriptedTransport { _, attempt in
            attempt == 1
                ? CouchHTTPResponse(status: 503, headers: [.init(name: "Retry-After", value: header)], body: Array(#"{"error":"unavailable"}"#.utf8))
                : CouchHTTPResponse(status: 200, body: Array(#"[]"#.utf8))
        }
        let clock = RecordingClock()
        let client = try CouchClient(url: URL(string: "http://couch.example")!, transport: transport,
                                     configuration: .init(retry: RetryPolicy(maximumAttempts: 2)), clock: clock)
        _ = try await client.allDatabases()
        let waited = try #require(clock.sleeps.first)
        #expect(waited >= .seconds(1) && waited <= .seconds(4), "waited \(waited)")
    }
}
