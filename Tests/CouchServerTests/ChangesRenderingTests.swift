import CouchServer
import Foundation
import JSONText
import Testing

/// A `_changes` feed with documents writes each stored body as it is stored, after `_id` and
/// `_rev`, instead of parsing it and writing it again: its bytes are those of the rows made as
/// objects (the longpoll feed still makes them so), whatever the documents hold.
@Suite struct ChangesRendering {
    /// A database whose documents are each a case the copied body must get right.
    static func storeAssortedDocuments(_ client: CouchTestClient) async throws {
        try await makeDatabase(client)
        let docs: [JSONValue] = [
            .obj(["_id": .string("plain"), "name": .string("Ada"), "n": .integer(1), "list": .array([.bool(true), .null, .number("2.50")])]),
            .obj(["_id": .string("empty")]),
            .obj(["_id": .string("looks-like"), "note": .string(#"a "_attachments": mention, not a member"#)]),
            .obj(["_id": .string("escapes \"quoted\" é/ü"), "text": .string("line one\r\nline two\t\u{1} \u{2028} ✓")]),
            .obj(["_id": .string("with-file"), "v": .integer(3),
                  "_attachments": .obj(["a.txt": .obj(["content_type": .string("text/plain"), "data": .string("aGVsbG8=")])])]),
            .obj(["_id": .string("gone"), "v": .integer(4)]),
            .obj(["_id": .string("branched"), "v": .string("base")]),
        ]
        let stored = try await client.request(.post, "/db/_bulk_docs", json: .obj(["docs": .array(docs)]))
        #expect(stored.status == 201)
        var revisions: [String: String] = [:]
        for row in stored.json?.arrayValue ?? [] {
            if let id = row["id"]?.stringValue, let rev = row["rev"]?.stringValue { revisions[id] = rev }
        }
        let gone = try #require(revisions["gone"])
        #expect(try await client.request(.delete, "/db/gone?rev=\(gone)").status == 200)
        // Two conflicting leaves, as replicators leave them.
        let base = try #require(revisions["branched"])
        try await writeBranch(client, id: "branched", base: base, hash: String(repeating: "a", count: 32), body: "left")
        try await writeBranch(client, id: "branched", base: base, hash: String(repeating: "b", count: 32), body: "right")
    }

    /// The `results` part of a feed's answer: the text between `"results":[` and `],"last_seq"`.
    static func rowsText(_ bytes: [UInt8]) throws -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        let start = try #require(text.range(of: #"{"results":["#))
        let end = try #require(text.range(of: #"],"last_seq""#, options: .backwards))
        return String(text[start.upperBound..<end.lowerBound])
    }

    @Test(arguments: ["include_docs=true", "include_docs=true&conflicts=true", "include_docs=true&style=all_docs&conflicts=true",
                      "include_docs=true&style=all_docs", "style=all_docs"])
    func aFeedWithDocumentsHasTheBytesOfItsRowsMadeAsObjects(query: String) async throws {
        try await withTestServer { client, _ in
            try await Self.storeAssortedDocuments(client)
            let streamed = try await client.request(.get, "/db/_changes?\(query)")
            let made = try await client.request(.get, "/db/_changes?feed=longpoll&\(query)")
            #expect(streamed.status == 200 && made.status == 200)
            let streamedRows = try Self.rowsText(streamed.bytes)
            let madeRows = try Self.rowsText(made.bytes)
            #expect(streamedRows == madeRows)
            // Every document is there, each as it should read.
            let rows = try #require(try JSONValue(parsing: Array("[\(streamedRows)]".utf8)).arrayValue)
            #expect(rows.count == 7)
            if query.contains("include_docs") {
                let byID = Dictionary(uniqueKeysWithValues: rows.compactMap { row in row["id"]?.stringValue.map { ($0, row["doc"]) } })
                #expect(byID["plain"]??["name"]?.stringValue == "Ada")
                #expect(byID["empty"]??.objectValue?.keys == ["_id", "_rev"])
                #expect(byID["escapes \"quoted\" é/ü"]??["text"]?.stringValue == "line one\r\nline two\t\u{1} \u{2028} ✓")
                #expect(byID["with-file"]??["_attachments"]?["a.txt"]?["stub"]?.boolValue == true)
                #expect(byID["gone"]??["_deleted"]?.boolValue == true)
                #expect((byID["branched"]??["_conflicts"]?.arrayValue?.count ?? 0) == (query.contains("conflicts") ? 1 : 0))
            }
        }
    }
}
