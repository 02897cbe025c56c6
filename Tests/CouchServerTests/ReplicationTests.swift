import CouchServer
import Foundation
import JSONText
import Testing

/// A one-shot replicator following CouchDB's replication protocol: read the checkpoint from
/// `_local` on both sides, page through the source's `_changes` (style=all_docs), ask the target
/// `_revs_diff`, fetch what it lacks with `_bulk_get?revs=true&latest=true`, store it with
/// `_bulk_docs` and `new_edits: false`, then record the checkpoint on both sides.
struct TestReplicator {
    let source: CouchTestClient
    let target: CouchTestClient
    let database: String
    let replicationID: String

    /// Returns how many revisions were written to the target.
    @discardableResult
    func run(batchSize: Int = 7) async throws -> Int {
        let checkpointPath = "/\(database)/_local/\(replicationID)"
        let sourceCheckpoint = try await source.request(.get, checkpointPath).json
        let targetCheckpoint = try await target.request(.get, checkpointPath).json
        var since = "0"
        if let seq = sourceCheckpoint?["source_last_seq"]?.stringValue, seq == targetCheckpoint?["source_last_seq"]?.stringValue {
            since = seq
        }
        var written = 0
        while true {
            let changes = try await source.request(.get, "/\(database)/_changes?style=all_docs&limit=\(batchSize)&since=\(since.pathEncoded)")
            let rows = try #require(changes.json?["results"]?.arrayValue)
            let lastSeq = try #require(changes.json?["last_seq"]?.stringValue)
            if rows.isEmpty { break }
            var asked = JSONObject()
            for row in rows {
                let id = try #require(row["id"]?.stringValue)
                asked[id] = .array(row["changes"]?.arrayValue?.compactMap { $0["rev"] } ?? [])
            }
            let diff = try await target.request(.post, "/\(database)/_revs_diff", json: .object(asked))
            var wanted: [JSONValue] = []
            for member in diff.json?.objectValue?.members ?? [] {
                for revision in member.value["missing"]?.arrayValue ?? [] {
                    wanted.append(.obj(["id": .string(member.key), "rev": revision]))
                }
            }
            if !wanted.isEmpty {
                let fetched = try await source.request(.post, "/\(database)/_bulk_get?revs=true&latest=true", json: .obj(["docs": .array(wanted)]))
                var docs: [JSONValue] = []
                for result in fetched.json?["results"]?.arrayValue ?? [] {
                    for item in result["docs"]?.arrayValue ?? [] {
                        if let doc = item["ok"] { docs.append(doc) }
                    }
                }
                let stored = try await target.request(.post, "/\(database)/_bulk_docs", json: .obj(["new_edits": .bool(false), "docs": .array(docs)]))
                #expect(stored.status == 201)
                #expect(stored.json == .array([]))
                written += docs.count
            }
            // The checkpoint moves only after the target acknowledged (and fsynced) the batch.
            since = lastSeq
            try await saveCheckpoint(on: source, path: checkpointPath, since: since)
            try await saveCheckpoint(on: target, path: checkpointPath, since: since)
            if changes.json?["pending"]?.intValue == 0 { break }
        }
        return written
    }

    private func saveCheckpoint(on client: CouchTestClient, path: String, since: String) async throws {
        var body: JSONObject = ["source_last_seq": .string(since), "session_id": .string(replicationID)]
        if let current = try await client.request(.get, path).json?["_rev"] { body["_rev"] = current }
        let result = try await client.request(.put, path, json: .object(body))
        #expect(result.status == 201)
    }
}

/// Every document's leaves (with their ancestry) and winner, for comparing two databases.
func revisionTrees(_ client: CouchTestClient, database: String) async throws -> [String: [String]] {
    let changes = try await client.request(.get, "/\(database)/_changes?style=all_docs")
    var trees: [String: [String]] = [:]
    for row in changes.json?["results"]?.arrayValue ?? [] {
        let id = try #require(row["id"]?.stringValue)
        let leaves = try await client.request(.get, "/\(database)/\(id.pathEncoded)?open_revs=all&revs=true")
        var description: [String] = []
        for leaf in leaves.json?.arrayValue ?? [] {
            let doc = try #require(leaf["ok"])
            let history = doc["_revisions"]?["ids"]?.arrayValue?.compactMap(\.stringValue).joined(separator: "<") ?? ""
            description.append("\(doc["_rev"]?.stringValue ?? "?") deleted=\(doc["_deleted"]?.boolValue ?? false) body=\(doc["v"]?.stringValue ?? "") \(history)")
        }
        let winner = try await client.request(.get, "/\(database)/\(id.pathEncoded)?conflicts=true")
        description.append("winner=\(winner.json?["_rev"]?.stringValue ?? "deleted") conflicts=\(winner.json?["_conflicts"]?.arrayValue?.count ?? 0)")
        trees[id] = description.sorted()
    }
    return trees
}

