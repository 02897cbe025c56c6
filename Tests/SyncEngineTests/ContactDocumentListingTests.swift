import ContactStore
import CouchClient
import CouchServer
import Foundation
import Logging
import SyncEngine
import Testing
import TestSupport
import VCardKit

/// Every contact document of a database, read page by page (what `cardsync diff URL …` compares),
/// against `cardsync serve` started in-process.
struct ContactDocumentListingTests {
    @Test func readsEveryLiveContactDocumentAcrossPagesAndReportsTheBrokenOnes() async throws {
        let folder = try TestPaths.makeTemporaryDirectory("listing-couch-book")
        defer { try? FileManager.default.removeItem(at: folder) }
        let book = folder.appendingPathComponent("book")
        try AddressBook.create(at: book)
        var written: [String: String] = [:]
        for index in 0..<7 {
            let text = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:c\(index)\r\nFN:Person \(index)\r\nEMAIL:p\(index)@example.com\r\n"
                + "NOTE:first\\, version\r\nEND:VCARD\r\n"
            written["c\(index)"] = text
            try Data(text.utf8).write(to: book.appendingPathComponent("c\(index).vcf"))
        }
        let texts = written
        try await withServer { url in
            try await withCouchClient(url: url) { client in
                let database = client.database("contacts")
                _ = try await database.create(ignoringExisting: true)
                _ = try await AddressBook.withOpen(at: book) { opened in
                    try await SyncEngine(book: opened, database: database, remote: "test").sync()
                }
                // Pages of 3 documents: the listing must follow `_changes` to the end.
                let synced = try await ContactDocument.readAll(from: database, pageSize: 3)
                let contacts = synced.compactMap { try? $0.get() }
                #expect(contacts.count == 7 && synced.count == 7)
                for contact in contacts {
                    #expect(String(decoding: contact.bytes, as: UTF8.self) == texts[contact.uid], "\(contact.uid)")
                }

                // Edit the vCard text of one document, leaving its derived fields (hash, fn) stale:
                // the text is what counts. Add a document that is not a contact and one that is broken,
                // and delete one.
                var document = try await database.document(id: "contact:c3")
                let text = try #require(document["vcard"]?.stringValue)
                document["vcard"] = .string(text.replacingOccurrences(of: "NOTE:first\\, version", with: "NOTE:second version"))
                _ = try await database.put(document)
                _ = try await database.put(["_id": "_design/contacts", "language": "javascript"])
                _ = try await database.put(["_id": "contact:broken", "type": "contact", "vcard": "not a card"])
                let removed = try await database.document(id: "contact:c6")
                _ = try await database.deleteDocument(id: "contact:c6", revision: try #require(removed["_rev"]?.stringValue))

                let edited = try await ContactDocument.readAll(from: database, pageSize: 3)
                let editedContacts = edited.compactMap { try? $0.get() }
                #expect(editedContacts.map(\.uid).sorted() == ["c0", "c1", "c2", "c3", "c4", "c5"])
                #expect(editedContacts.first { $0.uid == "c3" }?.card.first("NOTE")?.textValue == "second version")
                let problems = edited.compactMap { result -> ContactDocument.DocumentProblem? in
                    if case .failure(let problem) = result { return problem }
                    return nil
                }
                #expect(problems.map(\.documentID) == ["contact:broken"])
            }
        }
    }

    /// Runs `body` with the URL (admin credentials included) of a `cardsync serve` on a free loopback port.
    private func withServer(_ body: @Sendable (URL) async throws -> Void) async throws {
        let data = try TestPaths.makeTemporaryDirectory("listing-couch-serve")
        defer { try? FileManager.default.removeItem(at: data) }
        var logger = Logger(label: "listing.test.server")
        logger.logLevel = .critical
        let server = try CouchServer(configuration: CouchServerConfiguration(
            dataDirectory: data, port: 0, admin: .init(name: "admin", password: "listing-test-pa55"), passwordIterations: 1000),
            logger: logger)
        let ports = PortBox()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run { port in await ports.set(port) } }
            let port = await ports.value()
            do {
                try await body(URL(string: "http://admin:listing-test-pa55@127.0.0.1:\(port)")!)
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
