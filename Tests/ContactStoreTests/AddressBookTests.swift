import ContactStore
import Foundation
import Testing
import TestSupport
import VCardKit

/// The address book folder: adoption, scans of changes made by other programs, identity.
struct AddressBookTests {
    @Test func initAdoptsExistingFilesWithoutRewritingThem() async throws {
        let folder = try TestPaths.makeTemporaryDirectory("adopt")
        let original = cardText(uid: "ada", name: "Ada Lovelace").replacingOccurrences(of: "\r\n", with: "\n")
        try folder.write(original, to: "ada.vcf")
        try folder.write(cardText(uid: nil, name: "No Uid"), to: "nouid.vcf")
        try AddressBook.create(at: folder)
        let count = try await AddressBook.withOpen(at: folder) { book in await book.contactCount }
        #expect(count == 2)
        #expect(try folder.read("ada.vcf") == original)
        #expect(try !folder.read("nouid.vcf").contains("UID"))
        var info = stat()
        stat(folder.appendingPathComponent(".cardsync").path, &info)
        #expect(info.st_mode & 0o777 == 0o700)
        stat(folder.journalURL.path, &info)
        #expect(info.st_mode & 0o777 == 0o600)
        let lines = try journalLines(folder)
        #expect(lines.count == 2)
        #expect(lines.contains { $0.contains("\"generatedUID\":true") && $0.contains("\"source\":\"folder\"") })
    }

    @Test func generatedUIDIsStableAcrossScansAndEdits() async throws {
        let book = try makeBook()
        try book.write(cardText(uid: nil, name: "No Uid"), to: "x.vcf")
        let first = try await AddressBook.withOpen(at: book) { book in await book.liveRecords() }
        #expect(first.count == 1 && first[0].isGeneratedUID)
        try book.write(cardText(uid: nil, name: "No Uid", email: "new@example.com"), to: "x.vcf")
        let (second, report) = try await AddressBook.withOpen(at: book) { book in (await book.liveRecords(), await book.openingScan!) }
        #expect(second.map(\.uid) == first.map(\.uid))
        #expect(report.count(.update) == 1)
    }

    @Test func addMissingUIDsAlsoWritesIntoFilesThatDidNotChange() async throws {
        let book = try makeBook()
        try book.write(cardText(uid: nil, name: "No Uid"), to: "x.vcf")
        // Past the 100 ms in which a file's stamp is not kept: the first scan keeps it, so the
        // next one finds the file unchanged and reads nothing.
        try await Task.sleep(for: .milliseconds(250))
        let uid = try await AddressBook.withOpen(at: book) { book in await book.liveRecords()[0].uid }
        let unchanged = try await AddressBook.withOpen(at: book) { book in await book.openingScan! }
        #expect(unchanged.filesRead == 0)
        let report = try await AddressBook.withOpen(at: book, options: .init(addsMissingUIDs: true)) { book in await book.openingScan! }
        #expect(report.filesGivenUIDs == ["x.vcf"])
        #expect(try book.read("x.vcf").contains("UID:\(uid)\r\nEND:VCARD"))
        let records = try await AddressBook.withOpen(at: book) { book in await book.liveRecords() }
        #expect(records.map(\.uid) == [uid] && records[0].isGeneratedUID == false)
    }

    @Test func addMissingUIDsWritesTheGeneratedUID() async throws {
        let book = try makeBook()
        try book.write(cardText(uid: nil, name: "No Uid"), to: "x.vcf")
        let uid = try await AddressBook.withOpen(at: book) { book in await book.liveRecords()[0].uid }
        try await AddressBook.withOpen(at: book, options: .init(addsMissingUIDs: true)) { _ in }
        #expect(try book.read("x.vcf").contains("UID:\(uid)\r\nEND:VCARD"))
        let records = try await AddressBook.withOpen(at: book) { book in await book.liveRecords() }
        #expect(records.map(\.uid) == [uid])
        #expect(records[0].isGeneratedUID == false)
    }

