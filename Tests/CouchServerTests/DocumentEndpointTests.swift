import CouchServer
import Foundation
import Testing

/// Creates database `db` and returns the client.
func makeDatabase(_ client: CouchTestClient, _ name: String = "db") async throws {
    let result = try await client.request(.put, "/\(name)")
    #expect(result.status == 201)
}

@Suite struct DocumentEndpoints {
    @Test func putGetUpdateAndDeleteADocument() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let created = try await client.request(.put, "/db/ann", json: .obj(["fn": .string("Ann"), "n": .integer(1)]))
            #expect(created.status == 201)
            let rev1 = try #require(created.json?["rev"]?.stringValue)
            #expect(rev1.hasPrefix("1-") && rev1.count == 34)
            #expect(created.header("ETag") == "\"\(rev1)\"")
            #expect(created.header("Location")?.hasSuffix("/db/ann") == true)
            let read = try await client.request(.get, "/db/ann")
            #expect(read.json?.objectValue?.members.map(\.key) == ["_id", "_rev", "fn", "n"])
            #expect(read.header("ETag") == "\"\(rev1)\"")
            let head = try await client.request(.head, "/db/ann")
            #expect(head.status == 200 && head.bytes.isEmpty && head.header("ETag") == "\"\(rev1)\"")
            #expect(try await client.request(.get, "/db/ann", headers: ["If-None-Match": "\"\(rev1)\""]).status == 304)
            #expect(try await client.request(.put, "/db/ann", json: .obj(["fn": .string("x")])).status == 409)
            let updated = try await client.request(.put, "/db/ann", json: .obj(["_rev": .string(rev1), "fn": .string("Ann B")]))
            let rev2 = try #require(updated.json?["rev"]?.stringValue)
            #expect(rev2.hasPrefix("2-"))
            #expect(try await client.request(.put, "/db/ann", json: .obj(["_rev": .string(rev1)])).status == 409)
            #expect(try await client.request(.get, "/db/ann?rev=\(rev1)").json?["fn"]?.stringValue == "Ann")
            #expect(try await client.request(.delete, "/db/ann?rev=\(rev1)").status == 409)
            #expect(try await client.request(.delete, "/db/ann").status == 409)
            let deleted = try await client.request(.delete, "/db/ann?rev=\(rev2)")
            #expect(deleted.status == 200)
            let rev3 = try #require(deleted.json?["rev"]?.stringValue)
            #expect(rev3.hasPrefix("3-"))
            let gone = try await client.request(.get, "/db/ann")
            #expect(gone.status == 404 && gone.json?["reason"]?.stringValue == "deleted")
            #expect(try await client.request(.get, "/db/ann?rev=\(rev3)").json?["_deleted"]?.boolValue == true)
            let recreated = try await client.request(.put, "/db/ann", json: .obj(["fn": .string("again")]))
            #expect(recreated.json?["rev"]?.stringValue?.hasPrefix("4-") == true)
            let missing = try await client.request(.get, "/db/nobody")
            #expect(missing.status == 404 && missing.json?["reason"]?.stringValue == "missing")
        }
    }

    @Test func takesTheRevisionFromIfMatch() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let rev1 = try #require(try await client.request(.put, "/db/d", json: .obj(["v": .integer(1)])).json?["rev"]?.stringValue)
            let updated = try await client.request(.put, "/db/d", json: .obj(["v": .integer(2)]), headers: ["If-Match": rev1])
            #expect(updated.status == 201)
            #expect(try await client.request(.put, "/db/d", json: .obj(["v": .integer(3)]), headers: ["If-Match": rev1]).status == 409)
            let rev2 = try #require(updated.json?["rev"]?.stringValue)
            let mismatch = try await client.request(.put, "/db/d?rev=\(rev2)", json: .obj(["_rev": .string(rev1)]))
            #expect(mismatch.status == 400)
        }
    }

    @Test func rejectsMalformedInput() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let badJSON = try await client.request(.put, "/db/x", raw: "{not json")
            #expect(badJSON.status == 400 && badJSON.json?["error"]?.stringValue == "bad_request")
            #expect(try await client.request(.put, "/db/x", raw: "[1]").status == 400)
            let badRev = try await client.request(.put, "/db/x", json: .obj(["_rev": .string("garbage")]))
            #expect(badRev.json?["reason"]?.stringValue == "Invalid rev format")
            let special = try await client.request(.put, "/db/x", json: .obj(["_bogus": .integer(1)]))
            #expect(special.json?["error"]?.stringValue == "doc_validation")
            let reserved = try await client.request(.put, "/db/_bogus", json: .obj([:]))
            #expect(reserved.status == 400 && reserved.json?["error"]?.stringValue == "illegal_docid")
            #expect(try await client.request(.put, "/nodb/x", json: .obj([:])).status == 404)
        }
    }

    @Test func refusesDocumentsOverTheMaximumSize() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let big = String(repeating: "X", count: 8_000_001)
            let result = try await client.request(.put, "/db/big", json: .obj(["v": .string(big)]))
            #expect(result.status == 413)
            #expect(result.json?["error"]?.stringValue == "document_too_large")
            #expect(try await client.request(.get, "/db/big").status == 404)
        }
    }

    @Test(arguments: ["contact/with/slashes", "Zoë-☎-名前", "urn:uuid:4fbe8971-0bc3", "a b+c?d#e%f", "_design/contacts"])
    func storesPercentEncodedIDs(_ id: String) async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let created = try await client.request(.put, "/db/" + id.pathEncoded, json: .obj(["v": .string(id)]))
            #expect(created.status == 201)
            #expect(created.json?["id"]?.stringValue == id)
            let read = try await client.request(.get, "/db/" + id.pathEncoded)
            #expect(read.json?["_id"]?.stringValue == id)
            #expect(read.json?["v"]?.stringValue == id)
        }
    }

    @Test func designDocumentsAreAddressableWithAnUnencodedSlash() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let created = try await client.request(.put, "/db/_design/contacts", json: .obj(["language": .string("javascript")]))
            #expect(created.header("Location")?.hasSuffix("/db/_design%2Fcontacts") == true)
            #expect(try await client.request(.get, "/db/_design%2Fcontacts").json?["language"]?.stringValue == "javascript")
        }
    }

    @Test func postGeneratesAnIDAndKeepsAGivenOne() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let generated = try await client.request(.post, "/db", json: .obj(["v": .integer(1)]))
            #expect(generated.status == 201)
            let id = try #require(generated.json?["id"]?.stringValue)
            #expect(id.count == 32)
            #expect(generated.header("Location")?.hasSuffix("/db/\(id)") == true)
            let given = try await client.request(.post, "/db", json: .obj(["_id": .string("mine")]))
            #expect(given.json?["id"]?.stringValue == "mine")
        }
    }

    @Test func showsRevisionHistoryAndInfo() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let rev1 = try #require(try await client.request(.put, "/db/d", json: .obj(["v": .integer(1)])).json?["rev"]?.stringValue)
            let rev2 = try #require(try await client.request(.put, "/db/d", json: .obj(["_rev": .string(rev1), "v": .integer(2)])).json?["rev"]?.stringValue)
            let result = try await client.request(.get, "/db/d?revs=true&revs_info=true")
            let revisions = try #require(result.json?["_revisions"])
            #expect(revisions["start"]?.intValue == 2)
            #expect(revisions["ids"]?.arrayValue?.compactMap(\.stringValue) == [String(rev2.dropFirst(2)), String(rev1.dropFirst(2))])
            #expect(result.json?["_revs_info"]?.arrayValue?.compactMap { $0["status"]?.stringValue } == ["available", "available"])
            #expect(result.header("ETag") == nil)
        }
    }

    @Test func localDocumentsUseZeroRevisionsAndStayOutOfChanges() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            #expect(try await client.request(.get, "/db/_local/cp").status == 404)
            let first = try await client.request(.put, "/db/_local/cp", json: .obj(["seq": .string("1-x")]))
            #expect(first.status == 201 && first.json?["rev"]?.stringValue == "0-1")
            #expect(first.header("Location")?.hasSuffix("/db/_local%2Fcp") == true)
            #expect(try await client.request(.put, "/db/_local/cp", json: .obj(["seq": .string("2-x")])).status == 409)
            let second = try await client.request(.put, "/db/_local%2Fcp", json: .obj(["_rev": .string("0-1"), "seq": .string("2-x")]))
            #expect(second.json?["rev"]?.stringValue == "0-2")
            let read = try await client.request(.get, "/db/_local/cp")
            #expect(read.json?["seq"]?.stringValue == "2-x" && read.json?["_rev"]?.stringValue == "0-2")
            let changes = try await client.request(.get, "/db/_changes")
            #expect(changes.json?["results"]?.arrayValue?.isEmpty == true)
            #expect(try await client.request(.get, "/db/_all_docs").json?["total_rows"]?.intValue == 0)
            let deleted = try await client.request(.delete, "/db/_local/cp?rev=0-2")
            #expect(deleted.json?["rev"]?.stringValue == "0-0")
            #expect(try await client.request(.get, "/db/_local/cp").status == 404)
        }
    }
}
