import ContactStore
@testable import ContactWeb
import Foundation
import Testing
import TestSupport

/// Editing through real HTTP against a real server: a save changes only the edited lines and
/// REV, goes through the journal, and is refused when stale, forged or invalid.
@Suite struct WebEditingTests {
    static let uid = "ada-lovelace-0001"
    static let file = "ada-grouped.vcf"

    /// The form with `changes` applied (by field name) and `additions` appended.
    static func edited(_ form: [(String, String)], _ changes: [String: String], adding additions: [(String, String)] = []) -> [(String, String)] {
        form.map { (name, value) in (name, changes[name] ?? value) } + additions
    }

    static func lines(_ bytes: [UInt8]) -> [String] {
        String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
    }

    @Test func savingChangesOnlyTheEditedLinesAndREV() async throws {
        try await withWebServer(fixtures: [Self.file]) { web in
            let before = try web.fileBytes(Self.file)
            let form = try await web.editForm(Self.uid)
            // The preferred phone (grouped item1.TEL) is the first phone field.
            let phoneField = try #require(form.first { $0.1 == "+44 20 7946 0000" }?.0)
            let answer = try await web.post("/contact/save", Self.edited(form, [phoneField: "+44 20 7946 9999",
                                                                                "new.EMAIL.0": "countess@example.org"]))
            #expect(answer.status == 303)
            let after = try web.fileBytes(Self.file)
            let old = Self.lines(before)
            let new = Self.lines(after)
            #expect(new.count == old.count + 1)
            let removed = old.filter { !new.contains($0) }
            let added = new.filter { !old.contains($0) }
            #expect(removed == ["item1.TEL;type=pref:+44 20 7946 0000", "REV:2024-01-01T00:00:00Z"])
            #expect(added.count == 3)
            #expect(added.contains("item1.TEL;type=pref:+44 20 7946 9999"))
            #expect(added.contains("EMAIL:countess@example.org"))
            #expect(added.contains { $0.hasPrefix("REV:20") && $0 != "REV:2024-01-01T00:00:00Z" })
            // The folded NOTE, the groups and the unknown properties are byte for byte where they were.
            #expect(String(decoding: after, as: UTF8.self).contains("NOTE:Wrote the first program\\, for the Engine.\\nLong note line that is \r\n folded"))
            let events = try await web.openBook.history(of: Self.uid)
            #expect(events.first?.operation == .update)
            #expect(events.first?.source == .user)
        }
    }

    @Test func aSaveWithNothingChangedWritesNothing() async throws {
        try await withWebServer(fixtures: [Self.file]) { web in
            let before = try web.fileBytes(Self.file)
            let answer = try await web.post("/contact/save", try await web.editForm(Self.uid))
            #expect(answer.status == 303)
            #expect(try web.fileBytes(Self.file) == before)
            #expect(try await web.openBook.history(of: Self.uid).count == 1)
        }
    }

    @Test func aStaleSaveIsRefusedAndShowsTheNewerVersion() async throws {
        try await withWebServer(fixtures: [Self.file]) { web in
            let form = try await web.editForm(Self.uid)
            // Another program edits the file after the page was shown.
            var outside = String(decoding: try web.fileBytes(Self.file), as: UTF8.self)
            outside = outside.replacingOccurrences(of: "TITLE:Programmer", with: "TITLE:Mathematician")
            try Data(outside.utf8).write(to: web.book.appendingPathComponent(Self.file))
            let answer = try await web.post("/contact/save", Self.edited(form, ["p5": "Poet"]))
            #expect(answer.status == 409)
            #expect(answer.body.contains("changed by another program or a sync"))
            #expect(answer.body.contains("Mathematician"))
            #expect(String(decoding: try web.fileBytes(Self.file), as: UTF8.self) == outside)
            // The outside edit is in the journal.
            #expect(try await web.openBook.history(of: Self.uid).first?.source == .folder)
        }
    }

