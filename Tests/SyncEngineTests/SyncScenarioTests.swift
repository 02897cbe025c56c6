import ContactStore
import CouchClient
import Foundation
import JSONText
import SyncEngine
import Testing
import TestSupport
import VCardKit

/// The sync's scenarios, each against `cardsync serve` and (when `CARDSYNC_TEST_COUCHDB_URL` is
/// set) a real CouchDB: every run ends with both sides holding the same contacts, nothing lost,
/// nothing duplicated.
@Suite struct SyncScenarioTests {
    @Test(arguments: Endpoint.all)
    func firstPushSendsEveryContactAsASchemaValidDocument(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let book = try makeBook("push")
            let uids = try fill(book, count: 30)
            try book.write(card(nil, "No Uid Person", email: "nouid@example.com"), to: "nouid.vcf")
            let report = try await sync(book, remote, batchSize: 7)
            #expect(report.pushed.count == 31 && report.pulled.isEmpty && report.problems.isEmpty)
            #expect(report.createdDatabase == (endpoint.isServe ? true : true))
            let remoteSide = try await remoteHashes(remote)
            #expect(remoteSide == (try await liveHashes(book)))
            #expect(Set(uids).isSubset(of: Set(remoteSide.keys)))
            let document = try await remote.db.document(id: "contact:c3")
            #expect(document["fn"]?.stringValue == "Person C3")
            #expect(document["emails"] == .array(["p3@example.com"]))
            #expect(document["vcard"]?.stringValue == (try book.read("c3.vcf")))
            if SchemaValidator.isAvailable {
                let data = Data(JSONValue.object(document).serialized())
                #expect(try SchemaValidator.problems(validating: data, against: "couch-contact.schema.json").isEmpty)
            }
            // A second sync has nothing to do and sends no document.
            let again = try await sync(book, remote)
            #expect(!again.hasChanges && again.problems.isEmpty)
        }
    }

    @Test(arguments: Endpoint.all)
    func firstPullFillsAnEmptyFolderByteForByte(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            try fill(a, count: 12)
            try a.write(card(nil, "Without Uid"), to: "nouid.vcf")
            try await sync(a, remote)
            let b = try makeBook("b")
            let report = try await sync(b, remote)
            #expect(report.pulled.count == 13 && report.pushed.isEmpty)
            #expect(try await liveHashes(b) == (try await liveHashes(a)))
            #expect(try b.read("c5.vcf") == (try a.read("c5.vcf")))
            // The contact without UID keeps its identity and is not pushed back as a new one.
            let back = try await sync(b, remote)
            #expect(!back.hasChanges)
            #expect(try await remoteHashes(remote).count == 13)
        }
    }

    @Test(arguments: Endpoint.all)
    func twoBooksExchangeEditsAdditionsAndDeletionsThroughOneServer(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            let b = try makeBook("b")
            try fill(a, count: 10)
            try await sync(a, remote)
            try await sync(b, remote)
            // Edit, add and delete in A; add and delete in B.
            try a.write(card("c1", "Person C1", email: "new@example.com"), to: "c1.vcf")
            try a.write(card("fromA", "From A"), to: "fromA.vcf")
            try a.remove("c2.vcf")
            try b.write(card("fromB", "From B"), to: "fromB.vcf")
            try b.remove("c3.vcf")
            let pushedA = try await sync(a, remote)
            #expect(pushedA.pushedCounts == (1, 1, 1))
            let bReport = try await sync(b, remote)
            #expect(bReport.pulledCounts == (1, 1, 1) && bReport.pushedCounts == (1, 0, 1))
            let aReport = try await sync(a, remote)
            #expect(aReport.pulledCounts == (1, 0, 1) && aReport.pushed.isEmpty)
            let expected = try await liveHashes(a)
            #expect(expected.count == 10)
            #expect(try await liveHashes(b) == expected)
            #expect(try await remoteHashes(remote) == expected)
            #expect(try b.read("c1.vcf").contains("new@example.com"))
        }
    }

    @Test(arguments: Endpoint.all)
    func aRenamedFileTravelsAsNothing(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            let b = try makeBook("b")
            try fill(a, count: 3)
            try await sync(a, remote)
            try await sync(b, remote)
            try FileManager.default.moveItem(at: a.appendingPathComponent("c1.vcf"), to: a.appendingPathComponent("renamed.vcf"))
            let report = try await sync(a, remote)
            #expect(!report.hasChanges)
            #expect(!(try await sync(b, remote)).hasChanges)
            #expect(try await liveHashes(b) == (try await liveHashes(a)))
            #expect(a.contactFiles.contains("renamed.vcf") && b.contactFiles.contains("c1.vcf"))
        }
    }

    @Test(arguments: Endpoint.all)
    func deletionsTravelBothWaysAsTombstones(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            let b = try makeBook("b")
            try fill(a, count: 4)
            try await sync(a, remote)
            try await sync(b, remote)
            try a.remove("c0.vcf")
            try await sync(a, remote)
            let tombstone = try await remote.db.allDocuments(keys: ["contact:c0"])
            #expect(tombstone.first?.isDeleted == true)
            // The tombstone the sync wrote, and a live document beside it, follow the document schema.
            let deleted = try await remote.db.document(id: "contact:c0", revision: try #require(tombstone.first?.revision))
            #expect(deleted["_deleted"] == true)
            if SchemaValidator.isAvailable {
                for document in [deleted, try await remote.db.document(id: "contact:c1")] {
                    let problems = try SchemaValidator.problems(validating: Data(JSONValue.object(document).serialized()),
                                                                against: "couch-contact.schema.json")
                    #expect(problems.isEmpty, "\(document["_id"]!): \(problems)")
                }
            }
            let pulled = try await sync(b, remote)
            #expect(pulled.pulled.map(\.kind) == [.delete] && !b.contactFiles.contains("c0.vcf"))
            try b.remove("c1.vcf")
            try await sync(b, remote)
            try await sync(a, remote)
            #expect(a.contactFiles == ["c2.vcf", "c3.vcf"])
            // The deleted version stays restorable.
            try await AddressBook.withOpen(at: a) { book in _ = try await book.restore(uid: "c1") }
            #expect(a.contactFiles.contains("c1.vcf"))
        }
    }

    @Test(arguments: Endpoint.all)
    func dryRunPlansByNameAndChangesNothing(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            let b = try makeBook("b")
            try fill(a, count: 3)
            try await sync(a, remote)
            try await sync(b, remote)
            try a.write(card("c0", "Person C0", note: "edited in A"), to: "c0.vcf")
            try await sync(a, remote)
            try b.write(card("c0", "Person C0", note: "edited in B"), to: "c0.vcf")
            try b.write(card("new", "Brand New"), to: "new.vcf")
            try b.remove("c2.vcf")
            let before = try b.contents()
            let journalBefore = try Data(contentsOf: b.appendingPathComponent(".cardsync/journal.jsonl"))
            let remoteBefore = try await remoteHashes(remote)
            let plan = try await sync(b, remote, policy: .remote, dryRun: true)
            #expect(plan.isDryRun)
            #expect(plan.conflicts.map(\.name) == ["Person C0"])
            #expect(plan.pulled.map(\.name) == ["Person C0"])
            // The server's version of C0 wins: it is pulled, not pushed.
            #expect(Set(plan.pushed.map(\.name)) == ["Brand New", "Person C2"])
            #expect(try b.contents() == before)
            #expect(try await remoteHashes(remote) == remoteBefore)
            // The dry run's only journal lines are the scan of the folder's own edits.
            let journalAfter = try String(decoding: Data(contentsOf: b.appendingPathComponent(".cardsync/journal.jsonl")), as: UTF8.self)
            let added = journalAfter.dropFirst(journalBefore.count).split(separator: "\n")
            #expect(added.allSatisfy { $0.contains("\"source\":\"folder\"") })
        }
    }

    @Test(arguments: Endpoint.all, ConflictPolicy.allCases)
    func dryRunPlanIsExactlyWhatTheSyncThenDoes(endpoint: Endpoint, policy: ConflictPolicy) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            let b = try makeBook("b")
            try fill(a, count: 8)
            try await sync(a, remote)
            try await sync(b, remote)
            // A: edits (C0 with the newer REV), a deletion, an addition.
            try a.write(card("c0", "Person C0", note: "edited in A", rev: "20300101T000000Z"), to: "c0.vcf")
            try a.remove("c1.vcf")
            try a.write(card("c2", "Person C2", note: "edited in A"), to: "c2.vcf")
            try a.write(card("c5", "Person C5", note: "edited in A"), to: "c5.vcf")
            try a.write(card("a-new", "From A"), to: "a-new.vcf")
            try await sync(a, remote)
            // B: both sides edited C0, C1 edited here but deleted there, C5 deleted here but
            // edited there; plain edits, deletions and additions besides.
            try b.write(card("c0", "Person C0", note: "edited in B", rev: "20200101T000000Z"), to: "c0.vcf")
            try b.write(card("c1", "Person C1", note: "edited in B"), to: "c1.vcf")
            try b.remove("c5.vcf")
            try b.write(card("c3", "Person C3", note: "edited in B"), to: "c3.vcf")
            try b.remove("c4.vcf")
            try b.write(card("b-new", "From B"), to: "b-new.vcf")

            let plan = try await sync(b, remote, policy: policy, dryRun: true)
            let done = try await sync(b, remote, policy: policy)
            #expect(plan.isDryRun && !done.isDryRun)
            #expect(Set(plan.pulled) == Set(done.pulled), "pulled")
            #expect(Set(plan.pushed) == Set(done.pushed), "pushed")
            #expect(Set(plan.conflicts.map { [$0.name, $0.winner.rawValue, $0.keptAs ?? ""] })
                    == Set(done.conflicts.map { [$0.name, $0.winner.rawValue, $0.keptAs ?? ""] }), "conflicts")
            #expect(plan.conflicts.count == 3 && done.problems.isEmpty)
            // A contact whose server version wins is pulled, never also pushed.
            let pushedUIDs = Set(done.pushed.map(\.uid))
            for conflict in done.conflicts where conflict.winner == .remote {
                #expect(!pushedUIDs.contains(conflict.uid), "\(conflict.name) was pushed although the server's version won")
            }
            // Keep-both copies become new contacts on the server too.
            for kept in done.conflicts.compactMap(\.keptAs) {
                #expect(plan.pushed.contains { $0.uid == kept && $0.kind == .add })
            }
            #expect(try await liveHashes(b) == (try await remoteHashes(remote)))
        }
    }

    @Test(arguments: Endpoint.all)
    func oneBadCardOrDocumentDoesNotStopTheRest(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            try fill(a, count: 5)
            try a.write("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Broken\r\nthis is not a property\r\n", to: "broken.vcf")
            let first = try await sync(a, remote)
            #expect(first.pushed.count == 5)
            // The broken file is an error of the sync, with where and what, not only a warning.
            #expect(first.problems.map(\.subject) == ["broken.vcf"])
            #expect(first.problems.first?.file == "broken.vcf" && first.problems.first?.line == 1, "\(first.problems)")
            #expect(first.problems.first?.code == "invalid-file" && first.problems.first?.message.contains("END:VCARD") == true)
            // A document another client broke: its text is not a vCard.
            let broken = try await remote.db.document(id: "contact:c1")
            var edited = broken
            edited["vcard"] = "not a vcard at all"
            try await remote.db.put(edited)
            try await remote.db.put(["_id": "contact:other", "type": "contact", "uid": "other", "vcard": .string(card("other", "Other Person"))])
            let b = try makeBook("b")
            let report = try await sync(b, remote)
            #expect(report.problems.map(\.subject) == ["contact:c1"])
            #expect(Set(report.pulled.map(\.uid)) == ["c0", "c2", "c3", "c4", "other"])
            // A keeps its good version of c1 and is not overwritten by the broken one.
            let back = try await sync(a, remote)
            #expect(back.problems.map(\.subject) == ["broken.vcf", "contact:c1"])
            #expect(try a.read("c1.vcf").contains("FN:Person C1"))
            #expect(try a.read("broken.vcf").contains("this is not a property"))
        }
    }
}