    @Test func scanDetectsEditsAdditionsDeletionsAndRenamesByOtherPrograms() async throws {
        let book = try makeBook()
        for name in ["a", "b", "c", "d"] { try book.write(cardText(uid: name, name: "Person \(name)"), to: "\(name).vcf") }
        try await AddressBook.withOpen(at: book) { _ in }
        try book.write(cardText(uid: "a", name: "Person a", email: "edited@example.com"), to: "a.vcf")
        try FileManager.default.removeItem(at: book.appendingPathComponent("b.vcf"))
        try FileManager.default.moveItem(at: book.appendingPathComponent("c.vcf"), to: book.appendingPathComponent("renamed.vcf"))
        try book.write(cardText(uid: "e", name: "Person e"), to: "e.vcf")
        let report = try await AddressBook.withOpen(at: book) { book in await book.openingScan! }
        #expect(report.count(.update) == 1)
        #expect(report.count(.delete) == 1)
        #expect(report.count(.rename) == 1)
        #expect(report.count(.add) == 1)
        #expect(report.events.first { $0.operation == .rename }?.previousFile == "c.vcf")
        let history = try await AddressBook.withOpen(at: book) { book in try await book.history(limit: 4) }
        #expect(Set(history.map(\.operation)) == [.add, .update, .rename, .delete])
        #expect(history.allSatisfy { $0.source == .folder })
    }

    @Test func touchingAFileRecordsNothing() async throws {
        let book = try makeBook()
        try book.write(cardText(uid: "a", name: "A"), to: "a.vcf")
        try await AddressBook.withOpen(at: book) { _ in }
        let text = try book.read("a.vcf")
        try book.write(text.replacingOccurrences(of: "\r\n", with: "\n"), to: "a.vcf")
        let report = try await AddressBook.withOpen(at: book) { book in await book.openingScan! }
        #expect(report.isUnchanged)
        #expect(report.filesRead == 1)
    }

    @Test func unreadableFileIsReportedAndLeftUntouched() async throws {
        let book = try makeBook()
        try book.write(cardText(uid: "a", name: "A"), to: "a.vcf")
        try book.write(cardText(uid: "b", name: "B"), to: "b.vcf")
        try await AddressBook.withOpen(at: book) { _ in }
        let broken = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:a\r\nFN:A\r\n"
        try book.write(broken, to: "a.vcf")
        let (report, count) = try await AddressBook.withOpen(at: book) { book in (await book.openingScan!, await book.contactCount) }
        #expect(report.problems.map(\.file) == ["a.vcf"])
        #expect(report.problems[0].line == 1)
        #expect(report.isUnchanged)
        #expect(count == 2)
        #expect(try book.read("a.vcf") == broken)
    }

    @Test func multiCardFileIsHandledCardByCard() async throws {
        let book = try makeBook()
        try book.write(cardText(uid: "a", name: "A") + cardText(uid: "b", name: "B") + cardText(uid: nil, name: "C"), to: "all.vcf")
        let records = try await AddressBook.withOpen(at: book) { book in await book.liveRecords() }
        #expect(records.count == 3)
        #expect(Set(records.map(\.file)) == ["all.vcf"])
        try book.write(cardText(uid: "a", name: "A") + cardText(uid: nil, name: "C"), to: "all.vcf")
        let report = try await AddressBook.withOpen(at: book) { book in await book.openingScan! }
        #expect(report.count(.delete) == 1)
        #expect(report.events.first?.uid == "b")
        #expect(report.count(.add) == 0)
    }

