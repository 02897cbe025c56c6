import CouchServer
import Foundation
import Hummingbird
import Testing
import TestSupport

/// A request built to be refused, and the CouchDB answer it must get.
struct HostileRequest: Sendable, CustomStringConvertible {
    var name: String
    var method: HTTPRequest.Method
    var path: String
    var body: String?
    var credentials: CouchTestClient.Credentials = .admin
    var status: Int
    var error: String
    var description: String { name }
}

private let hostileRequests: [HostileRequest] = [
    HostileRequest(name: "no credentials", method: .put, path: "/contacts/doc", body: #"{"a":1}"#,
                   credentials: .none, status: 401, error: "unauthorized"),
    HostileRequest(name: "wrong password", method: .put, path: "/contacts/doc", body: #"{"a":1}"#,
                   credentials: .basic(adminName, "not-the-password"), status: 401, error: "unauthorized"),
    HostileRequest(name: "unknown user", method: .put, path: "/contacts/doc", body: #"{"a":1}"#,
                   credentials: .basic("mallory", adminPassword), status: 401, error: "unauthorized"),
    HostileRequest(name: "forged cookie", method: .put, path: "/contacts/doc", body: #"{"a":1}"#,
                   credentials: .cookie("YWRtaW46NjdGRkZGRkY6AAAAAAAAAAAAAAAAAAAAAAAAAAA"), status: 401, error: "unauthorized"),
    HostileRequest(name: "database that does not exist", method: .put, path: "/elsewhere/doc", body: #"{"a":1}"#,
                   status: 404, error: "not_found"),
    // CouchDB looks a document's database up before anything else: a name no database can
    // have is simply not found.
    HostileRequest(name: "database name with an encoded ..", method: .put, path: "/contacts%2F..%2Felsewhere/doc", body: #"{"a":1}"#,
                   status: 404, error: "not_found"),
    HostileRequest(name: "database name ..", method: .put, path: "/../doc", body: #"{"a":1}"#,
                   status: 404, error: "not_found"),
    HostileRequest(name: "malformed JSON", method: .put, path: "/contacts/doc", body: #"{"a":"#,
                   status: 400, error: "bad_request"),
    HostileRequest(name: "JSON that is not an object", method: .put, path: "/contacts/doc", body: "[1,2,3]",
                   status: 400, error: "bad_request"),
    HostileRequest(name: "reserved member", method: .put, path: "/contacts/doc", body: #"{"_owner":"mallory"}"#,
                   status: 400, error: "doc_validation"),
    HostileRequest(name: "reserved document id", method: .put, path: "/contacts/_secret", body: #"{"a":1}"#,
                   status: 400, error: "illegal_docid"),
    HostileRequest(name: "malformed revision", method: .put, path: "/contacts/doc", body: #"{"_rev":"../../1","a":1}"#,
                   status: 400, error: "bad_request"),
    HostileRequest(name: "malformed percent-encoding", method: .put, path: "/contacts/%ZZ%", body: #"{"a":1}"#,
                   status: 400, error: "bad_request"),
    HostileRequest(name: "bulk body that is not an object", method: .post, path: "/contacts/_bulk_docs", body: #"[{"_id":"x"}]"#,
                   status: 400, error: "bad_request"),
    HostileRequest(name: "document over the 8 MB limit", method: .put, path: "/contacts/big",
                   body: #"{"pad":""# + String(repeating: "x", count: 8_000_001) + #""}"#, status: 413, error: "document_too_large"),
]

/// Hostile requests get CouchDB's error and write nothing.
struct HostileRequestTests {
    @Test(arguments: hostileRequests)
    func aHostileRequestGetsCouchDBsErrorAndWritesNothing(_ hostile: HostileRequest) async throws {
        let folder = try TestPaths.makeTemporaryDirectory("hostile")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withTestServer(directory: folder) { client, _ in
            #expect(try await client.request(.put, "/contacts").status == 201)
            let before = try snapshot(folder)
            let infoBefore = try await client.request(.get, "/contacts").json
            let result = try await client.request(hostile.method, hostile.path, raw: hostile.body, credentials: hostile.credentials)
            #expect(result.status == hostile.status, "\(String(decoding: result.bytes.prefix(300), as: UTF8.self))")
            #expect(result.json?["error"]?.stringValue == hostile.error)
            #expect(result.json?["reason"]?.stringValue != nil)
            #expect(try snapshot(folder) == before, "the data folder changed")
            let infoAfter = try await client.request(.get, "/contacts").json
            #expect(infoAfter?["update_seq"] == infoBefore?["update_seq"])
            #expect(infoAfter?["doc_count"]?.intValue == 0)
        }
    }

    @Test func aTamperedSessionCookieIsRefused() async throws {
        try await withTestServer { client, _ in
            #expect(try await client.request(.put, "/contacts").status == 201)
            let login = try await client.request(.post, "/_session", raw: #"{"name":"\#(adminName)","password":"\#(adminPassword)"}"#,
                                                 credentials: .none)
            let setCookie = try #require(login.header("Set-Cookie"))
            let cookie = try #require(setCookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last.map(String.init))
            #expect(try await client.request(.get, "/contacts", credentials: .cookie(cookie)).status == 200)
            // Flip one character in each part of the cookie: the name, the time and the MAC.
            for position in [1, cookie.count / 2, cookie.count - 2] {
                var characters = Array(cookie)
                characters[position] = characters[position] == "A" ? "B" : "A"
                let tampered = String(characters)
                let result = try await client.request(.put, "/contacts/doc", raw: #"{"a":1}"#, credentials: .cookie(tampered))
                #expect(result.status == 401, "tampered at \(position)")
                #expect(result.json?["error"]?.stringValue == "unauthorized")
            }
            #expect(try await client.request(.get, "/contacts").json?["doc_count"]?.intValue == 0)
        }
    }
}

/// Every file under `folder` with its size, to show that nothing was written.
private func snapshot(_ folder: URL) throws -> [String: Int] {
    var files: [String: Int] = [:]
    let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.fileSizeKey])
    while let url = enumerator?.nextObject() as? URL {
        files[url.path] = try url.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? -1
    }
    return files
}
