import CouchServer
import Foundation
import JSONText
import Testing

/// Stores `count` documents `doc-000…` with `_bulk_docs`; returns their revisions by id.
@discardableResult
func storeDocuments(_ client: CouchTestClient, count: Int, prefix: String = "doc-") async throws -> [String: String] {
    let docs: [JSONValue] = (0..<count).map { index in
        .obj(["_id": .string(prefix + String(format: "%03d", index)), "n": .integer(index)])
    }
    let result = try await client.request(.post, "/db/_bulk_docs", json: .obj(["docs": .array(docs)]))
    #expect(result.status == 201)
    var revisions: [String: String] = [:]
    for row in result.json?.arrayValue ?? [] {
        if let id = row["id"]?.stringValue, let rev = row["rev"]?.stringValue { revisions[id] = rev }
    }
    return revisions
}

/// Writes a branch `2-<hash>` over `base` with `new_edits: false`, as a replicator does.
func writeBranch(_ client: CouchTestClient, id: String, base: String, hash: String, body: String) async throws {
    let baseHash = String(base.drop { $0 != "-" }.dropFirst())
    let doc: JSONValue = .obj([
        "_id": .string(id), "_rev": .string("2-" + hash), "v": .string(body),
        "_revisions": .obj(["start": .integer(2), "ids": .array([.string(hash), .string(baseHash)])]),
    ])
    let result = try await client.request(.post, "/db/_bulk_docs", json: .obj(["new_edits": .bool(false), "docs": .array([doc])]))
    #expect(result.status == 201)
    #expect(result.json == .array([]))
}

