@testable import CouchServer
import Foundation
import Hummingbird
import JSONText
import Testing
import TestSupport

/// The wider document API of issue 16: COPY, batch=ok, local_seq, purge, `_selector` filters
/// and the database settings, as CouchDB 3.5 answers them.
@Suite struct DocumentAPI {
    @Test func copyWritesTheSourceBodyUnderTheDestinationID() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let source = try await client.request(.put, "/db/src", json: .obj(["name": .string("source"), "n": .integer(1)]))
            let copyMethod = try #require(HTTPRequest.Method("COPY"))
            let copied = try await client.request(copyMethod, "/db/src", headers: ["Destination": "dst"])
            #expect(copied.status == 201)
            #expect(copied.json?["id"]?.stringValue == "dst")
            let firstRevision = try #require(copied.json?["rev"]?.stringValue)
            #expect(firstRevision.hasPrefix("1-"))
            #expect(copied.header("Location")?.hasSuffix("/db/dst") == true)
            let read = try await client.request(.get, "/db/dst")
            #expect(read.json?.objectValue?.keys == ["_id", "_rev", "name", "n"])
            #expect(read.json?["name"]?.stringValue == "source")

            let conflict = try await client.request(copyMethod, "/db/src", headers: ["Destination": "dst"])
            #expect(conflict.status == 409 && conflict.json?["error"]?.stringValue == "conflict")
            let overwrite = try await client.request(copyMethod, "/db/src", headers: ["Destination": "dst?rev=\(firstRevision)"])
            #expect(overwrite.status == 201)
            #expect(overwrite.json?["rev"]?.stringValue?.hasPrefix("2-") == true)

