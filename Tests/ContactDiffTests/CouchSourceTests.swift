import ContactDiff
import ContactStore
import CouchClient
import CouchServer
import Foundation
import Logging
import SyncEngine
import Testing
import TestSupport

/// A CouchDB database as one side of a comparison, against `cardsync serve` started in-process.
struct CouchSourceTests {
    @Test func syncedDatabaseEqualsItsBookAndAnEditOnTheServerIsExactlyThatDifference() async throws {
        let folder = try TestPaths.makeTemporaryDirectory("diff-couch-book")
        defer { try? FileManager.default.removeItem(at: folder) }
        let book = folder.appendingPathComponent("book")
        try AddressBook.create(at: book)
        for index in 0..<7 {
            let text = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:c\(index)\r\nFN:Person \(index)\r\nEMAIL:p\(index)@example.com\r\n"
                + "NOTE:first\\, version\r\nEND:VCARD\r\n"
            try Data(text.utf8).write(to: book.appendingPathComponent("c\(index).vcf"))
        }
        try await withServer { url in
            try await withCouchClient(url: url) { client in
                let database = client.database("contacts")
                _ = try await database.create(ignoringExisting: true)
                _ = try await AddressBook.withOpen(at: book) { opened in
                    try await SyncEngine(book: opened, database: database, remote: "test").sync()
                }
                // Pages of 3 documents: the reader must follow `_changes` to the end.
                let remote = try await ContactSetReader.read(database: database, name: "contacts", pageSize: 3)
                #expect(remote.items.count == 7)
                #expect(remote.diagnostics.isEmpty)
                let local = try ContactSetReader.read(path: book.path)
                let same = ContactSetComparison().compare(remote, local)
                #expect(!same.hasDifferences)
                #expect(same.summary.unchanged == 7)

                // Edit the vCard text of one document, leaving its derived fields (hash, fn) stale:
                // the text is what counts. Add a document that is not a contact and one that is broken.
                var document = try await database.document(id: "contact:c3")
                let text = try #require(document["vcard"]?.stringValue)
                document["vcard"] = .string(text.replacingOccurrences(of: "NOTE:first\\, version", with: "NOTE:second version"))
                _ = try await database.put(document)
                _ = try await database.put(["_id": "_design/contacts", "language": "javascript"])
                _ = try await database.put(["_id": "contact:broken", "type": "contact", "vcard": "not a card"])

                let edited = try await ContactSetReader.read(database: database, name: "contacts", pageSize: 3)
                #expect(edited.items.count == 7)
                #expect(edited.diagnostics.map(\.location.source) == ["contacts/contact:broken"])
                let difference = ContactSetComparison().compare(edited, local)
                #expect(difference.summary == DiffSummary(changed: 1, unchanged: 6))
                let changed = try #require(difference.contacts.first { $0.status == .changed })
                #expect(changed.oldUID == "c3")
                #expect(changed.oldOrigin == "contacts/contact:c3:1")
                #expect(changed.changes.map(\.property) == ["NOTE"])
                #expect(changed.changes.first?.oldValue == "second version")
                #expect(changed.changes.first?.newValue == "first\\, version")
            }
        }
    }

    /// Runs `body` with the URL (admin credentials included) of a `cardsync serve` on a free loopback port.
    private func withServer(_ body: @Sendable (URL) async throws -> Void) async throws {
        let data = try TestPaths.makeTemporaryDirectory("diff-couch-serve")
        defer { try? FileManager.default.removeItem(at: data) }
        var logger = Logger(label: "diff.test.server")
        logger.logLevel = .critical
        let server = try CouchServer(configuration: CouchServerConfiguration(
            dataDirectory: data, port: 0, admin: .init(name: "admin", password: "diff-test-pa55"), passwordIterations: 1000),
            logger: logger)
        let ports = PortBox()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run { port in await ports.set(port) } }
            let port = await ports.value()
            do {
                try await body(URL(string: "http://admin:diff-test-pa55@127.0.0.1:\(port)")!)
            } catch {
                group.cancelAll()
                try? await group.waitForAll()
                throw error
            }
            group.cancelAll()
            try? await group.waitForAll()
        }
    }
}
