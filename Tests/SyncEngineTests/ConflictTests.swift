import ContactStore
import CouchClient
import Foundation
import JSONText
import SyncEngine
import Testing
import TestSupport

/// Contacts changed on both sides: each policy, the 409 path, documents that already carry
/// `_conflicts`. The losing version is never lost.
@Suite struct ConflictTests {
    /// Two books in step on contact `c0`, then edited differently on each side (B's edit newer by REV).
    func editBothSides(_ remote: TestRemote) async throws -> (a: URL, b: URL) {
        let a = try makeBook("a")
        let b = try makeBook("b")
        try a.write(card("c0", "Ada Lovelace", email: "ada@example.com", rev: "20260101T000000Z"), to: "c0.vcf")
        try fill(a, count: 3, prefix: "x")
        try await sync(a, remote)
        try await sync(b, remote)
        try a.write(card("c0", "Ada Lovelace", email: "ada@example.com", note: "from A", rev: "20260301T000000Z"), to: "c0.vcf")
        try await sync(a, remote)
        try b.write(card("c0", "Ada Lovelace", email: "ada@example.com", note: "from B", rev: "20260401T000000Z"), to: "c0.vcf")
        return (a, b)
    }

    static let policies: [(ConflictPolicy, String)] = [(.newest, "from B"), (.local, "from B"), (.remote, "from A"), (.keepBoth, "from B")]

    @Test(arguments: Endpoint.all, [ConflictPolicy.newest, .local, .remote, .keepBoth])
    func bothSidesEditedSettlesByPolicyAndKeepsTheLoser(endpoint: Endpoint, policy: ConflictPolicy) async throws {
        try await withRemote(endpoint) { remote in
            let (a, b) = try await editBothSides(remote)
            let report = try await sync(b, remote, policy: policy)
            let expectedWinner = Self.policies.first { $0.0 == policy }!.1
            let loser = expectedWinner == "from A" ? "from B" : "from A"
            #expect(report.conflicts.count == 1)
            #expect(report.conflicts.first?.name == "Ada Lovelace")
            #expect(try b.read("c0.vcf").contains(expectedWinner))
            try await sync(a, remote)
            #expect(try a.read("c0.vcf").contains(expectedWinner))
            let remoteSide = try await remote.db.document(id: "contact:c0")
            #expect(remoteSide["vcard"]?.stringValue?.contains(expectedWinner) == true)
            if policy == .keepBoth {
                let kept = try #require(report.conflicts.first?.keptAs)
                try await sync(b, remote)
                try await sync(a, remote)
                for book in [a, b] {
                    let contents = try book.contents().values.joined()
                    #expect(contents.contains(loser) && contents.contains("UID:\(kept)"))
                }
                #expect(try await liveHashes(a) == (try await liveHashes(b)))
            } else {
                #expect(try await liveHashes(a) == (try await liveHashes(b)))
                // The losing version is in B's journal and restorable there.
                let restored = try await AddressBook.withOpen(at: b) { book -> Bool in
                    let versions = try await book.history(of: "c0").filter { $0.hash != nil && $0.operation != .synced }
                    for event in versions {
                        guard let text = try await book.storedCardText(event.hash!), text.contains(loser) else { continue }
                        _ = try await book.restore(uid: "c0", sequence: event.sequence)
                        return true
                    }
                    return false
                }
                #expect(restored)
                #expect(try b.read("c0.vcf").contains(loser))
            }
        }
    }