@Suite struct BulkDocuments {
    @Test func reportsEachDocumentOfAMixedBatch() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let revisions = try await storeDocuments(client, count: 4)
            let batch: [JSONValue] = [
                .obj(["_id": .string("doc-000"), "_rev": .string(revisions["doc-000"]!), "n": .integer(10)]),
                .obj(["_id": .string("doc-001"), "n": .integer(11)]),
                .obj(["_id": .string("doc-002"), "_rev": .string("1-00000000000000000000000000000000")]),
                .obj(["_id": .string("doc-003"), "_rev": .string(revisions["doc-003"]!), "_deleted": .bool(true)]),
                .obj(["_id": .string("_bad")]),
                .obj(["n": .integer(99)]),
            ]
            let result = try await client.request(.post, "/db/_bulk_docs", json: .obj(["docs": .array(batch)]))
            let rows = try #require(result.json?.arrayValue)
            #expect(rows.count == 6)
            #expect(rows[0]["ok"]?.boolValue == true && rows[0]["rev"]?.stringValue?.hasPrefix("2-") == true)
            #expect(rows[1]["error"]?.stringValue == "conflict")
            #expect(rows[2]["error"]?.stringValue == "conflict")
            #expect(rows[3]["ok"]?.boolValue == true)
            #expect(rows[4]["error"]?.stringValue == "illegal_docid")
            #expect(rows[5]["id"]?.stringValue?.count == 32)
            let missingDocs = try await client.request(.post, "/db/_bulk_docs", json: .obj(["nodocs": .array([])]))
            #expect(missingDocs.status == 400)
            #expect(missingDocs.json?["reason"]?.stringValue == "POST body must include `docs` parameter.")
            let wrongType = try await client.request(.post, "/db/_bulk_docs", raw: "{\"docs\":[]}", headers: ["Content-Type": "text/plain"])
            #expect(wrongType.status == 415)
        }
    }

    @Test func replicatedBranchesMakeAConflictWonByTheHighestHash() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let base = try #require(try await client.request(.put, "/db/branchy", json: .obj(["v": .string("v1")])).json?["rev"]?.stringValue)
            try await writeBranch(client, id: "branchy", base: base, hash: String(repeating: "a", count: 32), body: "A")
            try await writeBranch(client, id: "branchy", base: base, hash: String(repeating: "b", count: 32), body: "B")
            // Writing the same revision again changes nothing.
            try await writeBranch(client, id: "branchy", base: base, hash: String(repeating: "b", count: 32), body: "B")
            let revA = "2-" + String(repeating: "a", count: 32)
            let revB = "2-" + String(repeating: "b", count: 32)
            let winner = try await client.request(.get, "/db/branchy?conflicts=true")
            #expect(winner.json?["_rev"]?.stringValue == revB)
            #expect(winner.json?["_conflicts"] == .array([.string(revA)]))
            #expect(winner.header("ETag") == nil)
            let leaves = try await client.request(.get, "/db/branchy?open_revs=all")
            #expect(leaves.json?.arrayValue?.compactMap { $0["ok"]?["_rev"]?.stringValue } == [revA, revB])
            let listed = try await client.request(.get, "/db/branchy?open_revs=" + "[\"\(revA)\",\"9-\(String(repeating: "c", count: 32))\"]".pathEncoded)
            #expect(listed.json?.arrayValue?.count == 2)
            #expect(listed.json?.arrayValue?.last?["missing"]?.stringValue?.hasPrefix("9-") == true)
            let latest = try await client.request(.get, "/db/branchy?open_revs=" + "[\"\(base)\"]".pathEncoded + "&latest=true")
            #expect(latest.json?.arrayValue?.count == 2)
            let changes = try await client.request(.get, "/db/_changes?style=all_docs")
            #expect(changes.json?["results"]?.arrayValue?.first?["changes"]?.arrayValue?.compactMap { $0["rev"]?.stringValue } == [revB, revA])
            // Deleting the winner's branch hands the win to the other leaf.
            #expect(try await client.request(.delete, "/db/branchy?rev=\(revB)").status == 200)
            let after = try await client.request(.get, "/db/branchy?conflicts=true&deleted_conflicts=true")
            #expect(after.json?["_rev"]?.stringValue == revA)
            #expect(after.json?["_conflicts"] == nil)
            #expect(after.json?["_deleted_conflicts"]?.arrayValue?.first?.stringValue?.hasPrefix("3-") == true)
        }
    }

    @Test func revsDiffNamesWhatIsMissing() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let revisions = try await storeDocuments(client, count: 1)
            let known = revisions["doc-000"]!
            let unknown = "2-" + String(repeating: "a", count: 32)
            let result = try await client.request(.post, "/db/_revs_diff", json: .obj([
                "doc-000": .array([.string(known), .string(unknown)]),
                "other": .array([.string("1-" + String(repeating: "b", count: 32))]),
            ]))
            #expect(result.json?["doc-000"]?["missing"] == .array([.string(unknown)]))
            #expect(result.json?["doc-000"]?["possible_ancestors"] == .array([.string(known)]))
            #expect(result.json?["other"]?["missing"]?.arrayValue?.count == 1)
            let none = try await client.request(.post, "/db/_revs_diff", json: .obj(["doc-000": .array([.string(known)])]))
            #expect(none.json == .object([:]))
        }
    }

    @Test func bulkGetReturnsRevisionsWithHistory() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let revisions = try await storeDocuments(client, count: 2)
            let base = revisions["doc-001"]!
            try await writeBranch(client, id: "doc-001", base: base, hash: String(repeating: "c", count: 32), body: "C")
            let result = try await client.request(.post, "/db/_bulk_get?revs=true", json: .obj(["docs": .array([
                .obj(["id": .string("doc-000")]),
                .obj(["id": .string("doc-001"), "rev": .string(base)]),
                .obj(["id": .string("nope")]),
            ])]))
            let rows = try #require(result.json?["results"]?.arrayValue)
            #expect(rows[0]["docs"]?.arrayValue?.first?["ok"]?["_revisions"]?["start"]?.intValue == 1)
            #expect(rows[1]["docs"]?.arrayValue?.first?["ok"]?["_rev"]?.stringValue == base)
            #expect(rows[2]["docs"]?.arrayValue?.first?["error"]?["error"]?.stringValue == "not_found")
            #expect(rows[2]["docs"]?.arrayValue?.first?["error"]?["rev"]?.stringValue == "undefined")
            let latest = try await client.request(.post, "/db/_bulk_get?revs=true&latest=true", json: .obj(["docs": .array([
                .obj(["id": .string("doc-001"), "rev": .string(base)]),
            ])]))
            let doc = latest.json?["results"]?.arrayValue?.first?["docs"]?.arrayValue?.first?["ok"]
            #expect(doc?["_rev"]?.stringValue == "2-" + String(repeating: "c", count: 32))
            #expect(doc?["_revisions"]?["ids"]?.arrayValue?.count == 2)
        }
    }
}

