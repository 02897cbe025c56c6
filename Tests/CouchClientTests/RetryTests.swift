import CouchClient
import Foundation
import Testing

private let testURL = URL(string: "http://user:hunter2@couch.test:5984/")!

private func makeClient(_ transport: ScriptedTransport, clock: RecordingClock, attempts: Int = 5,
                        fraction: Double = 1) throws -> CouchClient {
    let policy = RetryPolicy(maximumAttempts: attempts, initialDelay: .milliseconds(100), maximumDelay: .seconds(1),
                             maximumRetryAfter: .seconds(10), randomFraction: { fraction })
    return try CouchClient(url: testURL, transport: transport, configuration: .init(retry: policy), clock: clock)
}

@Suite("Retry policy")
struct RetryTests {
    @Test(arguments: [500, 502, 503, 504])
    func retriesServerErrorsWithExponentialBackoff(status: Int) async throws {
        let transport = ScriptedTransport { _, attempt in
            attempt <= 3 ? jsonResponse(status, ["error": "unavailable", "reason": "try later"]) : jsonResponse(200, ["ok": true])
        }
        let clock = RecordingClock()
        let client = try makeClient(transport, clock: clock)
        _ = try await client.serverInfo()
        #expect(transport.requests.count == 4)
        #expect(clock.sleeps == [.milliseconds(100), .milliseconds(200), .milliseconds(400)])
    }

    @Test func appliesFullJitterFromTheRandomSource() async throws {
        let transport = ScriptedTransport { _, attempt in
            attempt <= 2 ? CouchHTTPResponse(status: 500) : jsonResponse(200, [:])
        }
        let clock = RecordingClock()
        _ = try await makeClient(transport, clock: clock, fraction: 0.25).serverInfo()
        #expect(clock.sleeps == [.milliseconds(25), .milliseconds(50)])
    }

    @Test func capsTheBackoffAtTheMaximumDelay() {
        let policy = RetryPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(1), randomFraction: { 1 })
        #expect(policy.delay(afterAttempt: 1) == .milliseconds(100))
        #expect(policy.delay(afterAttempt: 4) == .milliseconds(800))
        #expect(policy.delay(afterAttempt: 5) == .seconds(1))
        #expect(policy.delay(afterAttempt: 60) == .seconds(1))
        #expect(policy.delay(afterAttempt: 3, retryAfter: .seconds(120)) == .seconds(60))
    }

    @Test func honoursRetryAfterOnTooManyRequests() async throws {
        let transport = ScriptedTransport { _, attempt in
            attempt == 1 ? jsonResponse(429, ["error": "too_many_requests"], headers: [.init(name: "Retry-After", value: "3")])
                : jsonResponse(200, [:])
        }
        let clock = RecordingClock()
        _ = try await makeClient(transport, clock: clock).serverInfo()
        #expect(transport.requests.count == 2)
        #expect(clock.sleeps == [.seconds(3)])
    }

    @Test func retriesNetworkFailuresAndTimeouts() async throws {
        struct ConnectionReset: Error {}
        let transport = ScriptedTransport { request, attempt in
            switch attempt {
            case 1: throw ConnectionReset()
            case 2: throw CouchClientError(.timeout, url: request.url)
            default: return jsonResponse(200, [:])
            }
        }
        let clock = RecordingClock()
        _ = try await makeClient(transport, clock: clock).serverInfo()
        #expect(transport.requests.count == 3)
        #expect(clock.sleeps.count == 2)
    }

    @Test(arguments: [400, 401, 403, 404, 409, 412, 413])
    func neverRetriesClientErrors(status: Int) async throws {
        let transport = ScriptedTransport { _, _ in jsonResponse(status, ["error": "nope", "reason": "because"]) }
        let clock = RecordingClock()
        let error = await #expect(throws: CouchClientError.self) {
            try await makeClient(transport, clock: clock).database("db").put(["_id": "doc"])
        }
        #expect(transport.requests.count == 1)
        #expect(clock.sleeps.isEmpty)
        #expect(error?.status == status)
        #expect(error?.code == .forStatus(status))
        #expect(error?.error == "nope")
        #expect(error?.reason == "because")
        #expect(error?.documentID == "doc")
    }

    @Test func givesUpAfterTheMaximumAttempts() async throws {
        let transport = ScriptedTransport { _, _ in jsonResponse(503, ["error": "unavailable"]) }
        let clock = RecordingClock()
        let error = await #expect(throws: CouchClientError.self) {
            try await makeClient(transport, clock: clock, attempts: 3).serverInfo()
        }
        #expect(transport.requests.count == 3)
        #expect(clock.sleeps.count == 2)
        #expect(error?.code == .serverError)
        #expect(error?.attempts == 3)
        #expect(error?.description.contains("hunter2") == false)
    }
}