    @Test(arguments: Endpoint.all)
    func aChangeOnTheServerBetweenPullAndPushTakesThe409Path(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            try fill(a, count: 3)
            try await sync(a, remote)
            try a.write(card("c1", "Person C1", note: "local edit", rev: "20260101T000000Z"), to: "c1.vcf")
            // Just before the first _bulk_docs, another client edits the same document.
            let editor = remote
            let hook = BeforeFirstBulkDocs {
                var document = try await editor.db.document(id: "contact:c1")
                document["vcard"] = .string(card("c1", "Person C1", note: "server edit", rev: "20260601T000000Z"))
                try await editor.db.put(document)
            }
            let report = try await sync(a, remote, wrap: { HookTransport(base: $0, hook: hook) })
            #expect(report.conflicts.count == 1 && report.conflicts.first?.winner == .remote)
            #expect(try a.read("c1.vcf").contains("server edit"))
            #expect(try await remoteHashes(remote) == (try await liveHashes(a)))
            // The local edit that lost is kept in the journal.
            let kept = try await AddressBook.withOpen(at: a) { book in
                try await book.history(of: "c1").contains { $0.source == .folder && $0.operation == .update }
            }
            #expect(kept)
        }
    }

    @Test(arguments: Endpoint.all)
    func documentsWithConflictsAreSettledAndLosingBranchesDeleted(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            try fill(a, count: 2)
            try await sync(a, remote)
            // Another replicator leaves two conflicting leaves on c0.
            let current = try await remote.db.document(id: "contact:c0")
            let revision = try #require(current["_rev"]?.stringValue)
            let generation = Int(revision.split(separator: "-")[0])!
            func leaf(_ hash: String, note: String, rev: String) -> JSONObject {
                var document = current
                document["_rev"] = .string("\(generation + 1)-\(hash)")
                document["_revisions"] = ["start": .integer(generation + 1), "ids": [.string(hash), .string(String(revision.split(separator: "-")[1]))]]
                document["vcard"] = .string(card("c0", "Person C0", note: note, rev: rev))
                return document
            }
            _ = try await remote.db.bulkDocuments([leaf(String(repeating: "a", count: 32), note: "branch one", rev: "20260101T000000Z"),
                                                   leaf(String(repeating: "b", count: 32), note: "branch two", rev: "20260901T000000Z")],
                                                  newEdits: false)
            let withConflicts = try await remote.db.document(id: "contact:c0", conflicts: true)
            #expect(withConflicts["_conflicts"]?.arrayValue?.count == 1)
            let report = try await sync(a, remote)
            #expect(report.conflicts.count == 1 && report.conflicts[0].removedRevisions.count == 1)
            #expect(try a.read("c0.vcf").contains("branch two"))
            let settled = try await remote.db.document(id: "contact:c0", conflicts: true)
            #expect(settled["_conflicts"] == nil)
            #expect(settled["vcard"]?.stringValue?.contains("branch two") == true)
            // The losing branch's text is kept in the journal.
            let keptLoser = try await AddressBook.withOpen(at: a) { book in
                try await book.history(of: "c0").contains { $0.operation == .conflict }
            }
            #expect(keptLoser)
            #expect(!(try await sync(a, remote)).hasChanges)
        }
    }

    @Test(arguments: Endpoint.all)
    func anEmptiedSideIsRefusedUnlessForced(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            let b = try makeBook("b")
            try fill(a, count: 5)
            try await sync(a, remote)
            try await sync(b, remote)
            // The folder emptied (all files removed by another program): refused.
            for file in a.contactFiles { try a.remove(file) }
            await #expect(throws: SyncError.self) { try await sync(a, remote) }
            #expect(try await remoteHashes(remote).count == 5)
            // The server emptied by someone else: B refuses to delete everything here.
            for (uid, document) in try await remote.contactDocuments() {
                try await remote.db.deleteDocument(id: ContactDocument.documentID(forUID: uid), revision: document["_rev"]!.stringValue!)
            }
            do {
                try await sync(b, remote)
                Issue.record("expected the sync to be refused")
            } catch let error as SyncError {
                #expect(error.code == .emptiedSide && error.message.contains("--force"))
            }
            #expect(b.contactFiles.count == 5)
            // With --force the deletion goes through.
            let forced = try await sync(b, remote, force: true)
            #expect(forced.pulledCounts.deleted == 5 && b.contactFiles.isEmpty)
        }
    }

    @Test(arguments: Endpoint.all)
    func anEmptiedServerIsRefilledByTheResetTheRefusalNames(endpoint: Endpoint) async throws {
        try await withRemote(endpoint) { remote in
            let a = try makeBook("a")
            try fill(a, count: 5)
            try await sync(a, remote)
            let expected = try await liveHashes(a)
            for (uid, document) in try await remote.contactDocuments() {
                try await remote.db.deleteDocument(id: ContactDocument.documentID(forUID: uid), revision: document["_rev"]!.stringValue!)
            }
            do {
                try await sync(a, remote)
                Issue.record("expected the sync to be refused")
            } catch let error as SyncError {
                #expect(error.code == .emptiedSide && error.message.contains("cardsync sync \(a.path) --reset"), "\(error.message)")
            }
            let plan = try await sync(a, remote, dryRun: true, reset: true)
            #expect(plan.pushedCounts == (5, 0, 0) && plan.pulled.isEmpty)
            let refilled = try await sync(a, remote, reset: true)
            #expect(refilled.pushedCounts == (5, 0, 0) && refilled.pulled.isEmpty && refilled.problems.isEmpty)
            #expect(try await liveHashes(a) == expected)
            #expect(try await remoteHashes(remote) == expected)
            #expect(!(try await sync(a, remote)).hasChanges)
        }
    }
}

/// Runs a hook once, before the first `_bulk_docs` request is sent.
actor BeforeFirstBulkDocs {
    private var done = false
    private let hook: @Sendable () async throws -> Void
    init(_ hook: @escaping @Sendable () async throws -> Void) { self.hook = hook }
    func runOnce() async throws {
        guard !done else { return }
        done = true
        try await hook()
    }
}

/// A transport that runs a hook before the first `_bulk_docs`.
struct HookTransport: CouchTransport {
    var base: any CouchTransport
    var hook: BeforeFirstBulkDocs
    func send(_ request: CouchHTTPRequest, timeout: Duration) async throws -> CouchHTTPResponse {
        if request.url.contains("/_bulk_docs") { try await hook.runOnce() }
        return try await base.send(request, timeout: timeout)
    }
}