@Suite struct AllDocuments {
    @Test func listsDocumentsInByteOrderWithRangesAndPaging() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let revisions = try await storeDocuments(client, count: 10)
            try await client.request(.put, "/db/Zed", json: .obj([:]))
            try await client.request(.put, "/db/_design/app", json: .obj([:]))
            try await client.request(.delete, "/db/doc-005?rev=\(revisions["doc-005"]!)")
            let all = try await client.request(.get, "/db/_all_docs")
            let ids = all.json?["rows"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
            #expect(ids?.prefix(3) == ["Zed", "_design/app", "doc-000"])
            #expect(ids?.contains("doc-005") == false)
            #expect(all.json?["total_rows"]?.intValue == 11)
            let range = try await client.request(.get, "/db/_all_docs?startkey=%22doc-002%22&endkey=%22doc-006%22")
            #expect(range.json?["rows"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["doc-002", "doc-003", "doc-004", "doc-006"])
            #expect(range.json?["offset"]?.intValue == 4)
            let exclusive = try await client.request(.get, "/db/_all_docs?startkey=%22doc-002%22&endkey=%22doc-004%22&inclusive_end=false")
            #expect(exclusive.json?["rows"]?.arrayValue?.count == 2)
            let page = try await client.request(.get, "/db/_all_docs?descending=true&skip=1&limit=2&include_docs=true")
            let rows = try #require(page.json?["rows"]?.arrayValue)
            #expect(rows.compactMap { $0["id"]?.stringValue } == ["doc-008", "doc-007"])
            #expect(rows.first?["doc"]?["n"]?.intValue == 8)
            #expect(page.json?["offset"]?.intValue == 1)
            let keyed = try await client.request(.post, "/db/_all_docs", json: .obj(["keys": .array([.string("doc-001"), .string("doc-005"), .string("nope")])]))
            let keyedRows = try #require(keyed.json?["rows"]?.arrayValue)
            #expect(keyedRows[0]["value"]?["rev"]?.stringValue == revisions["doc-001"])
            #expect(keyedRows[1]["value"]?["deleted"]?.boolValue == true)
            #expect(keyedRows[2]["error"]?.stringValue == "not_found")
            #expect(keyed.json?["offset"]?.isNull == true)
            let getKeys = try await client.request(.get, "/db/_all_docs?keys=" + "[\"doc-009\"]".pathEncoded)
            #expect(getKeys.json?["rows"]?.arrayValue?.count == 1)
        }
    }
}

