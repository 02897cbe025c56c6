import ContactStore
@testable import ContactWeb
import Foundation
import Testing
import TestSupport

/// Several values of one kind in one save: "Add another phone" shows the form again with what
/// was typed kept and one more empty slot, without JavaScript; the save then adds them all and
/// changes nothing else.
@Suite struct WebMultipleValuesTests {
    static let uid = "ada-lovelace-0001"
    static let file = "ada-grouped.vcf"

    static func lines(_ bytes: [UInt8]) -> [String] {
        String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
    }

    @Test func addAnotherPhoneKeepsWhatWasTypedAndSavesNothing() async throws {
        try await withWebServer(fixtures: [Self.file]) { web in
            let before = try web.fileBytes(Self.file)
            let form = try await web.editForm(Self.uid)
            #expect(try await web.get("/contact/edit?uid=\(Self.uid)").body.contains("Add another phone</button>"))
            let typed = form.map { $0.0 == "new.TEL.0" ? ($0.0, "+1 555 0100") : $0.0 == "p5" ? ($0.0, "Poet") : $0 }
            let page = try await web.post("/contact/save", typed + [("type.TEL.0", "work"), ("remove9", "1"), ("add", "TEL")])
            #expect(page.status == 200)
            // What was typed is kept: the new phone and its kind, the changed title, the ticked box.
            #expect(page.body.contains("name=\"new.TEL.0\" value=\"+1 555 0100\""))
            #expect(page.body.contains("<option value=\"work\" selected>"))
            #expect(page.body.contains("name=\"p5\" value=\"Poet\""))
            #expect(page.body.contains("name=\"remove9\" value=\"1\" checked"))
            // One more empty phone slot, labelled; other kinds still have one.
            #expect(page.body.contains("<label for=\"new.TEL.1\">New phone 2</label>"))
            #expect(page.body.contains("name=\"new.TEL.1\" value=\"\""))
            #expect(!page.body.contains("new.TEL.2"))
            #expect(!page.body.contains("new.EMAIL.1"))
            // Nothing is saved until Save.
            #expect(try web.fileBytes(Self.file) == before)
            #expect(try await web.openBook.history(of: Self.uid).count == 1)
        }
    }

    @Test func twoPhonesAndTwoEmailsInOneSaveChangeOnlyThoseLinesAndREV() async throws {
        try await withWebServer(fixtures: [Self.file]) { web in
            let before = try web.fileBytes(Self.file)
            var form = try await web.editForm(Self.uid)
            form = form.map { $0.0 == "new.TEL.0" ? ($0.0, "+1 555 0100") : $0 }
            let withTwoPhoneSlots = try await web.post("/contact/save", form + [("add", "TEL")])
            form = WebTestClient.formFields(in: withTwoPhoneSlots.body)
                .map { $0.0 == "new.TEL.1" ? ($0.0, "+1 555 0199") : $0.0 == "new.EMAIL.0" ? ($0.0, "one@example.org") : $0 }
            let withTwoEmailSlots = try await web.post("/contact/save", form + [("add", "EMAIL")])
            form = WebTestClient.formFields(in: withTwoEmailSlots.body)
                .map { $0.0 == "new.EMAIL.1" ? ($0.0, "two@example.org") : $0 }
            let answer = try await web.post("/contact/save", form + [("type.TEL.1", "cell")])
            #expect(answer.status == 303)
            let old = Self.lines(before)
            let new = Self.lines(try web.fileBytes(Self.file))
            // The new values follow the last of their kind; every other line is as it was.
            var expected = old
            expected[expected.firstIndex(of: "REV:2024-01-01T00:00:00Z")!] = new.first { $0.hasPrefix("REV:") }!
            expected.insert(contentsOf: ["TEL:+1 555 0100", "TEL;TYPE=cell:+1 555 0199"], at: old.firstIndex(of: "TEL;TYPE=HOME,VOICE:+44 20 7946 0001")! + 1)
            expected.insert(contentsOf: ["EMAIL:one@example.org", "EMAIL:two@example.org"], at: expected.firstIndex(of: "item2.EMAIL;type=INTERNET:ada@example.org")! + 1)
            #expect(new == expected)
            #expect(new.first { $0.hasPrefix("REV:") } != "REV:2024-01-01T00:00:00Z")
            let events = try await web.openBook.history(of: Self.uid)
            #expect(events.count == 2)
            #expect(events.first?.operation == .update)
        }
    }

    @Test func aNewContactCanGetTwoEmailsInOneSave() async throws {
        try await withWebServer(fixtures: []) { web in
            let token = try await web.csrfToken()
            let page = try await web.post("/new", [("csrf", token), ("new.FN.0", "Grace Hopper"), ("new.EMAIL.0", "grace@example.org"), ("add", "EMAIL")])
            #expect(page.status == 200)
            #expect(page.body.contains("name=\"new.FN.0\" value=\"Grace Hopper\""))
            var form = WebTestClient.formFields(in: page.body)
            form = form.map { $0.0 == "new.EMAIL.1" ? ($0.0, "hopper@example.org") : $0 }
            let answer = try await web.post("/new", form)
            #expect(answer.status == 303)
            let uid = try #require(await web.openBook.liveRecords().first?.uid)
            let card = try await web.openBook.contactFile(uid: uid).card
            #expect(card.emailAddresses == ["grace@example.org", "hopper@example.org"])
        }
    }
}
