import CouchClient
import Foundation
import Testing

@Suite("Against a live CouchServer")
struct LiveServerTests {
    @Test func readsServerInfo() async throws {
        try await withLiveClient { client, _ in
            let info = try await client.serverInfo()
            #expect(info.version != nil)
            #expect(info.uuid?.isEmpty == false)
            #expect(info.json["couchdb"] == "Welcome")
        }
    }

    @Test func createsDatabaseAndToleratesExistingWhenAsked() async throws {
        try await withLiveClient { client, _ in
            let database = client.database("contacts")
            #expect(try await database.create())
            #expect(try await database.create(ignoringExisting: true) == false)
            let error = await #expect(throws: CouchClientError.self) { try await database.create() }
            #expect(error?.code == .preconditionFailed)
            #expect(error?.status == 412)
            let info = try await database.info()
            #expect(info.name == "contacts")
            #expect(info.documentCount == 0)
            #expect(try await client.allDatabases().contains("contacts"))
        }
    }

    @Test func savesReadsUpdatesAndDeletesDocumentsWithAwkwardIDs() async throws {
        try await withLiveClient { client, _ in
            let database = client.database("contacts")
            try await database.create(ignoringExisting: true)
            for id in ["people/alice smith+1?x=%41", "_design/app", "ünïcode#frag"] {
                let first = try await database.put(["_id": .string(id), "name": "Alice"])
                #expect(first.id == id)
                #expect(first.revision.hasPrefix("1-"))
                var document = try await database.document(id: id)
                #expect(document["_id"]?.stringValue == id)
                document["name"] = "Alice B."
                let second = try await database.put(document)
                #expect(second.revision.hasPrefix("2-"))
                let withHistory = try await database.document(id: id, revisions: true)
                #expect(withHistory["_revisions"]?["ids"]?.arrayValue?.count == 2)
                let old = try await database.document(id: id, revision: first.revision)
                #expect(old["name"] == "Alice")
                let tombstone = try await database.deleteDocument(id: id, revision: second.revision)
                #expect(tombstone.revision.hasPrefix("3-"))
                let error = await #expect(throws: CouchClientError.self) { try await database.document(id: id) }
                #expect(error?.code == .notFound)
                #expect(error?.documentID == id)
            }
            let generated = try await database.put(["name": "No id"])
            #expect(!generated.id.isEmpty)
        }
    }