@Suite struct Changes {
    @Test func pagesThroughManyChangesWithLimitAndSince() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            try await storeDocuments(client, count: 95)
            var since = "0"
            var seen: [String] = []
            var pages = 0
            while true {
                let page = try await client.request(.get, "/db/_changes?limit=10&since=\(since.pathEncoded)")
                let rows = try #require(page.json?["results"]?.arrayValue)
                let pending = try #require(page.json?["pending"]?.intValue)
                seen += rows.compactMap { $0["id"]?.stringValue }
                since = try #require(page.json?["last_seq"]?.stringValue)
                pages += 1
                #expect(pending == 95 - seen.count)
                if rows.isEmpty || pending == 0 { break }
                #expect(pages < 20)
            }
            #expect(pages == 10)
            #expect(seen == (0..<95).map { "doc-" + String(format: "%03d", $0) })
            let info = try await client.request(.get, "/db")
            #expect(info.json?["update_seq"]?.stringValue == since)
            let now = try await client.request(.get, "/db/_changes?since=now")
            #expect(now.json?["results"]?.arrayValue?.isEmpty == true)
            #expect(now.json?["last_seq"]?.stringValue == since)
        }
    }

    @Test func filtersIncludesDocsAndGoesBackwards() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let revisions = try await storeDocuments(client, count: 5)
            try await client.request(.delete, "/db/doc-001?rev=\(revisions["doc-001"]!)")
            let filtered = try await client.request(.post, "/db/_changes?filter=_doc_ids&include_docs=true",
                                                    json: .obj(["doc_ids": .array([.string("doc-001"), .string("doc-003")])]))
            let rows = try #require(filtered.json?["results"]?.arrayValue)
            #expect(rows.compactMap { $0["id"]?.stringValue } == ["doc-003", "doc-001"])
            #expect(rows[1]["deleted"]?.boolValue == true)
            #expect(rows[1]["doc"]?["_deleted"]?.boolValue == true)
            #expect(rows[0]["doc"]?["n"]?.intValue == 3)
            let viaQuery = try await client.request(.get, "/db/_changes?filter=_doc_ids&doc_ids=" + "[\"doc-004\"]".pathEncoded)
            #expect(viaQuery.json?["results"]?.arrayValue?.count == 1)
            #expect(try await client.request(.get, "/db/_changes?filter=_doc_ids").status == 400)
            let backwards = try await client.request(.get, "/db/_changes?descending=true&limit=2")
            #expect(backwards.json?["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["doc-001", "doc-004"])
            let bad = try await client.request(.get, "/db/_changes?since=garbage")
            #expect(bad.status == 400)
            #expect(bad.json?["reason"]?.stringValue == "Malformed sequence supplied in 'since' parameter.")
        }
    }

    @Test func aLargeFeedWithDocumentsIsSentAsItIsRenderedAndReadsAsOneAnswer() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            // About 300 KiB of rows: several of the 64 KiB pieces the feed is written in.
            let filler = String(repeating: "é,\"\\x", count: 200)
            let docs: [JSONValue] = (0..<300).map { index in
                .obj(["_id": .string("doc-" + String(format: "%03d", index)), "n": .integer(index), "text": .string(filler)])
            }
            _ = try await client.request(.post, "/db/_bulk_docs", json: .obj(["docs": .array(docs)]))
            _ = try await client.request(.delete, "/db/doc-007?rev=" + (try #require(try await client.request(.get, "/db/doc-007").json?["_rev"]?.stringValue)))
            let feed = try await client.request(.get, "/db/_changes?include_docs=true&style=all_docs&conflicts=true")
            #expect(feed.status == 200)
            #expect(feed.header("Content-Length") == nil)
            #expect(feed.header("ETag") != nil)
            // Compact JSON, members in order, one line end: exactly what serializing it again gives.
            let value = try #require(feed.json)
            #expect(feed.bytes == value.serialized() + [0x0A])
            let rows = try #require(value["results"]?.arrayValue)
            #expect(rows.count == 300)
            #expect(rows.last?["id"]?.stringValue == "doc-007" && rows.last?["deleted"]?.boolValue == true)
            #expect(rows.first?["doc"]?["text"]?.stringValue == filler)
            #expect(rows.dropLast().compactMap { $0["doc"]?["n"]?.intValue } == (0..<300).filter { $0 != 7 })
            #expect(value["pending"]?.intValue == 0)
            let info = try await client.request(.get, "/db")
            #expect(value["last_seq"] == info.json?["update_seq"])
            // HEAD answers the same status and tag, with no body.
            let head = try await client.request(.head, "/db/_changes?include_docs=true")
            #expect(head.status == 200 && head.bytes.isEmpty)
        }
    }

    @Test func longpollTimesOutWithNothingNew() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let started = ContinuousClock.now
            let result = try await client.request(.get, "/db/_changes?feed=longpoll&since=now&timeout=300")
            #expect(ContinuousClock.now - started >= .milliseconds(280))
            #expect(result.json?["results"]?.arrayValue?.isEmpty == true)
        }
    }

    @Test func longpollSendsHeartbeatsWhileItWaits() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let result = try await client.request(.get, "/db/_changes?feed=longpoll&since=now&timeout=1500&heartbeat=100")
            let text = String(decoding: result.bytes, as: UTF8.self)
            #expect(text.hasPrefix("\n"))
            let json = try JSONValue(parsing: Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8))
            #expect(json["results"]?.arrayValue?.isEmpty == true)
        }
    }

    @Test func longpollAnswersWhenADocumentIsWritten() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let port = client.port
            // From the sequence before the write rather than `since=now`: on a loaded machine the
            // waiting request may reach the server only after the write, and must still list it.
            let info = try await client.request(.get, "/db")
            let since = try #require(info.json?["update_seq"]?.stringValue)
            async let waiting = withExtraClient(port: port) { other in
                try await other.request(.get, "/db/_changes?feed=longpoll&since=\(since)&timeout=20000&heartbeat=100")
            }
            // Long enough for the first 100 ms heartbeats even on a slow (sanitized, busy) machine:
            // 400 ms was not enough under AddressSanitizer.
            try await Task.sleep(for: .seconds(2))
            try await client.request(.put, "/db/wake", json: .obj([:]))
            let result = try await waiting
            // Answered by the write: a longpoll that ran to its own 20 s timeout would list no
            // change. (Whether heartbeats came first depends on how fast a loaded machine starts
            // the waiting request; the heartbeats have their own test above.)
            let text = String(decoding: result.bytes, as: UTF8.self)
            let json = try JSONValue(parsing: Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8))
            #expect(json["results"]?.arrayValue?.first?["id"]?.stringValue == "wake")
        }
    }

    @Test func continuousFeedStreamsLinesThenLastSeq() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            try await storeDocuments(client, count: 3)
            let result = try await client.request(.get, "/db/_changes?feed=continuous&timeout=200")
            let lines = String(decoding: result.bytes, as: UTF8.self).split(separator: "\n")
            #expect(lines.count == 4)
            #expect(lines.last?.contains("last_seq") == true)
        }
    }
}
