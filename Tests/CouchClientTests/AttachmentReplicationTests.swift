import CouchClient
import Foundation
import JSONText
import Testing

@Suite("Attachments between two live CouchServers")
struct AttachmentReplicationTests {
    /// A document with attachments read from one `cardsync serve` with `_bulk_get`
    /// (`revs`, `attachments`) and written to another with `_bulk_docs` (`new_edits: false`),
    /// as a replicator does: the same revision, the same digests and the same bytes arrive.
    @Test func copiesADocumentWithItsAttachmentsFromOneServerToAnother() async throws {
        let note = Array("Hello, attachment!\n".utf8)
        let binary = (0...255).map { UInt8($0) }
        try await withLiveClient { sourceClient, _ in
            try await withLiveClient { targetClient, _ in
                let source = sourceClient.database("source")
                let target = targetClient.database("target")
                try await source.create(ignoringExisting: true)
                try await target.create(ignoringExisting: true)
                let first = try await source.put([
                    "_id": "withatt", "title": "with attachments",
                    "_attachments": .obj([
                        "note.txt": .obj(["content_type": "text/plain", "data": .string(Data(note).base64EncodedString())]),
                    ]),
                ])
                var document = try await source.document(id: "withatt")
                document["_attachments"] = .obj([
                    "note.txt": .obj(["stub": true]),
                    "photo.bin": .obj(["content_type": "application/octet-stream", "data": .string(Data(binary).base64EncodedString())]),
                ])
                let second = try await source.put(document)
                #expect(second.revision.hasPrefix("2-") && first.revision.hasPrefix("1-"))
                let fetched = try await source.bulkGet([BulkGetRequest(id: "withatt")], revisions: true, attachments: true)
                guard case .found(let revision)? = fetched.first else {
                    Issue.record("the source document was not found: \(fetched)")
                    return
                }
                #expect(revision["_attachments"]?["photo.bin"]?["data"] != nil)
                let written = try await target.bulkDocuments([revision], newEdits: false)
                #expect(written.isEmpty)
                let copy = try await target.document(id: "withatt", revisions: true)
                let original = try await source.document(id: "withatt", revisions: true)
                #expect(copy["_rev"] == original["_rev"])
                #expect(copy["_revisions"] == original["_revisions"])
                #expect(copy["_attachments"] == original["_attachments"])
                #expect(copy["_attachments"]?["note.txt"]?["digest"]?.stringValue == "md5-f0fiyiF/tyJ118AMGD1ADQ==")
                #expect(copy["_attachments"]?["photo.bin"]?["revpos"]?.intValue == 2)
                let inline = try await target.bulkGet([BulkGetRequest(id: "withatt")], attachments: true)
                guard case .found(let copied)? = inline.first else {
                    Issue.record("the copy was not found")
                    return
                }
                #expect(copied["_attachments"]?["note.txt"]?["data"]?.stringValue == Data(note).base64EncodedString())
                #expect(copied["_attachments"]?["photo.bin"]?["data"]?.stringValue == Data(binary).base64EncodedString())
            }
        }
    }
}

private extension JSONValue {
    static func obj(_ members: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(JSONObject(members.map { JSONObject.Member(key: $0.key, value: $0.value) }))
    }
}