extension SyncScenarioTests {
    /// Another client edits a document's text and leaves `hash` and `vcardDigest` as cardsync
    /// wrote them: both a book that had the contact and a new one hash the edited text itself.
    @Test func aTextEditedElsewhereUnderTheOldHashAndDigestIsPulledWithItsOwnHash() async throws {
        try await withRemote(.serve) { remote in
            let a = try makeBook("a")
            try fill(a, count: 3)
            try await sync(a, remote)
            var document = try await remote.db.document(id: "contact:c1")
            let text = try #require(document["vcard"]?.stringValue)
            document["vcard"] = .string(text.replacingOccurrences(of: "FN:Person C1", with: "FN:Edited Elsewhere"))
            try await remote.db.put(document)
            let b = try makeBook("b")
            #expect(try await sync(b, remote).pulled.count == 3)
            #expect(try await sync(a, remote).pulled.map(\.uid) == ["c1"])
            for book in [a, b] {
                let bytes = Array(try book.read("c1.vcf").utf8)
                #expect(String(decoding: bytes, as: UTF8.self).contains("FN:Edited Elsewhere"))
                let card = try VCardReader.read(bytes, sourceName: "c1.vcf").cards[0]
                #expect(try await liveHashes(book)["c1"] == ContentHash(of: card).hexDigits, "\(book.lastPathComponent)")
            }
        }
    }

