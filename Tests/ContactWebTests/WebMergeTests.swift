import ContactStore
@testable import ContactWeb
import Foundation
import Testing
import TestSupport

/// Merging duplicates while choosing values: radio buttons for the values a card has once,
/// check boxes (ticked) for the others; the merge goes through the journal and undo brings
/// both contacts back byte for byte.
@Suite struct WebMergeTests {
    static let kept = "ada-lovelace-0001"
    static let other = "ada-king-0002"
    static let fixtures = ["ada-grouped.vcf", "ada-king.vcf"]
    static let choicePage = "/merge?keep=\(kept)&uid=\(kept)&uid=\(other)"

    /// The position sent by the check box whose label starts with `label`.
    static func checkbox(_ label: String, in page: String) throws -> String {
        let end = try #require(page.range(of: "\">\(label)")).lowerBound
        let start = try #require(page[..<end].range(of: "id=\"value-", options: .backwards)).upperBound
        return String(page[start...].prefix { $0 != "\"" })
    }

    @Test func theDuplicatesPageLeadsToTheMergePage() async throws {
        try await withWebServer(fixtures: Self.fixtures) { web in
            let duplicates = try await web.get("/duplicates")
            #expect(duplicates.body.contains("<form method=\"get\" action=\"/merge\">"))
            #expect(duplicates.body.contains("Lady Ada Lovelace"))
            let page = try await web.get(Self.choicePage)
            #expect(page.status == 200)
            // Differing single values: one radio button per contact's value.
            #expect(page.body.contains("name=\"choose.FN\" value=\"0\" checked><label for=\"choose-FN-0\">Ada Lovelace"))
            #expect(page.body.contains("name=\"choose.FN\" value=\"1\"><label for=\"choose-FN-1\">Lady Ada Lovelace"))
            #expect(page.body.contains("name=\"choose.TITLE\" value=\"1\""))
            // The other values, all ticked; the shared phone once; the group label not listed.
            #expect(page.body.contains("Email: ada.king@example.org</label>"))
            #expect(page.body.components(separatedBy: "+44 20 7946 0001").count == 2)
            #expect(!page.body.contains("X-ABLabel:"))
        }
    }

    @Test func mergingTakesTheChosenValuesAndUndoBringsBothBack() async throws {
        try await withWebServer(fixtures: Self.fixtures) { web in
            let keptBefore = try web.fileBytes("ada-grouped.vcf")
            let otherBefore = try web.fileBytes("ada-king.vcf")
            let page = try await web.get(Self.choicePage).body
            var form = WebTestClient.formFields(in: page)
            let dropped = [try Self.checkbox("Email: ada.king@example.org", in: page), try Self.checkbox("Email: ada@example.org", in: page)]
            form.removeAll { $0.0 == "value" && dropped.contains($0.1) }
            form.removeAll { $0.0.hasPrefix("choose.") }
            form += [("choose.FN", "1"), ("choose.N", "0"), ("choose.TITLE", "1")]
            let answer = try await web.post("/merge", form)
            #expect(answer.status == 303)
            #expect(answer.header("Location")?.contains("unmerge=\(Self.kept)") == true)
            let merged = String(decoding: try web.fileBytes("ada-grouped.vcf"), as: UTF8.self)
            #expect(merged.contains("FN:Lady Ada Lovelace\r\n"))
            #expect(merged.contains("N:Lovelace;Ada;Augusta;;\r\n"))
            #expect(merged.contains("TITLE:Countess of Lovelace\r\n"))
            #expect(!merged.contains("TITLE:Programmer"))
            // The unticked e-mails are gone, the grouped one with its label; the rest is kept.
            #expect(!merged.contains("EMAIL"))
            #expect(!merged.contains("item2."))
            #expect(merged.contains("item1.TEL;type=pref:+44 20 7946 0000\r\nitem1.X-ABLabel:_$!<Mobile>!$_\r\n"))
            #expect(merged.contains("UNKNOWN-THING:something\r\n"))
            #expect(merged.contains("UID:\(Self.kept)\r\n"))
            #expect(!FileManager.default.fileExists(atPath: web.book.appendingPathComponent("ada-king.vcf").path))
            #expect(try await web.openBook.history(of: Self.kept).first?.operation == .merge)
            #expect(try await web.openBook.history(of: Self.other).first?.operation == .delete)
            // Undo: both contacts as they were.
            let undo = try await web.post("/unmerge", [("csrf", try await web.csrfToken()), ("uid", Self.kept)])
            #expect(undo.status == 303)
            #expect(try web.fileBytes("ada-grouped.vcf") == keptBefore)
            #expect(try web.fileBytes("ada-king.vcf") == otherBefore)
        }
    }

    @Test func aMergeOfAContactChangedSinceIsRefused() async throws {
        try await withWebServer(fixtures: Self.fixtures) { web in
            let form = WebTestClient.formFields(in: try await web.get(Self.choicePage).body)
            var outside = String(decoding: try web.fileBytes("ada-king.vcf"), as: UTF8.self)
            outside = outside.replacingOccurrences(of: "TITLE:Countess of Lovelace", with: "TITLE:Countess")
            try Data(outside.utf8).write(to: web.book.appendingPathComponent("ada-king.vcf"))
            _ = try await web.openBook.scan()
            let keptBefore = try web.fileBytes("ada-grouped.vcf")
            let answer = try await web.post("/merge", form)
            #expect(answer.status == 409)
            #expect(answer.body.contains("nothing was merged"))
            #expect(answer.body.contains("Countess <span"))
            #expect(try web.fileBytes("ada-grouped.vcf") == keptBefore)
            #expect(String(decoding: try web.fileBytes("ada-king.vcf"), as: UTF8.self) == outside)
            #expect(try await web.openBook.history(of: Self.kept).count == 1)
        }
    }
}