            let missing = try await client.request(copyMethod, "/db/nope", headers: ["Destination": "nope-copy"])
            #expect(missing.status == 404 && missing.json?["reason"]?.stringValue == "missing")
            let noDestination = try await client.request(copyMethod, "/db/src")
            #expect(noDestination.status == 400)
            #expect(noDestination.json?["reason"]?.stringValue == "Destination header is mandatory for COPY.")
            #expect(source.status == 201)
        }
    }

    @Test func batchOKAnswers202WithoutARevisionAndTheWriteIsThere() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let put = try await client.request(.put, "/db/batchdoc?batch=ok", json: .obj(["v": .string("batched")]))
            #expect(put.status == 202)
            #expect(put.json?.objectValue?.keys.sorted() == ["id", "ok"])
            let post = try await client.request(.post, "/db?batch=ok", json: .obj(["v": .string("posted")]))
            #expect(post.status == 202)
            let postedID = try #require(post.json?["id"]?.stringValue)
            #expect(try await client.request(.get, "/db/batchdoc").json?["v"]?.stringValue == "batched")
            #expect(try await client.request(.get, "/db/\(postedID)").json?["v"]?.stringValue == "posted")
        }
    }

    @Test func localSequenceIsTheDocumentsLastSequence() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            try await client.request(.put, "/db/a", json: .obj(["v": .integer(1)]))
            try await client.request(.put, "/db/b", json: .obj(["v": .integer(1)]))
            let read = try await client.request(.get, "/db/b?local_seq=true")
            #expect(read.json?["_local_seq"]?.intValue == 2)
            #expect(try await client.request(.get, "/db/b").json?["_local_seq"] == nil)
        }
    }

    @Test func designAndLocalDocumentListings() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            try await client.request(.put, "/db/plain", json: .obj([:]))
            try await client.request(.put, "/db/_design/app", json: .obj(["language": .string("javascript")]))
            try await client.request(.put, "/db/_local/checkpoint", json: .obj(["seq": .integer(1)]))
            let design = try await client.request(.get, "/db/_design_docs")
            #expect(design.json?["total_rows"]?.intValue == 1)
            #expect(design.json?["rows"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["_design/app"])
            let local = try await client.request(.get, "/db/_local_docs")
            #expect(local.json?["total_rows"] == .null && local.json?["offset"] == .null)
            #expect(local.json?["rows"]?.arrayValue?.first?["value"]?["rev"]?.stringValue == "0-1")
            #expect(local.json?["rows"]?.arrayValue?.count == 1)
        }
    }

    @Test func purgedRevisionsLeaveReadsAndTheChangesFeed() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let created = try await client.request(.put, "/db/purgeme", json: .obj(["v": .integer(1)]))
            let revision = try #require(created.json?["rev"]?.stringValue)
            try await client.request(.put, "/db/keep", json: .obj(["v": .integer(2)]))
            let purge = try await client.request(.post, "/db/_purge", json: .obj(["purgeme": .array([.string(revision)])]))
            #expect(purge.status == 201)
            #expect(purge.json?["purged"]?["purgeme"]?.arrayValue == [.string(revision)])
            #expect(purge.json?["purge_seq"] == .null)
            let read = try await client.request(.get, "/db/purgeme")
            #expect(read.status == 404 && read.json?["reason"]?.stringValue == "missing")
            let changes = try await client.request(.get, "/db/_changes")
            #expect(changes.json?["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["keep"])
            let info = try await client.request(.get, "/db")
            #expect(info.json?["doc_count"]?.intValue == 1)
            let again = try await client.request(.post, "/db/_purge", json: .obj([
                "purgeme": .array([.string(revision)]), "never-existed": .array([.string("1-ffffffffffffffffffffffffffffffff")]),
            ]))
            #expect(again.json?["purged"]?["purgeme"]?.arrayValue == [])
            #expect(again.json?["purged"]?["never-existed"]?.arrayValue == [])
            #expect(try await client.request(.get, "/db/_purged_infos_limit").json?.intValue == 1000)
        }
    }

    @Test func purgeSurvivesARestart() async throws {
        let folder = try TestPaths.makeTemporaryDirectory("couchserver-purge")
        defer { try? FileManager.default.removeItem(at: folder) }
        let revision = try await withTestServer(directory: folder) { client, _ in
            try await makeDatabase(client)
            let created = try await client.request(.put, "/db/purgeme", json: .obj(["v": .integer(1)]))
            let revision = try #require(created.json?["rev"]?.stringValue)
            try await client.request(.post, "/db/_purge", json: .obj(["purgeme": .array([.string(revision)])]))
            return revision
        }
        try await withTestServer(directory: folder) { client, _ in
            let current = try await client.request(.get, "/db/purgeme")
            let purged = try await client.request(.get, "/db/purgeme?rev=\(revision)")
            let info = try await client.request(.get, "/db")
            #expect(current.status == 404 && purged.status == 404)
            #expect(info.json?["doc_count"]?.intValue == 0)
        }
    }

    @Test func revisionsLimitAndSecuritySurviveARestart() async throws {
        let folder = try TestPaths.makeTemporaryDirectory("couchserver-settings")
        defer { try? FileManager.default.removeItem(at: folder) }
        let security: JSONValue = .obj([
            "admins": .obj(["names": .array([]), "roles": .array([])]),
            "members": .obj(["names": .array([]), "roles": .array([.string("contacts")])]),
        ])
        try await withTestServer(directory: folder) { client, _ in
            try await makeDatabase(client)
            #expect(try await client.request(.get, "/db/_revs_limit").json?.intValue == 1000)
            let defaults = try await client.request(.get, "/db/_security")
            #expect(defaults.json?["admins"]?["roles"]?.arrayValue == [.string("_admin")])
            #expect(try await client.request(.put, "/db/_revs_limit", raw: "500").status == 200)
            #expect(try await client.request(.put, "/db/_revs_limit", raw: "\"many\"").status == 400)
            #expect(try await client.request(.put, "/db/_security", json: security).status == 200)
            #expect(try await client.request(.put, "/db/_security", json: .obj(["admins": .integer(1)])).status == 400)
        }
        try await withTestServer(directory: folder) { client, _ in
            let limit = try await client.request(.get, "/db/_revs_limit")
            let stored = try await client.request(.get, "/db/_security")
            #expect(limit.json?.intValue == 500)
            #expect(stored.json == security)
        }
    }

    @Test func viewsAndMangoQueriesAreRefusedNotInvented() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let missingDesign = try await client.request(.get, "/db/_design/app/_view/by_name")
            #expect(missingDesign.status == 404 && missingDesign.json?["reason"]?.stringValue == "missing")
            try await client.request(.put, "/db/_design/app", json: .obj(["views": .obj(["by_name": .obj(["map": .string("function(doc){}")])])]))
            let view = try await client.request(.get, "/db/_design/app/_view/by_name")
            #expect(view.status == 501 && view.json?["error"]?.stringValue == "not_implemented")
            let find = try await client.request(.post, "/db/_find", json: .obj(["selector": .obj([:])]))
            #expect(find.status == 501 && find.json?["error"]?.stringValue == "not_implemented")
            #expect(try await client.request(.get, "/db/_design/app").status == 200)
        }
    }

    @Test func compactNeedsAJSONContentType() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            #expect(try await client.request(.post, "/db/_compact", raw: "").status == 202)
            let refused = try await client.request(.post, "/db/_compact")
            #expect(refused.status == 415 && refused.json?["error"]?.stringValue == "bad_content_type")
        }
    }

    @Test func databasesInformationAnswersEachKey() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let answer = try await client.request(.post, "/_dbs_info", json: .obj(["keys": .array([.string("db"), .string("missing")])]))
            let rows = try #require(answer.json?.arrayValue)
            #expect(rows.count == 2)
            #expect(rows[0]["info"]?["db_name"]?.stringValue == "db")
            #expect(rows[1]["error"]?.stringValue == "not_found")
        }
    }

    @Test func selectorFilterSelectsMatchingDocuments() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            try await client.request(.post, "/db/_bulk_docs", json: .obj(["docs": .array((0..<4).map { number in
                .obj(["_id": .string("contact-\(number)"), "type": .string("contact"), "n": .integer(number)])
            } + [.obj(["_id": .string("other"), "type": .string("note"), "n": .integer(9)])])]))
            func selected(_ selector: JSONValue) async throws -> [String] {
                let answer = try await client.request(.post, "/db/_changes?filter=_selector", json: .obj(["selector": selector]))
                return answer.json?["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue }.sorted() ?? []
            }
            #expect(try await selected(.obj(["type": .string("contact"), "n": .obj(["$gte": .integer(2)])])) == ["contact-2", "contact-3"])
            #expect(try await selected(.obj(["$or": .array([.obj(["n": .integer(0)]), .obj(["type": .string("note")])])])) == ["contact-0", "other"])
            #expect(try await selected(.obj(["_id": .obj(["$regex": .string("^contact-[13]$")])])) == ["contact-1", "contact-3"])
            let withoutBody = try await client.request(.get, "/db/_changes?filter=_selector")
            #expect(withoutBody.status == 400)
            #expect(withoutBody.json?["reason"]?.stringValue == "Selector must be specified in POST payload")
            let unknown = try await client.request(.post, "/db/_changes?filter=_selector", json: .obj(["selector": .obj(["n": .obj(["$near": .integer(1)])])]))
            #expect(unknown.status == 400 && unknown.json?["error"]?.stringValue == "invalid_operator")
            let badFilter = try await client.request(.get, "/db/_changes?filter=nope")
            #expect(badFilter.json?["reason"]?.stringValue == "`filter` must be of the form `designname/filtername`")
        }
    }
}

