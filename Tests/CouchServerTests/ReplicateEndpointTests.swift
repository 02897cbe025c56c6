import CouchServer
import Foundation
import Hummingbird
import JSONText
import Testing

/// `POST /_replicate`: one-shot replication between databases of one server and to another
/// server by URL (through the project's CouchDB client).
@Suite struct ReplicateEndpoint {
    /// Writes a document, an edited one, a deleted one and a conflict into `db`.
    func fillSource(_ client: CouchTestClient) async throws {
        try await makeDatabase(client, "source")
        try await client.request(.put, "/source/ann", json: .obj(["fn": .string("Ann")]))
        let bo = try await client.request(.put, "/source/bo", json: .obj(["fn": .string("Bo")]))
        let boRevision = try #require(bo.json?["rev"]?.stringValue)
        try await client.request(.put, "/source/bo", json: .obj(["_rev": .string(boRevision), "fn": .string("Bo B")]))
        let gone = try await client.request(.put, "/source/gone", json: .obj(["fn": .string("Gone")]))
        try await client.request(.delete, "/source/gone?rev=\(try #require(gone.json?["rev"]?.stringValue))")
        try await client.request(.post, "/source/_bulk_docs", json: .obj(["new_edits": .bool(false), "docs": .array([
            .obj(["_id": .string("ann"), "_rev": .string("1-" + String(repeating: "f", count: 32)), "fn": .string("Ann (other)")]),
        ])]))
    }

    @Test func replicatesBetweenTwoDatabasesOfOneServer() async throws {
        try await withTestServer { client, _ in
            try await fillSource(client)
            let missingTarget = try await client.request(.post, "/_replicate", json: .obj(["source": .string("source"), "target": .string("copy")]))
            #expect(missingTarget.json?["error"]?.stringValue == "db_not_found")
            let report = try await client.request(.post, "/_replicate", json: .obj([
                "source": .string("source"), "target": .string("copy"), "create_target": .bool(true),
            ]))
            #expect(report.status == 200)
            #expect(report.json?["ok"]?.boolValue == true)
            #expect(report.json?["history"]?.arrayValue?.first?["docs_written"]?.intValue == 4)
            let info = try await client.request(.get, "/copy")
            #expect(info.json?["doc_count"]?.intValue == 2 && info.json?["doc_del_count"]?.intValue == 1)
            let ann = try await client.request(.get, "/copy/ann?conflicts=true")
            #expect(ann.json?["_conflicts"]?.arrayValue?.count == 1)
            #expect(try await client.request(.get, "/copy/bo").json?["fn"]?.stringValue == "Bo B")
            let again = try await client.request(.post, "/_replicate", json: .obj(["source": .string("source"), "target": .string("copy")]))
            #expect(again.json?["history"]?.arrayValue?.first?["docs_written"]?.intValue == 0)
            let badSource = try await client.request(.post, "/_replicate", json: .obj(["source": .string("missing"), "target": .string("copy")]))
            #expect(badSource.status == 500 && badSource.json?["error"]?.stringValue == "db_not_found")
        }
    }

    @Test func replicatesToAnotherServerByURL() async throws {
        try await withTestServer { other, _ in
            try await withTestServer { client, _ in
                try await fillSource(client)
                let target = "http://\(adminName):\(adminPassword)@127.0.0.1:\(other.port)/remote"
                let report = try await client.request(.post, "/_replicate", json: .obj([
                    "source": .string("source"), "target": .string(target), "create_target": .bool(true),
                ]))
                #expect(report.status == 200)
                #expect(report.json?["history"]?.arrayValue?.first?["docs_written"]?.intValue == 4)
                let info = try await other.request(.get, "/remote")
                #expect(info.json?["doc_count"]?.intValue == 2 && info.json?["doc_del_count"]?.intValue == 1)
                #expect(try await other.request(.get, "/remote/bo").json?["fn"]?.stringValue == "Bo B")
                // And back from the URL into a new local database.
                let back = try await client.request(.post, "/_replicate", json: .obj([
                    "source": .string(target), "target": .string("back"), "create_target": .bool(true),
                ]))
                #expect(back.status == 200)
                #expect(try await client.request(.get, "/back/ann?conflicts=true").json?["_conflicts"]?.arrayValue?.count == 1)
                let missing = try await client.request(.post, "/_replicate", json: .obj([
                    "source": .string("http://\(adminName):\(adminPassword)@127.0.0.1:\(other.port)/nothing"), "target": .string("back"),
                ]))
                #expect(missing.status == 500)
                #expect(missing.json?["reason"]?.stringValue == "could not open http://127.0.0.1:\(other.port)/nothing/")
            }
        }
    }

    /// A document with a text attachment (stored gzipped) and a binary one.
    func fillSourceWithAttachments(_ client: CouchTestClient) async throws -> [String: [UInt8]] {
        try await makeDatabase(client, "source")
        let note = Array("Ann's note, long enough to be worth compressing. ".utf8) + Array(repeating: 0x61, count: 500)
        let photo: [UInt8] = (0..<3000).map { UInt8(($0 * 7919) & 0xFF) }
        let created = try await client.request(.put, "/source/ann", json: .obj([
            "fn": .string("Ann"),
            "_attachments": .obj([
                "note.txt": .obj(["content_type": .string("text/plain"), "data": .string(Data(note).base64EncodedString())]),
                "photo/face.jpg": .obj(["content_type": .string("image/jpeg"), "data": .string(Data(photo).base64EncodedString())]),
            ]),
        ]))
        #expect(created.status == 201)
        return ["note.txt": note, "photo%2Fface.jpg": photo]
    }

    @Test func replicationCarriesAttachmentsToALocalDatabaseAndToAnotherServer() async throws {
        try await withTestServer { other, _ in
            try await withTestServer { client, _ in
                let attachments = try await fillSourceWithAttachments(client)
                let stubs = try #require(try await client.request(.get, "/source/ann").json?["_attachments"])
                let remote = "http://\(adminName):\(adminPassword)@127.0.0.1:\(other.port)/remote"
                for (target, reader, path) in [("copy", client, "/copy/ann"), (remote, other, "/remote/ann")] {
                    let report = try await client.request(.post, "/_replicate", json: .obj([
                        "source": .string("source"), "target": .string(target), "create_target": .bool(true),
                    ]))
                    #expect(report.status == 200, "\(target)")
                    #expect(report.json?["history"]?.arrayValue?.first?["docs_written"]?.intValue == 1)
                    // The same stubs (digests, lengths, revpos) and the same bytes on the other side.
                    #expect(try await reader.request(.get, path).json?["_attachments"] == stubs, "\(target)")
                    for (name, bytes) in attachments {
                        let read = try await reader.request(.get, "\(path)/\(name)")
                        #expect(read.status == 200 && read.bytes == bytes, "\(target) \(name)")
                    }
                }
            }
        }
    }
}