    /// A file edited again between the sync's scan and its push: the push does not pair the new
    /// text with the hash the scan recorded (a pull would take that hash beside the text's
    /// digest); the contact waits for the next sync, which pushes the new text with its own hash.
    @Test func aFileEditedDuringTheSyncIsLeftForTheNextOneNotPushedUnderTheOldHash() async throws {
        try await withRemote(.serve) { remote in
            let a = try makeBook("a")
            try fill(a, count: 3)
            try await sync(a, remote)
            try a.write(card("c1", "Person C1", note: "first edit"), to: "c1.vcf")
            try a.write(card("c2", "Person C2", note: "first edit"), to: "c2.vcf")
            // Past the 100 ms within which a file's stamp cannot tell a later edit: the scan keeps
            // both stamps, and c2 is read by its stamp while c1's new one sends it to its hash.
            try await Task.sleep(for: .milliseconds(150))
            let report = try await sync(a, remote, afterOpening: {
                try a.write(card("c1", "Person C1", note: "second edit, longer than the first"), to: "c1.vcf")
            })
            // Every document's hash is the hash of its own text, after each sync.
            func expectEachHashIsItsTexts() async throws {
                for (uid, document) in try await remote.contactDocuments() {
                    let text = try #require(document["vcard"]?.stringValue)
                    let card = try VCardReader.read(Array(text.utf8), sourceName: uid).cards[0]
                    #expect(document["hash"]?.stringValue == ContentHash(of: card).hexDigits, "\(uid)")
                }
            }
            #expect(report.pushed.map(\.uid) == ["c2"], "\(report.pushed)")
            #expect(report.problems.map(\.subject) == ["c1"] && report.problems.first?.message.contains("changed in the folder during the sync") == true,
                    "\(report.problems)")
            try await expectEachHashIsItsTexts()
            #expect(try await sync(a, remote).pushed.map(\.uid) == ["c1"])
            try await expectEachHashIsItsTexts()
            let b = try makeBook("b")
            try await sync(b, remote)
            #expect(try b.read("c1.vcf").contains("second edit"))
            #expect(try await liveHashes(a) == (try await liveHashes(b)))
        }
    }

    @Test func aDocumentTheServerRefusesIsAnErrorAndTheOthersLand() async throws {
        try await withRemote(.serve, maximumDocumentSize: 4000) { remote in
            let a = try makeBook("a")
            let uids = try fill(a, count: 6)
            try a.write(card("big", "Big Note", note: String(repeating: "long text ", count: 800)), to: "big.vcf")
            let report = try await sync(a, remote, batchSize: 4)
            #expect(report.problems.map(\.subject) == ["big"])
            #expect(report.problems.first?.name == "Big Note")
            #expect(report.problems.first?.message.contains("the server refused the document (document_too_large") == true,
                    "\(report.problems)")
            #expect(Set(report.pushed.map(\.uid)) == Set(uids))
            #expect(Set(try await remoteHashes(remote).keys) == Set(uids))
            // Not forgotten: the next sync tries it again and still reports it; nothing else moves.
            let again = try await sync(a, remote)
            #expect(again.problems.map(\.subject) == ["big"] && again.pushed.isEmpty && again.pulled.isEmpty)
            #expect(a.contactFiles.contains("big.vcf"))
        }
    }
}