/// The selector on its own: each operator against documents written here.
@Suite struct MangoSelectorMatching {
    let document: JSONObject = [
        "_id": .string("ann"), "name": .object(["first": .string("Ann"), "last": .string("Lee")]),
        "age": .integer(41), "tags": .array([.string("work"), .string("vip")]), "nickname": .null,
    ]

    func matches(_ selector: JSONValue) throws -> Bool {
        try MangoSelector(parsing: selector).matches(document)
    }

    @Test func comparisonsAndEquality() throws {
        #expect(try matches(.obj(["age": .integer(41)])))
        #expect(try matches(.obj(["age": .obj(["$eq": .integer(41)])])))
        #expect(try !matches(.obj(["age": .obj(["$ne": .integer(41)])])))
        #expect(try matches(.obj(["age": .obj(["$gt": .integer(40), "$lt": .integer(42)])])))
        #expect(try !matches(.obj(["age": .obj(["$gt": .integer(41)])])))
        #expect(try matches(.obj(["age": .obj(["$gte": .integer(41), "$lte": .integer(41)])])))
        // CouchDB's collation: every string sorts after every number.
        #expect(try matches(.obj(["name.first": .obj(["$gt": .integer(1000)])])))
    }

    @Test func nestedFieldsExistenceAndLists() throws {
        #expect(try matches(.obj(["name": .obj(["first": .string("Ann")])])))
        #expect(try matches(.obj(["name.last": .string("Lee")])))
        #expect(try matches(.obj(["nickname": .obj(["$exists": .bool(true)])])))
        #expect(try matches(.obj(["email": .obj(["$exists": .bool(false)])])))
        #expect(try !matches(.obj(["email": .obj(["$ne": .string("x")])])))
        #expect(try matches(.obj(["tags": .obj(["$in": .array([.string("vip")])])])))
        #expect(try matches(.obj(["age": .obj(["$in": .array([.integer(1), .integer(41)])])])))
        #expect(try !matches(.obj(["age": .obj(["$nin": .array([.integer(41)])])])))
        #expect(try matches(.obj(["name.first": .obj(["$regex": .string("^A")])])))
        #expect(try !matches(.obj(["age": .obj(["$regex": .string("4")])])))
    }

    @Test func combinators() throws {
        #expect(try matches(.obj(["$and": .array([.obj(["age": .integer(41)]), .obj(["name.first": .string("Ann")])])])))
        #expect(try !matches(.obj(["$and": .array([.obj(["age": .integer(41)]), .obj(["name.first": .string("Bo")])])])))
        #expect(try matches(.obj(["$or": .array([.obj(["age": .integer(1)]), .obj(["name.first": .string("Ann")])])])))
        #expect(try matches(.obj(["$nor": .array([.obj(["age": .integer(1)])])])))
        #expect(try matches(.obj(["age": .obj(["$not": .obj(["$lt": .integer(18)])])])))
    }

    @Test func operatorsItCannotEvaluateAreRefused() {
        #expect(throws: CouchError.self) { try MangoSelector(parsing: .obj(["tags": .obj(["$size": .integer(2)])])) }
        #expect(throws: CouchError(.invalidOperator, reason: "Invalid operator: $near")) {
            try MangoSelector(parsing: .obj(["age": .obj(["$near": .integer(2)])]))
        }
        #expect(throws: CouchError.self) { try MangoSelector(parsing: .obj(["$or": .string("x")])) }
        #expect(throws: CouchError.self) { try MangoSelector(parsing: .array([])) }
        #expect(throws: CouchError.self) { try MangoSelector(parsing: .obj(["n": .obj(["$regex": .string("(")])])) }
    }
}