    @Test func mapsNotFoundAndConflictWithoutThePassword() async throws {
        try await withLiveClient { client, _ in
            let missing = await #expect(throws: CouchClientError.self) { try await client.database("nope").info() }
            #expect(missing?.code == .notFound)
            #expect(missing?.error == "not_found")
            #expect(missing?.status == 404)

            let database = client.database("contacts")
            try await database.create(ignoringExisting: true)
            let saved = try await database.put(["_id": "bob"])
            try await database.put(["_id": "bob", "_rev": .string(saved.revision), "v": 2])
            let conflict = await #expect(throws: CouchClientError.self) {
                try await database.put(["_id": "bob", "_rev": .string(saved.revision), "v": 3])
            }
            #expect(conflict?.code == .conflict)
            #expect(conflict?.status == 409)
            #expect(conflict?.error == "conflict")
            #expect(conflict?.reason?.isEmpty == false)
            #expect(conflict?.documentID == "bob")
            for error in [missing, conflict].compactMap({ $0 }) {
                #expect(!error.description.contains(adminPassword))
                #expect(error.url?.contains(adminPassword) == false)
                #expect(error.url?.hasPrefix("http://127.0.0.1:") == true)
            }
        }
    }

    @Test func reportsWrongPasswordAsUnauthorizedWithoutIt() async throws {
        try await withLiveServer { url in
            let port = url.port!
            let wrong = "wr0ng-pa55word"
            let badURL = URL(string: "http://\(adminName):\(wrong)@127.0.0.1:\(port)")!
            try await withCouchClient(url: badURL, configuration: .init(retry: RetryPolicy(maximumAttempts: 3))) { client in
                #expect(!client.baseURL.contains(wrong))
                let error = await #expect(throws: CouchClientError.self) { try await client.database("contacts").create() }
                #expect(error?.code == .unauthorized)
                #expect(error?.status == 401)
                #expect(error?.attempts == 1)
                let text = String(describing: error)
                #expect(!text.contains(wrong))
                #expect(!String(reflecting: error).contains(wrong))
                #expect(error?.url?.contains(wrong) == false)
            }
        }
    }

    @Test func bulkDocumentsReportsPerDocumentResultsAndReplicatesWithoutNewEdits() async throws {
        try await withLiveClient { client, _ in
            let database = client.database("contacts")
            try await database.create(ignoringExisting: true)
            let existing = try await database.put(["_id": "c"])
            let results = try await database.bulkDocuments([["_id": "a"], ["_id": "b", "n": 1], ["_id": "c"]])
            #expect(results.map(\.id) == ["a", "b", "c"])
            #expect(results[0].isSuccess && results[1].isSuccess)
            #expect(results[0].revision?.hasPrefix("1-") == true)
            #expect(results[2].error == "conflict")
            #expect(results[2].reason?.isEmpty == false)

            // A second branch of "c", as a replicator would write it.
            let replicated = try await database.bulkDocuments(
                [["_id": "c", "_rev": "1-ffffffffffffffffffffffffffffffff", "branch": true]], newEdits: false)
            #expect(replicated.allSatisfy { $0.isSuccess })
            let document = try await database.document(id: "c", conflicts: true)
            let conflicts = document["_conflicts"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(conflicts.count == 1)
            let leaves = try await database.document(id: "c", openRevisions: .all)
            #expect(leaves.count == 2)
            let some = try await database.document(id: "c", openRevisions: .only([existing.revision, "9-abc"]))
            #expect(some.contains(.missing("9-abc")))
            #expect(some.contains { if case .found(let doc) = $0 { doc["_rev"]?.stringValue == existing.revision } else { false } })
        }
    }

    @Test func pagesThroughChangesWithOpaqueSequences() async throws {
        try await withLiveClient { client, _ in
            let database = client.database("contacts")
            try await database.create(ignoringExisting: true)
            _ = try await database.bulkDocuments((1...5).map { ["_id": .string("doc\($0)")] })
            let saved = try await database.put(["_id": "x"])
            _ = try await database.bulkDocuments([["_id": "x", "_rev": "1-0123456789abcdef0123456789abcdef"]], newEdits: false)
            try await database.deleteDocument(id: "doc1", revision: try await database.document(id: "doc1")["_rev"]!.stringValue!)

            let all = try await database.changes()
            #expect(all.results.count == 6)
            #expect(all.pending == 0)
            #expect(all.results.first { $0.id == "doc1" }?.isDeleted == true)

            let first = try await database.changes(ChangesRequest(limit: 2))
            #expect(first.results.count == 2)
            #expect(first.pending == 4)
            let rest = try await database.changes(ChangesRequest(since: first.lastSequence, includeDocuments: true))
            #expect(rest.results.count == 4)
            #expect(rest.results.allSatisfy { $0.document != nil })
            let end = try await database.changes(ChangesRequest(since: rest.lastSequence))
            #expect(end.results.isEmpty)

            let branches = try await database.changes(ChangesRequest(includeDocuments: true, allRevisions: true, conflicts: true))
            let x = try #require(branches.results.first { $0.id == "x" })
            #expect(x.revisions.count == 2)
            #expect(x.revisions.contains(saved.revision))
            #expect(x.document?["_conflicts"]?.arrayValue?.count == 1)

            // Tokens survive being stored as JSON and used again.
            let stored = try JSONEncoder().encode(first.lastSequence)
            let restored = try JSONDecoder().decode(CouchSequence.self, from: stored)
            #expect(restored == first.lastSequence)
            #expect(try await database.changes(ChangesRequest(since: restored)).results.count == 4)
        }
    }

    @Test func listsDocumentsByKey() async throws {
        try await withLiveClient { client, _ in
            let database = client.database("contacts")
            try await database.create(ignoringExisting: true)
            let a = try await database.put(["_id": "a", "n": 1])
            let b = try await database.put(["_id": "b/slash"])
            try await database.deleteDocument(id: b.id, revision: b.revision)
            let rows = try await database.allDocuments(keys: ["a", "b/slash", "zzz"], includeDocuments: true)
            #expect(rows.map(\.key) == ["a", "b/slash", "zzz"])
            #expect(rows[0].revision == a.revision)
            #expect(rows[0].document?["n"] == 1)
            #expect(rows[1].isDeleted)
            #expect(rows[2].error == "not_found")
        }
    }

    @Test func storesCheckpointsInLocalDocuments() async throws {
        try await withLiveClient { client, _ in
            let database = client.database("contacts")
            try await database.create(ignoringExisting: true)
            #expect(try await database.localDocument(id: "cardsync-1") == nil)
            let first = try await database.putLocalDocument(id: "cardsync-1", ["last_seq": "12-abc"])
            #expect(first.id == "_local/cardsync-1")
            var checkpoint = try #require(try await database.localDocument(id: "_local/cardsync-1"))
            #expect(checkpoint["last_seq"] == "12-abc")
            checkpoint["last_seq"] = 13
            try await database.putLocalDocument(id: "cardsync-1", checkpoint)
            #expect(try await database.localDocument(id: "cardsync-1")?["last_seq"] == 13)
            #expect(try await database.changes().results.isEmpty)
        }
    }

    @Test func comparesRevisionsAndFetchesInBulk() async throws {
        try await withLiveClient { client, _ in
            let database = client.database("contacts")
            try await database.create(ignoringExisting: true)
            let a = try await database.put(["_id": "a", "n": 1])
            let difference = try await database.revisionsDifference(["a": [a.revision, "2-abc"], "new": ["1-def"]])
            #expect(difference["a"]?.missing == ["2-abc"])
            #expect(difference["new"]?.missing == ["1-def"])

            let results = try await database.bulkGet([BulkGetRequest(id: "a"), BulkGetRequest(id: "a", revision: a.revision),
                                                      BulkGetRequest(id: "missing")], revisions: true)
            #expect(results.count == 3)
            guard case .found(let document) = results[0] else { Issue.record("expected a document"); return }
            #expect(document["n"] == 1)
            #expect(document["_revisions"] != nil)
            guard case .failed(let id, _, let error, _) = results[2] else { Issue.record("expected a failure"); return }
            #expect(id == "missing")
            #expect(error == "not_found")
        }
    }
}

extension LiveServerTests {
    /// CouchDB compares ids by their bytes: `café` with a composed `é` and with `e` and a
    /// combining accent are two documents (Swift's String equality would make them one).
    @Test func idsThatDifferOnlyInUnicodeNormalisationAreTwoDocuments() async throws {
        try await withLiveClient { client, _ in
            let database = client.database("contacts")
            try await database.create(ignoringExisting: true)
            let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
            let first = try await database.put(["_id": .string(composed), "form": "composed"])
            let second = try await database.put(["_id": .string(decomposed), "form": "decomposed"])
            #expect(first.revision.hasPrefix("1-") && second.revision.hasPrefix("1-"))
            #expect(try await database.document(id: composed)["form"]?.stringValue == "composed")
            #expect(try await database.document(id: decomposed)["form"]?.stringValue == "decomposed")
            #expect(try await database.info().documentCount == 2)
        }
    }
}
