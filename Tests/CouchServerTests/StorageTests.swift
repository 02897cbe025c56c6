@testable import CouchServer
import Foundation
import JSONText
import Testing
import TestSupport

@Suite struct RevisionTrees {
    private func revision(_ text: String) -> Revision { Revision(text)! }

    @Test func winnerPrefersLiveThenGenerationThenHighestHash() {
        var tree = RevisionTree()
        tree.merge(path: [revision("1-aa")], isDeleted: false, body: nil)
        tree.merge(path: [revision("2-bb"), revision("1-aa")], isDeleted: false, body: nil)
        tree.merge(path: [revision("2-cc"), revision("1-aa")], isDeleted: false, body: nil)
        #expect(tree.winner == revision("2-cc"))
        tree.merge(path: [revision("3-00"), revision("2-cc")], isDeleted: true, body: nil)
        // A deleted leaf loses to a live one even at a higher generation.
        #expect(tree.winner == revision("2-bb"))
        tree.merge(path: [revision("3-11"), revision("2-bb")], isDeleted: true, body: nil)
        // All deleted: the highest generation, then the highest hash.
        #expect(tree.winner == revision("3-11"))
        #expect(tree.sortedLeaves == [revision("3-11"), revision("3-00")])
    }

    @Test func stemmingKeepsTheNewestRevisionsOfEachBranch() {
        var tree = RevisionTree()
        let path = (1...10).reversed().map { Revision(generation: $0, hash: "h\($0)") }
        tree.merge(path: path, isDeleted: false, body: nil)
        tree.stem(limit: 4)
        #expect(tree.nodes.count == 4)
        #expect(tree.ancestry(of: path[0]).map(\.generation) == [10, 9, 8, 7])
        #expect(tree[Revision(generation: 7, hash: "h7")]?.parent == nil)
    }

    @Test func mergingAPathWithKnownAncestorsAddsOnlyTheNewRevisions() {
        var tree = RevisionTree()
        tree.merge(path: [revision("2-b"), revision("1-a")], isDeleted: false, body: nil)
        let added = tree.merge(path: [revision("4-d"), revision("3-c"), revision("2-b"), revision("1-a")], isDeleted: false, body: nil)
        #expect(added)
        #expect(tree.leaves == [revision("4-d")])
        let addedAgain = tree.merge(path: [revision("2-b"), revision("1-a")], isDeleted: false, body: nil)
        #expect(!addedAgain)
    }

    @Test func rejectsMalformedRevisionIDs() {
        #expect(Revision("garbage") == nil)
        #expect(Revision("0-abc") == nil)
        #expect(Revision("1-") == nil)
        #expect(Revision("x-abc") == nil)
        #expect(Revision("12-abc")?.generation == 12)
    }
}

