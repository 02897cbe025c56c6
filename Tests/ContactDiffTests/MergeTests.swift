import ContactDiff
import ContactStore
import Foundation
import Testing
import TestSupport
import VCardKit

struct ContactMergerTests {
    @Test func takesTheRichestNameTheUnionOfValuesAndTheNewestRevision() {
        let kept = card("VERSION:4.0", "UID:ada", "FN:Ada", "N:;Ada;;;", "EMAIL:ada@example.com", "TEL:+44 20 7946 0018",
                        "REV:20240101T000000Z")
        let other = card("VERSION:3.0", "UID:ada-2", "FN:Ada Lovelace", "N:Lovelace;Ada;;;", "EMAIL:ADA@example.com",
                         "TEL;TYPE=CELL:020 7946 0018", "EMAIL;TYPE=WORK:countess@example.org", "BDAY:1815-12-10",
                         "REV:20250601T120000Z")
        let merged = ContactMerger().merge([kept, other])
        #expect(merged.uid == "ada")
        #expect(merged.formattedName == "Ada Lovelace")
        #expect(merged.structuredName?.family == ["Lovelace"])
        #expect(merged.emailAddresses == ["ada@example.com", "countess@example.org"])
        #expect(merged.telephoneNumbers.count == 1, "the same number in another format is not repeated")
        #expect(merged.first("BDAY") != nil)
        #expect(merged.first("REV")?.rawValue == "20250601T120000Z")
        #expect(merged.all("REV").count == 1)
    }

    @Test func groupsMoveWholeUnderANewLabel() {
        let kept = card("VERSION:3.0", "UID:a", "FN:Ann Lee", "item1.EMAIL:a@example.com", "item1.X-ABLABEL:_$!<Work>!$_")
        let other = card("VERSION:3.0", "UID:b", "FN:Ann Lee", "item1.EMAIL:ann@example.org", "item1.X-ABLABEL:_$!<Home>!$_")
        let merged = ContactMerger().merge([kept, other])
        let groups = Set(merged.properties.compactMap(\.group))
        #expect(groups.count == 2)
        #expect(merged.properties.filter { $0.group != nil && $0.group != "item1" }.map(\.name) == ["EMAIL", "X-ABLABEL"])
    }
}

struct MergeRestoreTests {
    @Test func mergeThenRestoreGivesBackTheOriginalFilesByteForByte() async throws {
        let root = try TestPaths.makeTemporaryDirectory("merge")
        let book = root.appendingPathComponent("book")
        try FileManager.default.createDirectory(at: book, withIntermediateDirectories: true)
        // Written the way people's tools write them: LF line ends, lower case, odd folding.
        let files = [
            "ada.vcf": "BEGIN:VCARD\nVERSION:3.0\nUID:ada\nfn:Ada\nN:;Ada;;;\nEMAIL;type=INTERNET:ada@example.com\nREV:20240101T000000Z\nEND:VCARD\n",
            "ada-2.vcf": "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:ada-2\r\nFN:Ada Love\r\n lace\r\nN:Lovelace;Ada;;;\r\nEMAIL:ADA@example.com\r\nTEL:+44 20 7946 0018\r\nEND:VCARD\r\n",
            "ada-3.vcf": "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada-3\r\nFN:Ada Lovelace\r\nTEL;TYPE=CELL:020 7946 0018\r\nNOTE:met at the Royal Society\r\nEND:VCARD\r\n",
            "charles.vcf": "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:charles\r\nFN:Charles Babbage\r\nEND:VCARD\r\n",
        ]
        for (name, text) in files { try Data(text.utf8).write(to: book.appendingPathComponent(name)) }
        try AddressBook.create(at: book)

        let outcome = try await AddressBook.withOpen(at: book) { book in
            try await book.mergeContacts(["ada", "ada-2", "ada-3"])
        }
        #expect(outcome.events.map(\.operation) == [.merge, .delete, .delete])
        #expect(outcome.events.dropFirst().allSatisfy { $0.duplicateOf == "ada" })
        let mergedText = try String(contentsOf: book.appendingPathComponent("ada.vcf"), encoding: .utf8)
        #expect(mergedText.contains("Ada Lovelace") && mergedText.contains("Royal Society"))
        #expect(!FileManager.default.fileExists(atPath: book.appendingPathComponent("ada-2.vcf").path))

        let restored = try await AddressBook.withOpen(at: book) { book in try await book.undoMerge(uid: "ada") }
        #expect(Set(restored.map(\.uid)) == ["ada", "ada-2", "ada-3"])
        for (name, text) in files {
            let bytes = try Data(contentsOf: book.appendingPathComponent(name))
            #expect(bytes == Data(text.utf8), "\(name) differs after merge and restore")
        }
        let check = try await AddressBook.withOpen(at: book) { book in try await book.check() }
        #expect(check.isConsistent, "\(check.problems)")
    }

    @Test func undoingWhatWasNotAMergeIsRefused() async throws {
        let root = try TestPaths.makeTemporaryDirectory("merge-refused")
        try Data("BEGIN:VCARD\r\nVERSION:4.0\r\nUID:a\r\nFN:A\r\nEND:VCARD\r\n".utf8).write(to: root.appendingPathComponent("a.vcf"))
        try AddressBook.create(at: root)
        await #expect(throws: ContactStoreError.self) {
            try await AddressBook.withOpen(at: root) { book in try await book.undoMerge(uid: "a") }
        }
    }
}