@Suite struct Replication {
    @Test func twoServersConvergeOnTheSameRevisionTreesAndWinners() async throws {
        try await withTestServer { a, _ in
            try await withTestServer { b, _ in
                try await makeDatabase(a, "contacts")
                try await makeDatabase(b, "contacts")
                let forward = TestReplicator(source: a, target: b, database: "contacts", replicationID: "a-to-b")
                let backward = TestReplicator(source: b, target: a, database: "contacts", replicationID: "b-to-a")

                // A has 20 contacts; B gets them.
                var revisions: [String: String] = [:]
                for index in 0..<20 {
                    let result = try await a.request(.put, "/contacts/c\(index)", json: .obj(["v": .string("a\(index)")]))
                    revisions["c\(index)"] = result.json?["rev"]?.stringValue
                }
                #expect(try await forward.run() == 20)
                // A second run starts from the checkpoint and copies nothing.
                #expect(try await forward.run() == 0)

                // Both sides edit c1 differently (a conflict), B deletes c2, A edits c3 twice,
                // B creates c20, and both edit c4 to the same content (the same revision id).
                try await a.request(.put, "/contacts/c1", json: .obj(["_rev": .string(revisions["c1"]!), "v": .string("a-edit")]))
                try await b.request(.put, "/contacts/c1", json: .obj(["_rev": .string(revisions["c1"]!), "v": .string("b-edit")]))
                try await b.request(.delete, "/contacts/c2?rev=\(revisions["c2"]!)")
                let c3 = try await a.request(.put, "/contacts/c3", json: .obj(["_rev": .string(revisions["c3"]!), "v": .string("one")]))
                try await a.request(.put, "/contacts/c3", json: .obj(["_rev": c3.json!["rev"]!, "v": .string("two")]))
                try await b.request(.put, "/contacts/c20", json: .obj(["v": .string("b-new")]))
                let sameA = try await a.request(.put, "/contacts/c4", json: .obj(["_rev": .string(revisions["c4"]!), "v": .string("same")]))
                let sameB = try await b.request(.put, "/contacts/c4", json: .obj(["_rev": .string(revisions["c4"]!), "v": .string("same")]))
                #expect(sameA.json?["rev"] == sameB.json?["rev"])

                try await forward.run()
                try await backward.run()
                let treesA = try await revisionTrees(a, database: "contacts")
                let treesB = try await revisionTrees(b, database: "contacts")
                #expect(treesA == treesB)
                #expect(treesA.count == 21)
                #expect(treesA["c1"]?.last?.contains("conflicts=1") == true || treesA["c1"]?.contains { $0.contains("conflicts=1") } == true)
                let winnerA = try await a.request(.get, "/contacts/c1?conflicts=true").json
                let winnerB = try await b.request(.get, "/contacts/c1?conflicts=true").json
                #expect(winnerA == winnerB)
                #expect(try await a.request(.get, "/contacts/c2").json?["reason"]?.stringValue == "deleted")
                #expect(try await b.request(.get, "/contacts/c3").json?["v"]?.stringValue == "two")

                // Resolving the conflict on B and replicating back clears it on A as well.
                let loser = try #require(winnerB?["_conflicts"]?.arrayValue?.first?.stringValue)
                try await b.request(.delete, "/contacts/c1?rev=\(loser)")
                try await backward.run()
                try await forward.run()
                #expect(try await a.request(.get, "/contacts/c1?conflicts=true").json?["_conflicts"] == nil)
                let finalA = try await revisionTrees(a, database: "contacts")
                let finalB = try await revisionTrees(b, database: "contacts")
                #expect(finalA == finalB)
            }
        }
    }
}
