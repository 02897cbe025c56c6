import ContactStore
@testable import ContactWeb
import Foundation
import Testing
import TestSupport

/// Import and export through the pages: uploads of vCard, jCard and xCard files (duplicates
/// skipped and reported), downloads in every format and of a selection, and an upload larger
/// than the limit refused with a page saying so.
@Suite struct WebExchangeTests {
    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: TestPaths.fixtures("ContactWebTests").appendingPathComponent(name)))
    }

    @Test func aJCardUploadAddsItsContacts() async throws {
        try await withWebServer(fixtures: ["ada-grouped.vcf"]) { web in
            let answer = try await web.upload(try Self.fixture("two-people.json"), fileName: "two-people.json", contentType: "application/vcard+json")
            #expect(answer.status == 200)
            #expect(answer.body.contains("Imported 2 contacts from two-people.json; 0 duplicates skipped."))
            let uids = Set(await web.openBook.liveRecords().map(\.uid))
            #expect(uids == ["ada-lovelace-0001", "grace-hopper-0003", "katherine-johnson-0004"])
            #expect(try await web.openBook.contactFile(uid: "grace-hopper-0003").card.emailAddresses == ["grace@example.org"])
            #expect(try await web.openBook.history(of: "grace-hopper-0003").first?.source == .import)
            // The list shows them.
            #expect(try await web.get("/?q=hopper").body.contains("Grace Hopper"))
        }
    }

    @Test func anXCardUploadAddsItsContact() async throws {
        try await withWebServer(fixtures: []) { web in
            let answer = try await web.upload(try Self.fixture("one-person.xml"), fileName: "one-person.xml", contentType: "application/vcard+xml")
            #expect(answer.status == 200)
            #expect(answer.body.contains("Imported 1 contact from one-person.xml; 0 duplicates skipped."))
            let card = try await web.openBook.contactFile(uid: "alan-turing-0005").card
            #expect(card.formattedName == "Alan Turing")
            #expect(card.emailAddresses == ["alan@example.org"])
        }
    }

    @Test func aVCardUploadSkipsAndReportsTheContactsAlreadyThere() async throws {
        try await withWebServer(fixtures: ["ada-grouped.vcf"]) { web in
            let before = try web.fileBytes("ada-grouped.vcf")
            let answer = try await web.upload(try Self.fixture("ada-again-and-one-new.vcf"), fileName: "ada-again-and-one-new.vcf")
            #expect(answer.status == 200)
            #expect(answer.body.contains("Imported 1 contact from ada-again-and-one-new.vcf; 1 duplicate skipped."))
            #expect(answer.body.contains("ada-again-and-one-new.vcf:1: already in the book as ada-grouped.vcf"))
            #expect(await web.openBook.liveRecords().count == 2)
            #expect(try web.fileBytes("ada-grouped.vcf") == before)
        }
    }

    @Test func anUploadOverTheLimitIsRefusedWithAPageAndChangesNothing() async throws {
        try await withWebServer(fixtures: ["ada-grouped.vcf"], maximumUploadSize: 1 << 20) { web in
            var big: [UInt8] = []
            while big.count < (3 << 19) { big += try Self.fixture("ada-again-and-one-new.vcf") }
            let answer = try await web.upload(big, fileName: "big.vcf")
            #expect(answer.status == 413)
            #expect(answer.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(answer.body.contains("The upload is larger than 1 MB; nothing was changed."))
            #expect(await web.openBook.liveRecords().count == 1)
        }
    }

    @Test func theBookDownloadsInEveryFormat() async throws {
        try await withWebServer(fixtures: ["ada-grouped.vcf", "ada-king.vcf"]) { web in
            let vcard3 = try await web.get("/export?format=vcard3")
            #expect(vcard3.status == 200)
            #expect(vcard3.header("Content-Type") == "text/vcard; charset=utf-8")
            #expect(vcard3.header("Content-Disposition")?.contains(".vcf") == true)
            #expect(vcard3.body.components(separatedBy: "BEGIN:VCARD").count == 3)
            #expect(vcard3.body.components(separatedBy: "VERSION:3.0").count == 3)
            let vcard4 = try await web.get("/export?format=vcard4")
            #expect(vcard4.body.components(separatedBy: "VERSION:4.0").count == 3)
            #expect(vcard4.body.contains("UID:ada-king-0002"))
            let jcard = try await web.get("/export?format=jcard")
            #expect(jcard.header("Content-Type") == "application/vcard+json")
            let cards = try #require(try JSONSerialization.jsonObject(with: Data(jcard.body.utf8)) as? [[Any]])
            #expect(cards.count == 2)
            #expect(cards.allSatisfy { $0.first as? String == "vcard" })
            let xcard = try await web.get("/export?format=xcard")
            #expect(xcard.header("Content-Type") == "application/vcard+xml")
            #expect(xcard.body.contains("<vcards xmlns=\"urn:ietf:params:xml:ns:vcard-4.0\">"))
            #expect(xcard.body.components(separatedBy: "<vcard>").count == 3)
            #expect(try await web.get("/export?format=pdf").status == 400)
        }
    }

    @Test func aSelectionDownloadsOnlyTheMatchingContacts() async throws {
        try await withWebServer(fixtures: ["ada-grouped.vcf", "ada-king.vcf"]) { web in
            let selected = try await web.get("/export?format=vcard4&q=ada.king%40example.org")
            #expect(selected.status == 200)
            #expect(selected.body.components(separatedBy: "BEGIN:VCARD").count == 2)
            #expect(selected.body.contains("UID:ada-king-0002"))
            #expect(!selected.body.contains("ada-lovelace-0001"))
            let jcard = try await web.get("/export?format=jcard&q=ada.king%40example.org")
            let cards = try #require(try JSONSerialization.jsonObject(with: Data(jcard.body.utf8)) as? [[Any]])
            #expect(cards.count == 1)
        }
    }
}