    @Test func duplicateUIDIsReportedWithBothFilesAndNothingIsLost() async throws {
        let book = try makeBook()
        try book.write(cardText(uid: "same", name: "First"), to: "one.vcf")
        try await AddressBook.withOpen(at: book) { _ in }
        try book.write(cardText(uid: "same", name: "Second"), to: "two.vcf")
        let (report, records) = try await AddressBook.withOpen(at: book) { book in (await book.openingScan!, await book.liveRecords()) }
        #expect(report.problems.map(\.code) == ["duplicate-uid"])
        #expect(report.problems[0].file == "two.vcf" && report.problems[0].message.contains("one.vcf"))
        #expect(records.map(\.file) == ["one.vcf"])
        #expect(book.contactFiles == ["one.vcf", "two.vcf"])
    }

    @Test func showFindsContactsByUIDFileAndName() async throws {
        let book = try makeBook()
        try book.write(cardText(uid: "ada", name: "Ada Lovelace"), to: "ada.vcf")
        try book.write(cardText(uid: "bob", name: "Bob Byron"), to: "b.vcf")
        try await AddressBook.withOpen(at: book) { book in
            #expect(await book.contacts(matching: "ada").map(\.uid) == ["ada"])
            #expect(await book.contacts(matching: "b").map(\.uid) == ["bob"])
            #expect(await book.contacts(matching: "LOVE").map(\.uid) == ["ada"])
            #expect(await book.contacts(matching: "nobody").isEmpty)
            let summaries = await book.contactSummaries()
            #expect(summaries.map(\.name) == ["Ada Lovelace", "Bob Byron"])
        }
    }

    @Test func notAnAddressBookSaysHowToMakeOne() async throws {
        let folder = try TestPaths.makeTemporaryDirectory("plain")
        await #expect {
            try await AddressBook.withOpen(at: folder) { _ in }
        } throws: { error in
            (error as? ContactStoreError)?.code == .notAnAddressBook && "\(error)".contains("cardsync init")
        }
    }

    /// The push reads only the properties its documents carry: a file of one plain card is read
    /// for those alone, yet gives the whole card's bytes; any other file is read whole.
    @Test func contactsReadForSomePropertiesKeepTheirWholeBytes() async throws {
        let book = try makeBook("selected-read")
        let plain = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:ada\r\nFN:Ada Lovelace\r\nNOTE:long\r\n  folded note\r\n"
            + "EMAIL;TYPE=work:ada@example.org\r\nTEL;VALUE=uri:tel:+44-20-1234\r\nPHOTO:data:image/png;base64,iVBORw0KGgo=\r\nEND:VCARD\r\n"
        // vCard 2.1 with quoted-printable: not plain text, read whole.
        let old = "BEGIN:VCARD\r\nVERSION:2.1\r\nUID:bob\r\nFN;ENCODING=QUOTED-PRINTABLE:B=C3=B6b\r\nNOTE:kept\r\nEND:VCARD\r\n"
        try book.write(plain, to: "ada.vcf")
        try book.write(old, to: "bob.vcf")
        try await AddressBook.withOpen(at: book) { opened in
            let selected = await opened.storedContacts(uids: ["ada", "bob"], selecting: ["FN", "EMAIL", "TEL"])
            let whole = await opened.storedContacts(uids: ["ada", "bob"])
            let ada = try #require(selected.first { $0.uid == "ada" })
            #expect(ada.bytes == Array(plain.utf8), "the whole card's bytes")
            #expect(ada.card.properties.map(\.name) == ["VERSION", "UID", "FN", "EMAIL", "TEL"], "only the properties asked for")
            #expect(ada.card.formattedName == "Ada Lovelace")
            #expect(ada.card.emailAddresses == ["ada@example.org"])
            #expect(ada.card.telephoneNumbers == whole.first { $0.uid == "ada" }?.card.telephoneNumbers)
            let bob = try #require(selected.first { $0.uid == "bob" })
            #expect(bob.card.formattedName == "Böb")
            #expect(bob.card.first("NOTE") != nil, "a file that is not plain 3.0/4.0 text is read whole")
            #expect(selected.map(\.bytes) == whole.map(\.bytes))
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