@Suite("Requests")
struct RequestTests {
    @Test func encodesDatabaseNamesAndDocumentIDs() async throws {
        let transport = ScriptedTransport { _, _ in jsonResponse(200, ["_id": "x", "_rev": "1-a"]) }
        let client = try makeClient(transport, clock: RecordingClock())
        let database = client.database("my/db+1")
        for id in ["a/b c", "_design/app/x", "_local/cp?1", "50%+ñ"] {
            _ = try await database.document(id: id)
        }
        let urls = transport.requests.map(\.url)
        #expect(urls == [
            "http://couch.test:5984/my%2Fdb%2B1/a%2Fb%20c",
            "http://couch.test:5984/my%2Fdb%2B1/_design/app%2Fx",
            "http://couch.test:5984/my%2Fdb%2B1/_local/cp%3F1",
            "http://couch.test:5984/my%2Fdb%2B1/50%25%2B%C3%B1",
        ])
    }

    @Test func takesCredentialsFromTheURLAndKeepsThemOutOfIt() async throws {
        let transport = ScriptedTransport { _, _ in jsonResponse(200, [:]) }
        let client = try makeClient(transport, clock: RecordingClock())
        #expect(client.baseURL == "http://couch.test:5984")
        #expect(client.userName == "user")
        _ = try await client.serverInfo()
        let authorization = transport.requests[0].headers.first { $0.name == "Authorization" }?.value
        #expect(authorization == "Basic " + Data("user:hunter2".utf8).base64EncodedString())
        #expect(!transport.requests[0].url.contains("hunter2"))

        let explicit = try CouchClient(url: URL(string: "https://a:b@h.test/")!, credentials: .init(name: "n", password: "p"),
                                       transport: transport)
        #expect(explicit.userName == "n")
        #expect(!String(describing: CouchClient.Credentials(name: "n", password: "p")).contains("p"))
    }

    @Test func rejectsURLsThatAreNotHTTP() {
        #expect(throws: CouchClientError.self) {
            try CouchClient(url: URL(string: "ftp://h.test/")!, transport: ScriptedTransport { _, _ in jsonResponse(200, [:]) })
        }
    }

    @Test func sendsChangesParametersAndKeepsSequenceTokensOpaque() async throws {
        let transport = ScriptedTransport { _, _ in
            jsonResponse(200, ["results": [["seq": 7, "id": "a", "changes": [["rev": "1-x"]]]], "last_seq": 7, "pending": 0])
        }
        let client = try makeClient(transport, clock: RecordingClock())
        let page = try await client.database("db").changes(
            ChangesRequest(since: CouchSequence("12-g1AAAA/+x"), limit: 10, includeDocuments: true, allRevisions: true,
                           conflicts: true))
        #expect(transport.requests[0].url ==
            "http://couch.test:5984/db/_changes?since=12-g1AAAA%2F%2Bx&limit=10&include_docs=true&style=all_docs&conflicts=true")
        #expect(page.lastSequence == CouchSequence(7))
        #expect(page.lastSequence.description == "7")
        #expect(page.results[0].sequence.value == 7)
    }

    @Test func splitsBulkDocumentsOnTooLargeDownToSingleDocuments() async throws {
        // The fake server takes at most 2 documents per request and never the one named "big".
        let transport = ScriptedTransport { request, _ in
            let docs = requestJSON(request)?["docs"]?.arrayValue ?? []
            if docs.count > 2 || docs.contains(where: { $0["_id"] == "big" }) {
                return jsonResponse(413, ["error": "too_large", "reason": "the request entity is too large"])
            }
            return jsonResponse(201, .array(docs.map { ["ok": true, "id": $0["_id"]!, "rev": "1-a"] }))
        }
        let client = try makeClient(transport, clock: RecordingClock())
        let ids = ["a", "b", "c", "big", "d", "e", "f"]
        let results = try await client.database("db").bulkDocuments(ids.map { ["_id": .string($0)] })
        #expect(results.map(\.id) == ids)
        #expect(results.filter(\.isSuccess).count == 6)
        let big = try #require(results.first { $0.id == "big" })
        #expect(big.error == "too_large")
        #expect(big.revision == nil)
        // 7 → (3 → 1 + 2) + (4 → 2 ["big","d"] → 1 + 1, 2): every request after the first is a half.
        let sizes = transport.requests.map { requestJSON($0)?["docs"]?.arrayValue?.count ?? 0 }
        #expect(sizes == [7, 3, 1, 2, 4, 2, 1, 1, 2])
    }

    @Test func sendsNewEditsFalse() async throws {
        let transport = ScriptedTransport { _, _ in jsonResponse(201, []) }
        let results = try await makeClient(transport, clock: RecordingClock()).database("db")
            .bulkDocuments([["_id": "a", "_rev": "3-abc"]], newEdits: false)
        #expect(results.isEmpty)
        #expect(requestJSON(transport.requests[0])?["new_edits"] == false)
    }
}