    @Test func aPostWithoutTheTokenIsRefusedAndChangesNothing() async throws {
        try await withWebServer(fixtures: [Self.file]) { web in
            let before = try web.fileBytes(Self.file)
            var form = try await web.editForm(Self.uid)
            form = form.map { $0.0 == "csrf" ? ("csrf", String(repeating: "0", count: 64)) : $0 }
            let forged = try await web.post("/contact/save", Self.edited(form, ["p5": "Poet"]))
            #expect(forged.status == 403)
            let missing = try await web.post("/contact/delete", [("uid", Self.uid)])
            #expect(missing.status == 403)
            #expect(try web.fileBytes(Self.file) == before)
            #expect(try await web.openBook.history(of: Self.uid).count == 1)
        }
    }

    @Test func anInvalidRawVCardShowsWhereAndChangesNothing() async throws {
        try await withWebServer(fixtures: [Self.file]) { web in
            let before = try web.fileBytes(Self.file)
            let page = try await web.get("/contact/edit?uid=\(Self.uid)")
            let broken = "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada Lovelace\r\nUID:\(Self.uid)\r\n"
            let answer = try await web.post("/contact/raw", [("csrf", page.hiddenValue("csrf") ?? ""), ("uid", Self.uid),
                                                             ("version", page.hiddenValue("version") ?? ""), ("raw", broken)])
            #expect(answer.status == 422)
            #expect(answer.body.contains("\(Self.file):1:1: error"))
            #expect(try web.fileBytes(Self.file) == before)
        }
    }

    @Test func aRawEditKeepsTheOtherLinesAndStampsREV() async throws {
        try await withWebServer(fixtures: [Self.file]) { web in
            let before = String(decoding: try web.fileBytes(Self.file), as: UTF8.self)
            let page = try await web.get("/contact/edit?uid=\(Self.uid)")
            let raw = before.replacingOccurrences(of: "UNKNOWN-THING:something", with: "UNKNOWN-THING:something else")
            let answer = try await web.post("/contact/raw", [("csrf", page.hiddenValue("csrf") ?? ""), ("uid", Self.uid),
                                                             ("version", page.hiddenValue("version") ?? ""), ("raw", raw)])
            #expect(answer.status == 303)
            let after = Self.lines(try web.fileBytes(Self.file))
            let old = Self.lines(Array(before.utf8))
            #expect(old.filter { !after.contains($0) } == ["UNKNOWN-THING:something", "REV:2024-01-01T00:00:00Z"])
        }
    }

    @Test func everyAnswerCarriesTheContentSecurityPolicy() async throws {
        try await withWebServer(fixtures: [Self.file]) { web in
            for path in ["/", "/contact?uid=\(Self.uid)", "/static/app.js", "/no-such-page"] {
                let answer = try await web.get(path)
                #expect(answer.header("Content-Security-Policy")?.contains("default-src 'none'") == true, "\(path)")
            }
            let list = try await web.get("/?q=LOVELACE")
            #expect(list.body.contains("Ada Lovelace"))
            let accents = try await web.get("/?q=ad%C3%A1")
            #expect(accents.body.contains("Ada Lovelace"))
            let digits = try await web.get("/?q=%2844%29%2020-7946-0001")
            #expect(digits.body.contains("Ada Lovelace"))
        }
    }

    @Test func aRequestNamingAnotherHostIsRefused() async throws {
        try await withWebServer(fixtures: [Self.file]) { web in
            // A page of another site whose name was pointed at 127.0.0.1 (DNS rebinding).
            let rebound = try await web.send("/contact?uid=\(Self.uid)", method: .GET, body: nil, contentType: nil, host: "evil.example:\(web.port)")
            #expect(rebound.status == 421)
            #expect(!rebound.body.contains("Lovelace"))
            let local = try await web.send("/contact?uid=\(Self.uid)", method: .GET, body: nil, contentType: nil, host: "localhost:\(web.port)")
            #expect(local.status == 200)
        }
    }
}