/// A revision id is the MD5 of the tombstone flag, the parent id, a zero byte and the body, in
/// lower-case hexadecimal after the generation: the same edit gets the same id on every server
/// and in every version. The expected ids are Python's `hashlib.md5` of the same bytes.
@Suite struct RevisionIDs {
    @Test func aNewDocumentsIDIsTheDigestOfItsBody() {
        let revision = Database.makeRevision(parent: nil, isDeleted: false, body: Array(#"{"fn":"Ada"}"#.utf8))
        // hashlib.md5(b"\x00" + b"" + b"\x00" + b'{"fn":"Ada"}').hexdigest()
        #expect(revision.description == "1-c4c715304372416d2de4c7b7f1c97899")
    }

    @Test func aDeletionOnTopOfAParentCountsTheParentAndTheFlag() {
        let parent = Revision("1-0123456789abcdef0123456789abcdef")!
        let revision = Database.makeRevision(parent: parent, isDeleted: true, body: Array("{}".utf8))
        // hashlib.md5(b"\x01" + b"1-0123456789abcdef0123456789abcdef" + b"\x00" + b"{}").hexdigest()
        #expect(revision.description == "2-88e5331863478bc2f3ad680f8d688b7f")
    }
}

@Suite struct DocumentKeys {
    @Test func keysAreEqualExactlyWhenTheirBytesAre() {
        let composed = DocumentKey("caf\u{E9}"), decomposed = DocumentKey("cafe\u{301}")
        #expect(composed != decomposed, "canonically equivalent ids are two documents, as in CouchDB")
        let built = DocumentKey(String(decoding: Array("contact:ABC-123".utf8), as: UTF8.self))
        #expect(built == DocumentKey("contact:ABC-123"))
        #expect(built.hashValue == DocumentKey("contact:ABC-123").hashValue)
        #expect(DocumentKey("") == DocumentKey(""))
        #expect(DocumentKey("a") != DocumentKey("b"))
        var table: [DocumentKey: Int] = [composed: 1, decomposed: 2]
        table[DocumentKey("caf\u{E9}")] = 3
        #expect(table.count == 2 && table[decomposed] == 2 && table[composed] == 3)
    }
}

@Suite struct JournalStorage {
    private func makeDatabase() throws -> (URL, Database) {
        let folder = try TestPaths.makeTemporaryDirectory("journal")
        return (folder, try Database.create(named: "db", in: folder))
    }

    @Test func anEditStoresTheTextItsSizeCheckWroteAndTheNewTextOfABodyChangedSince() async throws {
        let (folder, database) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        let request = try DocumentRequestBody.parse(["_id": .string("x"), "fn": .string("Ann")])
        let asked = try DocumentRequestBody.edit(request, id: "x", newEdits: true, maximumSize: 1 << 20)
        var changed = asked
        changed.id = "y"
        changed.body = ["fn": .string("Bea")]
        let outcomes = try await database.update([asked, changed])
        // Each stored revision is the one its own body gives (the same as an edit made without a size check).
        #expect(outcomes == [.saved(id: "x", revision: Database.makeRevision(parent: nil, isDeleted: false, body: Array(#"{"fn":"Ann"}"#.utf8))),
                             .saved(id: "y", revision: Database.makeRevision(parent: nil, isDeleted: false, body: Array(#"{"fn":"Bea"}"#.utf8)))])
        let stored = try #require(try await database.entry("y"))
        let body = try await database.render(stored, revision: try #require(stored.winner))
        #expect(body?["fn"] == .string("Bea"))
    }

    @Test func revisionIDsAreDeterministicFromContent() async throws {
        let (first, one) = try makeDatabase()
        let (second, two) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: first); try? FileManager.default.removeItem(at: second) }
        let edit = DocumentEdit(id: "x", body: ["fn": .string("Ann")])
        let a = try await one.update([edit])
        let b = try await two.update([edit])
        #expect(a == b)
        guard case .saved(_, let revision) = a[0] else { Issue.record("not saved"); return }
        #expect(revision.generation == 1)
        #expect(revision.hash.count == 32)
    }

    @Test func reopeningRebuildsTheIndexFromTheJournal() async throws {
        let (folder, database) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try await database.update((0..<20).map { DocumentEdit(id: "doc-\($0)", body: ["n": .integer($0)]) })
        let outcome = try await database.update([DocumentEdit(id: "doc-3", isDeleted: true)], newEdits: true)
        #expect(outcome == [.failed(id: "doc-3", error: CouchError(.conflict, reason: "Document update conflict."))])
        let current = try #require(try await database.entry("doc-3")?.winner)
        _ = try await database.update([DocumentEdit(id: "doc-3", baseRevision: current, isDeleted: true)])
        _ = try await database.updateLocal("_local/cp", revision: nil, isDeleted: false, body: ["seq": .integer(5)])
        let reopened = try Database.open(named: "db", in: folder)
        #expect(reopened.recovery.isClean)
        #expect(await reopened.documentCount == 19)
        #expect(await reopened.deletedDocumentCount == 1)
        #expect(await reopened.updateSequence == 21)
        let entry = try #require(try await reopened.entry("doc-7"))
        let rendered = try await reopened.render(entry, revision: entry.winner!)
        #expect(rendered?["n"]?.intValue == 7)
        #expect(try await reopened.localDocument("_local/cp")?["_rev"]?.stringValue == "0-1")
    }

    /// Opening reads a document line without building its body, yet keeps or refuses the line
    /// exactly as reading it whole would: a body that is not whole JSON makes the line damaged.
    @Test func aDocumentLineWithADamagedBodyIsSkippedAndReported() async throws {
        let (folder, database) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        let tricky = #"says ,"body": and \" and é and \u0041"#
        _ = try await database.update([DocumentEdit(id: "first", body: ["note": .string(tricky)]),
                                       DocumentEdit(id: "second", body: ["note": .string("plain"), "list": .array([.integer(1), .null])]),
                                       DocumentEdit(id: "third", body: ["n": .integer(3)])])
        let journal = folder.appendingPathComponent("journal.jsonl")
        var bytes = try [UInt8](Data(contentsOf: journal))
        // Break the second document's body (`"list":[1,null]` loses its `]`), leaving the line's start whole.
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        let second = try #require(lines.firstIndex { String(decoding: $0, as: UTF8.self).contains(#""id":"second""#) })
        let damagedOffset = lines[..<second].reduce(0) { $0 + $1.count + 1 }
        let bracket = try #require(lines[second].lastIndex(of: UInt8(ascii: "]")))
        bytes[damagedOffset + bracket] = UInt8(ascii: " ")
        try Data(bytes).write(to: journal)

        let reopened = try Database.open(named: "db", in: folder)
        #expect(reopened.recovery.skippedLineOffsets == [damagedOffset])
        #expect(try await reopened.entry("second") == nil)
        let first = try #require(try await reopened.entry("first"))
        #expect(try await reopened.render(first, revision: first.winner!)?["note"]?.stringValue == tricky)
        let third = try #require(try await reopened.entry("third"))
        #expect(try await reopened.render(third, revision: third.winner!)?["n"]?.intValue == 3)
    }

    @Test func aDocumentLineIsReadWithoutItsBodyOnlyWhenItHasTheWrittenShape() throws {
        func read(_ text: String) -> JSONObject? {
            Array(text.utf8).withUnsafeBufferPointer { DatabaseJournal.documentLineWithoutBody($0) }
        }
        let line = #"{"t":"doc","seq":7,"id":"a,\"body\":","path":["1-abc"],"deleted":false,"bytes":9,"body":{"x":[1]}}"#
        let members = try #require(read(line))
        #expect(members.keys == ["t", "seq", "id", "path", "deleted", "bytes"])
        #expect(members["id"]?.stringValue == #"a,"body":"#)
        #expect(read(#"{"t":"doc","seq":7,"bytes":9,"body":{"x":[1}}"#) == nil, "a body that is not JSON")
        #expect(read(#"{"t":"local","id":"_local/x","body":{}}"#) == nil, "not a document line")
        #expect(read(#"{"t":"doc","seq":7,"bytes":2,"body":{}} "#) == nil, "not ending where the body ends")
        #expect(read(#"{"t":"doc","seq":7,"bytes":2,"bodies":{}}"#) == nil, "no body member")
    }

    @Test func aTornLastLineIsSetAsideAndReported() async throws {
        let (folder, database) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try await database.update([DocumentEdit(id: "kept", body: ["a": .integer(1)])])
        let journal = folder.appendingPathComponent("journal.jsonl")
        let handle = try FileHandle(forWritingTo: journal)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"t":"doc","seq":2,"id":"torn","pa"#.utf8))
        try handle.close()
        let reopened = try Database.open(named: "db", in: folder)
        let aside = try #require(reopened.recovery.setAsideFile)
        #expect(reopened.recovery.setAsideBytes == 34)
        #expect(try String(contentsOfFile: aside, encoding: .utf8).hasPrefix(#"{"t":"doc","seq":2"#))
        #expect(try await reopened.entry("kept") != nil)
        #expect(try await reopened.entry("torn") == nil)
        // The journal is whole again: writing and reopening works without another repair.
        _ = try await reopened.update([DocumentEdit(id: "after", body: [:])])
        let again = try Database.open(named: "db", in: folder)
        #expect(again.recovery.isClean)
        #expect(await again.documentCount == 2)
    }

    @Test func changesListEachDocumentOnceAtItsLatestSequence() async throws {
        let (folder, database) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outcomes = try await database.update([DocumentEdit(id: "a"), DocumentEdit(id: "b")])
        guard case .saved(_, let revision) = outcomes[0] else { Issue.record("not saved"); return }
        _ = try await database.update([DocumentEdit(id: "a", baseRevision: revision, body: ["v": .integer(2)])])
        let (rows, last, pending) = try await database.changes(since: 0, limit: nil, descending: false, includes: { _ in true })
        #expect(rows.map(\.entry.id) == ["b", "a"])
        #expect(rows.map(\.sequence) == [2, 3])
        #expect(last == 3)
        #expect(pending == 0)
    }
}
