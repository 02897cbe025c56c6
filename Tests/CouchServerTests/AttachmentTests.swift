@testable import CouchServer
import Foundation
import Hummingbird
import HummingbirdTesting
import JSONText
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

extension CouchTestClient {
    /// A request whose body is `bytes` sent as `contentType` (an attachment upload).
    func upload(_ method: HTTPRequest.Method, _ path: String, bytes: [UInt8], contentType: String) async throws -> HTTPResult {
        var headers: HTTPFields = [.accept: "application/json", .contentType: contentType]
        headers[.authorization] = "Basic " + Data("\(adminName):\(adminPassword)".utf8).base64EncodedString()
        return try await send(path, method, headers, ByteBuffer(bytes: bytes))
    }
}

/// Attachments as CouchDB 3.5 keeps and shows them. The digests expected below are the ones
/// CouchDB 3.5.0 answered for the same bytes (`../shared/couchdb/transcript-couchdb-3.5.0-api2.jsonl`):
/// the MD5 of the stored form, which for `text/*` is zlib's gzip at level 8.
@Suite struct Attachments {
    static let note = Array("Hello, attachment!\n".utf8)
    static let pixel: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1]

    static func inlineDocument() -> JSONValue {
        .obj([
            "title": .string("with attachments"),
            "_attachments": .obj([
                "note.txt": .obj(["content_type": .string("text/plain"), "data": .string(Data(note).base64EncodedString())]),
                "pixel.png": .obj(["content_type": .string("image/png"), "data": .string(Data(pixel).base64EncodedString())]),
            ]),
        ])
    }

    @Test func inlineAttachmentsBecomeStubsWithCouchDBsDigests() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            #expect(try await client.request(.put, "/db/d", json: Self.inlineDocument()).status == 201)
            let read = try await client.request(.get, "/db/d")
            let stubs = try #require(read.json?["_attachments"]?.objectValue)
            #expect(stubs.keys == ["note.txt", "pixel.png"])
            #expect(stubs["note.txt"] == .obj([
                "content_type": .string("text/plain"), "revpos": .integer(1), "digest": .string("md5-f0fiyiF/tyJ118AMGD1ADQ=="),
                "length": .integer(19), "stub": .bool(true),
            ]))
            #expect(stubs["pixel.png"] == .obj([
                "content_type": .string("image/png"), "revpos": .integer(1), "digest": .string("md5-V9zzzIhsNbQkPhq2k1q36g=="),
                "length": .integer(20), "stub": .bool(true),
            ]))
            #expect(read.json?.objectValue?.keys.last == "_attachments")
            let withData = try await client.request(.get, "/db/d?attachments=true")
            #expect(withData.json?["_attachments"]?["note.txt"]?["data"]?.stringValue == Data(Self.note).base64EncodedString())
            #expect(withData.json?["_attachments"]?["pixel.png"]?["data"]?.stringValue == Data(Self.pixel).base64EncodedString())
            let encoding = try await client.request(.get, "/db/d?att_encoding_info=true")
            #expect(encoding.json?["_attachments"]?["note.txt"]?["encoding"]?.stringValue == "gzip")
            #expect(encoding.json?["_attachments"]?["note.txt"]?["encoded_length"]?.intValue == 39)
            #expect(encoding.json?["_attachments"]?["pixel.png"]?["encoding"] == nil)
        }
    }

    @Test func standaloneAttachmentsRoundTripTheirBytes() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let rev1 = try #require(try await client.request(.put, "/db/d", json: Self.inlineDocument()).json?["rev"]?.stringValue)
            let binary = (0...255).map { UInt8($0) }
            let put = try await client.upload(.put, "/db/d/photo.bin?rev=\(rev1)", bytes: binary, contentType: "application/octet-stream")
            #expect(put.status == 201)
            #expect(put.header("Location")?.hasSuffix("/db/d/photo.bin") == true)
            let rev2 = try #require(put.json?["rev"]?.stringValue)
            #expect(rev2.hasPrefix("2-"))
            let get = try await client.request(.get, "/db/d/photo.bin")
            #expect(get.status == 200 && get.bytes == binary)
            #expect(get.header("Content-Type") == "application/octet-stream")
            #expect(get.header("ETag") == "\"4shl20Fivtljv6qe9qwY8A==\"")
            #expect(get.header("Accept-Ranges") == "bytes")
            let range = try await client.request(.get, "/db/d/photo.bin", headers: ["Range": "bytes=10-19"])
            #expect(range.status == 206 && range.bytes == Array(binary[10...19]))
            #expect(range.header("Content-Range") == "bytes 10-19/256")
            #expect(try await client.request(.get, "/db/d/photo.bin", headers: ["Range": "bytes=-6"]).bytes == Array(binary[250...]))
            #expect(try await client.request(.get, "/db/d/photo.bin", headers: ["Range": "bytes=300-"]).status == 416)
            let head = try await client.request(.head, "/db/d/photo.bin")
            #expect(head.status == 200 && head.bytes.isEmpty && head.header("Content-Length") == "256")
            // A name with a slash and a space, reachable with the slash encoded or not.
            let named = try await client.upload(.put, "/db/d/dir%2Fmy%20file.txt?rev=\(rev2)", bytes: Array("slash and space".utf8),
                                                contentType: "text/plain")
            let rev3 = try #require(named.json?["rev"]?.stringValue)
            #expect(try await client.request(.get, "/db/d/dir%2Fmy%20file.txt").bytes == Array("slash and space".utf8))
            #expect(try await client.request(.get, "/db/d/dir/my%20file.txt").bytes == Array("slash and space".utf8))
            let empty = try await client.upload(.put, "/db/d/empty.txt?rev=\(rev3)", bytes: [], contentType: "text/plain")
            let rev4 = try #require(empty.json?["rev"]?.stringValue)
            let emptyRead = try await client.request(.get, "/db/d/empty.txt")
            #expect(emptyRead.status == 200 && emptyRead.bytes.isEmpty && emptyRead.header("ETag") == "\"cCkGbCesb17xjWYNV0GXmg==\"")
            // Newest first, each with the generation that added it.
            let stubs = try #require(try await client.request(.get, "/db/d").json?["_attachments"]?.objectValue)
            #expect(stubs.keys == ["empty.txt", "dir/my file.txt", "photo.bin", "note.txt", "pixel.png"])
            #expect(stubs.members.map { $0.value["revpos"]?.intValue } == [4, 3, 2, 1, 1])
            #expect(stubs["empty.txt"]?["length"]?.intValue == 0)
            // atts_since: data only for attachments added after revision 2.
            let since = try await client.request(.get, "/db/d?atts_since=%5B%22\(rev2)%22%5D")
            let sinceAttachments = try #require(since.json?["_attachments"]?.objectValue)
            #expect(sinceAttachments.members.map { $0.value["data"] != nil } == [true, true, false, false, false])
            let deleted = try await client.request(.delete, "/db/d/photo.bin?rev=\(rev4)")
            #expect(deleted.status == 200 && deleted.json?["rev"]?.stringValue?.hasPrefix("5-") == true)
            let gone = try await client.request(.get, "/db/d/photo.bin")
            #expect(gone.status == 404 && gone.json?["reason"]?.stringValue == "Document is missing attachment")
            #expect(try await client.request(.get, "/db/d/photo.bin?rev=\(rev4)").bytes == binary)
        }
    }

    @Test func textIsStoredGzippedAndSentSoToClientsThatAcceptIt() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let text = Array(String(repeating: "compressible text ", count: 500).utf8)
            #expect(try await client.upload(.put, "/db/t/big.txt", bytes: text, contentType: "text/plain").status == 201)
            let plain = try await client.request(.get, "/db/t/big.txt", headers: ["Accept-Encoding": "identity"])
            #expect(plain.bytes == text && plain.header("Content-Encoding") == nil && plain.header("Accept-Ranges") == "none")
            let gzipped = try await client.request(.get, "/db/t/big.txt", headers: ["Accept-Encoding": "gzip"])
            #expect(gzipped.header("Content-Encoding") == "gzip")
            #expect(gzipped.bytes.prefix(2) == [0x1F, 0x8B] && gzipped.bytes.count < text.count / 10)
            #expect(try GzipStream.decompress(gzipped.bytes) == text)
            let stub = try await client.request(.get, "/db/t?att_encoding_info=true")
            #expect(stub.json?["_attachments"]?["big.txt"]?["encoded_length"]?.intValue == gzipped.bytes.count)
            #expect(stub.json?["_attachments"]?["big.txt"]?["length"]?.intValue == text.count)
        }
    }

    @Test func refusesMissingStubsBadBase64AndEditsWithoutARevision() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let stubless = try await client.request(.put, "/db/s", json: .obj(["_attachments": .obj(["a.txt": .obj(["stub": .bool(true)])])]))
            #expect(stubless.status == 412)
            #expect(stubless.json?["error"]?.stringValue == "missing_stub")
            #expect(stubless.json?["reason"]?.stringValue == "Invalid attachment stub in s for a.txt")
            let badData = try await client.request(.put, "/db/b", json: .obj([
                "_attachments": .obj(["a.txt": .obj(["content_type": .string("text/plain"), "data": .string("!!! not base64")])]),
            ]))
            #expect(badData.status == 400 && badData.json?["reason"]?.stringValue == "Invalid attachment data for a.txt")
            #expect(try await client.request(.get, "/db/b").status == 404)
            #expect(try await client.request(.put, "/db/d", json: Self.inlineDocument()).status == 201)
            let noRevision = try await client.upload(.put, "/db/d/extra.txt", bytes: Array("x".utf8), contentType: "text/plain")
            #expect(noRevision.status == 409 && noRevision.json?["error"]?.stringValue == "conflict")
            #expect(try await client.request(.delete, "/db/d/note.txt").status == 409)
            let missingDocument = try await client.request(.get, "/db/nobody/x.txt")
            #expect(missingDocument.status == 404 && missingDocument.json?["reason"]?.stringValue == "missing")
            #expect(missingDocument.header("Content-Type") == "application/json")
        }
    }

    @Test func stubsKeepAttachmentsAcrossEditsAndLeavingThemOutDropsThem() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            #expect(try await client.request(.put, "/db/d", json: Self.inlineDocument()).status == 201)
            var document = try #require(try await client.request(.get, "/db/d").json?.objectValue)
            document["title"] = .string("changed")
            let updated = try await client.request(.put, "/db/d", json: .object(document))
            #expect(updated.status == 201)
            let afterUpdate = try #require(try await client.request(.get, "/db/d").json?["_attachments"]?.objectValue)
            #expect(afterUpdate.keys == ["note.txt", "pixel.png"] && afterUpdate["note.txt"]?["revpos"]?.intValue == 1)
            document["_rev"] = updated.json?["rev"]
            document["_attachments"] = .obj(["pixel.png": .obj(["stub": .bool(true)])])
            #expect(try await client.request(.put, "/db/d", json: .object(document)).status == 201)
            #expect(try await client.request(.get, "/db/d").json?["_attachments"]?.objectValue?.keys == ["pixel.png"])
            #expect(try await client.request(.get, "/db/d/note.txt").status == 404)
        }
    }

    @Test func replicatedWritesKeepTheirRevpos() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let result = try await client.request(.post, "/db/_bulk_docs", json: .obj([
                "new_edits": .bool(false),
                "docs": .array([.obj([
                    "_id": .string("r"), "_rev": .string("3-dddd"),
                    "_revisions": .obj(["start": .integer(3), "ids": .array([.string("dddd"), .string("cccc"), .string("bbbb")])]),
                    "_attachments": .obj(["r.txt": .obj([
                        "content_type": .string("text/plain"), "revpos": .integer(2),
                        "data": .string(Data("replicated attachment\n".utf8).base64EncodedString()),
                    ])]),
                ])]),
            ]))
            #expect(result.status == 201 && result.json == .array([]))
            let stub = try await client.request(.get, "/db/r")
            #expect(stub.json?["_attachments"]?["r.txt"]?["revpos"]?.intValue == 2)
            #expect(stub.json?["_attachments"]?["r.txt"]?["digest"]?.stringValue == "md5-Dx9+yZMBbQXnO7ibecwc4Q==")
            #expect(try await client.request(.get, "/db/r/r.txt").bytes == Array("replicated attachment\n".utf8))
        }
    }

    @Test func multipartAnswersCarryTheStoredBytes() async throws {
        try await withTestServer { client, _ in
            try await makeDatabase(client)
            let rev = try #require(try await client.request(.put, "/db/d", json: Self.inlineDocument()).json?["rev"]?.stringValue)
            let related = try await client.request(.get, "/db/d?attachments=true", headers: ["Accept": "multipart/related"])
            let type = try #require(related.header("Content-Type"))
            #expect(type.hasPrefix("multipart/related; boundary=\""))
            let boundary = String(type.dropFirst("multipart/related; boundary=\"".count).dropLast())
            let parts = Self.parts(of: related.bytes, boundary: boundary)
            #expect(parts.count == 3)
            let json = try #require(parts.first.flatMap { try? JSONValue(parsing: Array($0.body)) })
            #expect(json["_attachments"]?["note.txt"]?["follows"]?.boolValue == true)
            #expect(json["_attachments"]?["note.txt"]?["encoded_length"]?.intValue == 39)
            #expect(parts[1].headers.contains("Content-Disposition: attachment; filename=\"note.txt\""))
            #expect(parts[1].headers.contains("Content-Encoding: gzip"))
            #expect(try GzipStream.decompress(Array(parts[1].body)) == Self.note)
            #expect(Array(parts[2].body) == Self.pixel)
            // The replicator's fetch: newer attachments follow, older ones stay stubs; a missing revision is an error part.
            let query = "revs=true&latest=true&open_revs=%5B%22\(rev)%22%2C%229-cc%22%5D&atts_since=%5B%22\(rev)%22%5D"
            let mixed = try await client.request(.get, "/db/d?\(query)", headers: ["Accept": "multipart/mixed"])
            let mixedType = try #require(mixed.header("Content-Type"))
            let outer = Self.parts(of: mixed.bytes, boundary: String(mixedType.dropFirst("multipart/mixed; boundary=\"".count).dropLast()))
            #expect(outer.count == 2)
            #expect(outer.first?.headers == "Content-Type: application/json")
            #expect(outer.last?.headers == "Content-Type: application/json; error=\"true\"")
            #expect(outer.last.map { String(decoding: $0.body, as: UTF8.self) } == #"{"missing":"9-cc"}"#)
        }
    }

    /// A `multipart/related` body: the JSON part, then one part per attachment.
    static func multipartBody(boundary: String, document: JSONValue, parts: [(name: String, bytes: [UInt8])]) -> [UInt8] {
        var body = Array("--\(boundary)\r\nContent-Type: application/json\r\n\r\n".utf8) + document.serialized()
        for part in parts {
            body += Array("\r\n--\(boundary)\r\nContent-Disposition: attachment; filename=\"\(part.name)\"\r\n\r\n".utf8) + part.bytes
        }
        return body + Array("\r\n--\(boundary)--".utf8)
    }

    @Test func readsTheReplicatorsMultipartWrites() async throws {
        try await withTestServer { client, server in
            try await makeDatabase(client)
            #expect(try await client.request(.put, "/db/source", json: Self.inlineDocument()).status == 201)
            let gzipped = try await client.request(.get, "/db/source/note.txt", headers: ["Accept-Encoding": "gzip"]).bytes
            let boundary = "abc123"
            let document: JSONValue = .obj([
                "_id": .string("m"), "_rev": .string("2-bbbb"),
                "_revisions": .obj(["start": .integer(2), "ids": .array([.string("bbbb"), .string("aaaa")])]),
                "_attachments": .obj([
                    "note.txt": .obj(["content_type": .string("text/plain"), "revpos": .integer(1), "digest": .string("md5-f0fiyiF/tyJ118AMGD1ADQ=="),
                                      "length": .integer(19), "follows": .bool(true), "encoding": .string("gzip"),
                                      "encoded_length": .integer(gzipped.count)]),
                    "pixel.png": .obj(["content_type": .string("image/png"), "revpos": .integer(2), "length": .integer(20),
                                       "follows": .bool(true)]),
                ]),
            ])
            let body = Self.multipartBody(boundary: boundary, document: document,
                                          parts: [("note.txt", gzipped), ("pixel.png", Self.pixel)])
            let put = try await client.upload(.put, "/db/m?new_edits=false", bytes: body,
                                              contentType: "multipart/related; boundary=\"\(boundary)\"")
            #expect(put.status == 201)
            let stubs = try #require(try await client.request(.get, "/db/m").json?["_attachments"]?.objectValue)
            #expect(stubs["note.txt"]?["digest"]?.stringValue == "md5-f0fiyiF/tyJ118AMGD1ADQ==")
            #expect(stubs["note.txt"]?["revpos"]?.intValue == 1 && stubs["note.txt"]?["length"]?.intValue == 19)
            #expect(stubs["pixel.png"]?["digest"]?.stringValue == "md5-V9zzzIhsNbQkPhq2k1q36g==")
            #expect(try await client.request(.get, "/db/m/note.txt").bytes == Self.note)
            #expect(try await client.request(.get, "/db/m/pixel.png").bytes == Self.pixel)
            let short = Array(body.dropLast(10))
            let cut = try await client.upload(.put, "/db/n", bytes: short, contentType: "multipart/related; boundary=\"\(boundary)\"")
            #expect(cut.status == 400)
            #expect(try await client.request(.get, "/db/n").status == 404)
            // A refused write leaves no temporary file behind.
            let stubMissing = try await client.upload(.put, "/db/m?rev=1-0000", bytes: Self.multipartBody(
                boundary: boundary, document: .obj(["_attachments": .obj(["x.bin": .obj(["content_type": .string("application/octet-stream"),
                                                                                         "follows": .bool(true)])])]),
                parts: [("x.bin", [1, 2, 3])]), contentType: "multipart/related; boundary=\"\(boundary)\"")
            #expect(stubMissing.status == 409)
            let folder = server.configuration.dataDirectory.appendingPathComponent("databases/db/attachments")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).allSatisfy { !$0.hasPrefix("tmp-") })
        }
    }

    @Test func multipartReaderFindsBoundariesSplitAcrossChunks() throws {
        let body = Self.multipartBody(boundary: "xyz", document: .obj(["a": .integer(1)]),
                                      parts: [("one", Array("first\r\n--xy part".utf8)), ("two", [])])
        var reader = MultipartRelatedReader(boundary: "xyz")
        var parts: [[UInt8]] = []
        for byte in body {
            for event in try reader.feed([byte]) {
                switch event {
                case .partStarted: parts.append([])
                case .bytes(let bytes): parts[parts.count - 1] += bytes
                case .partEnded: break
                }
            }
        }
        #expect(reader.isFinished)
        #expect(parts == [Array(#"{"a":1}"#.utf8), Array("first\r\n--xy part".utf8), []])
    }

    /// The parts of a multipart body: header block and body of each.
    static func parts(of bytes: [UInt8], boundary: String) -> [(headers: String, body: ArraySlice<UInt8>)] {
        let delimiter = Array("--\(boundary)".utf8)
        var starts: [Int] = []
        var index = 0
        while index + delimiter.count <= bytes.count {
            if bytes[index..<index + delimiter.count].elementsEqual(delimiter) {
                starts.append(index)
                index += delimiter.count
            } else {
                index += 1
            }
        }
        var parts: [(String, ArraySlice<UInt8>)] = []
        for (start, end) in zip(starts, starts.dropFirst()) {
            let part = bytes[(start + delimiter.count + 2)..<(end - 2)]
            let separator = Array("\r\n\r\n".utf8)
            guard let split = part.indices.first(where: { part[$0...].starts(with: separator) }) else { continue }
            parts.append((String(decoding: part[..<split], as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n"),
                          part[(split + 4)...]))
        }
        return parts
    }

    @Test func aCopyResolvesItsStubsAgainstTheCopiedDocument() async throws {
        let folder = try TestPaths.makeTemporaryDirectory("attachments-copy")
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try Database.create(named: "db", in: folder)
        let source = DocumentEdit(id: "source", body: ["_attachments": .obj([
            "a.txt": .obj(["content_type": .string("text/plain"), "data": .string(Data(Self.note).base64EncodedString())]),
        ])])
        guard case .saved(_, let revision) = try await database.update([source]).first else {
            Issue.record("the source was not saved")
            return
        }
        let entry = try #require(try await database.entry("source"))
        var body = try #require(try await database.render(entry, revision: revision))
        body["_id"] = nil
        body["_rev"] = nil
        let orphan = DocumentEdit(id: "orphan", body: body)
        #expect(try await database.update([orphan]).first == .failed(id: "orphan", error: CouchError(.missingStub, reason: "Invalid attachment stub in orphan for a.txt")))
        var copy = DocumentEdit(id: "copy", body: body)
        copy.attachmentOrigin = .init(id: "source", revision: revision)
        guard case .saved(_, let copied) = try await database.update([copy]).first else {
            Issue.record("the copy was not saved")
            return
        }
        let copyEntry = try #require(try await database.entry("copy"))
        let rendered = try #require(try await database.render(copyEntry, revision: copied))
        #expect(rendered["_attachments"]?["a.txt"]?["digest"]?.stringValue == "md5-f0fiyiF/tyJ118AMGD1ADQ==")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("attachments").path)
        #expect(files.count == 1)
    }

    @Test func eachContentIsStoredOnceAndCompactionRemovesUnreferencedFiles() async throws {
        let folder = try TestPaths.makeTemporaryDirectory("attachments")
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try Database.create(named: "db", in: folder)
        let attachment: JSONValue = .obj(["a.bin": .obj(["content_type": .string("application/octet-stream"),
                                                           "data": .string(Data([1, 2, 3]).base64EncodedString())])])
        let outcomes = try await database.update([
            DocumentEdit(id: "one", body: ["_attachments": attachment]),
            DocumentEdit(id: "two", body: ["_attachments": attachment]),
        ])
        #expect(outcomes.allSatisfy { if case .saved = $0 { true } else { false } })
        let files = { try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("attachments").path) }
        #expect(try files().count == 1)
        #expect(await database.attachmentsSize == 3)
        // An edit refused after its attachment was stored leaves a file nothing refers to.
        let stale = Revision(generation: 1, hash: "0000")
        let refused = try await database.update([DocumentEdit(id: "one", baseRevision: stale, body: ["_attachments": .obj([
            "b.bin": .obj(["content_type": .string("application/octet-stream"), "data": .string(Data([9, 9]).base64EncodedString())]),
        ])])])
        #expect(refused == [.failed(id: "one", error: .conflictingUpdate)])
        #expect(try files().count == 2)
        #expect(try await database.collectUnreferencedAttachments() == 2)
        #expect(try files().count == 1, "older revisions still refer to it")
    }
}