extension Endpoint {
    var isServe: Bool { if case .serve = self { true } else { false } }
}

/// Identity and matching: fresh starts, odd UIDs, duplicates.
@Suite struct SyncMatchingTests {
    @Test(arguments: Endpoint.all)
    func identicalContactsOnBothSidesMatchWithoutTransferAfterAFreshStart(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            let b = try makeBook("b")
            try fill(a, count: 8)
            try fill(b, count: 8)
            // Same content, other folding and parameter case in B: still the same contact.
            try b.write("BEGIN:VCARD\r\nVERSION:4.0\r\nUID:c2\r\nFN:Person \r\n C2\r\nemail:p2@example.com\r\nEND:VCARD\r\n", to: "c2.vcf")
            try await sync(a, remote)
            let before = try b.contents()
            let report = try await sync(b, remote)
            #expect(report.matched == 8 && report.pulled.isEmpty && report.pushed.isEmpty && report.conflicts.isEmpty)
            #expect(try b.contents() == before)
            #expect(!(try await sync(b, remote)).hasChanges)
        }
    }

    @Test(arguments: Endpoint.all)
    func uidsThatCouchDBReservesOrURLsMangleTravelIntact(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            let odd = ["_design", "_local/x", "a/b c?d#e%f", "urn:uuid:0d3c6a1e-5f2b-4c8e-9a7d-1b2c3d4e5f60", "Zoë-☎-名前"]
            for (index, uid) in odd.enumerated() { try a.write(card(uid, "Odd \(index)"), to: "odd\(index).vcf") }
            let report = try await sync(a, remote)
            #expect(report.pushed.count == odd.count && report.problems.isEmpty, "\(report.problems)")
            #expect(Set(try await remoteHashes(remote).keys) == Set(odd))
            let b = try makeBook("b")
            try await sync(b, remote)
            #expect(try await liveHashes(b) == (try await liveHashes(a)))
            #expect(!(try await sync(b, remote)).hasChanges)
        }
    }

    @Test(arguments: Endpoint.all)
    func contactsThatBecomeIdenticalAreReportedAndRemovedOnlyWithDedupe(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            let b = try makeBook("b")
            try await sync(a, remote)
            try a.write(card(nil, "Same Person", email: "same@example.com"), to: "one.vcf")
            try await sync(a, remote)
            try b.write(card(nil, "Same Person", email: "same@example.com"), to: "two.vcf")
            let reported = try await sync(b, remote)
            #expect(reported.duplicates.count == 1 && reported.duplicates[0].count == 2)
            #expect(b.contactFiles.count == 2)
            let removed = try await sync(b, remote, dedupe: true)
            #expect(removed.removedDuplicates.count == 1 && b.contactFiles.count == 1)
            try await sync(a, remote)
            #expect(a.contactFiles.count == 1)
        }
    }
}
