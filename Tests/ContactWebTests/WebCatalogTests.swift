import ContactDiff
import ContactStore
@testable import ContactWeb
import Foundation
import Testing
import TestSupport
import VCardKit

/// The list behind `cardsync web`: built from `.cardsync/web-list.bin` for unchanged contacts and
/// from the cards for the rest, never trusting the cache over the book; kept sorted through
/// edits; searched without case or accents, phones by digits; duplicates computed once per change.
@Suite struct WebCatalogTests {
    static let fixtures = ["list-zoe.vcf", "list-jose.vcf", "list-smith.vcf", "list-smith-again.vcf"]

    /// A new book holding the list fixtures; removed afterwards.
    static func withBook(_ body: (URL) async throws -> Void) async throws {
        let folder = try TestPaths.makeTemporaryDirectory("contactweb-list")
        defer { try? FileManager.default.removeItem(at: folder) }
        try AddressBook.create(at: folder)
        for name in fixtures {
            try FileManager.default.copyItem(at: TestPaths.fixtures("ContactWebTests").appendingPathComponent(name),
                                             to: folder.appendingPathComponent(name))
        }
        try await body(folder)
    }

    /// The display names of the whole list, in `sort` order, as a fresh start sees them.
    static func names(in folder: URL, sort: ContactCatalog.Sort = .family, query: String = "") async throws -> [String] {
        try await AddressBook.withOpen(at: folder) { book in
            let catalog = await ContactCatalog.load(book)
            return await catalog.page(query: query, sort: sort, offset: 0, limit: 100).entries.map(\.displayName)
        }
    }

    static func cachePath(_ folder: URL) -> String {
        ContactListCache.path(inBook: folder.path)
    }

    /// A search that did not finish within its patience.
    struct SearchTimedOut: Error, CustomStringConvertible {
        var description: String
    }

    /// The groups a fresh duplicate search finds in the book at `folder`, after a scan records
    /// the cards written into it; an error when they are not found within a minute.
    static func duplicateGroups(afterScanning folder: URL) async throws -> DuplicateSearch.Groups {
        _ = try await AddressBook.withOpen(at: folder) { try await $0.scan() }
        return try await AddressBook.withOpen(at: folder) { book in
            let catalog = await ContactCatalog.load(book)
            guard case .ready(let groups) = await DuplicateSearch().state(of: catalog, book: book, patience: .seconds(60)) else {
                throw SearchTimedOut(description: "the duplicates of the book at \(folder.path) were not found within a minute")
            }
            return groups
        }
    }

    @Test func theFirstStartWritesTheCacheWithEachContactsContentHash() async throws {
        try await Self.withBook { folder in
            #expect(try await Self.names(in: folder) == ["José García", "Zoë Müller", "Bob Smith", "Bob Smith"])
            let cached = try #require(ContactListCache.read(bookDirectory: folder.path))
            try await AddressBook.withOpen(at: folder) { book in
                let records = await book.liveRecords()
                #expect(records.count == 4)
                for record in records { #expect(cached[record.uid]?.hash == record.hash) }
            }
            #expect(try await Self.names(in: folder) == ["José García", "Zoë Müller", "Bob Smith", "Bob Smith"])
        }
    }

    @Test func aChangeMadeByAnotherProgramWhileTheServerWasDownShows() async throws {
        try await Self.withBook { folder in
            _ = try await Self.names(in: folder)
            let file = folder.appendingPathComponent("list-zoe.vcf")
            let edited = String(decoding: try Data(contentsOf: file), as: UTF8.self)
                .replacingOccurrences(of: "FN:Zoë Müller", with: "FN:Zoë Ackermann").replacingOccurrences(of: "N:Müller;", with: "N:Ackermann;")
            try Data(edited.utf8).write(to: file)
            #expect(try await Self.names(in: folder) == ["Zoë Ackermann", "José García", "Bob Smith", "Bob Smith"])
            #expect(try await Self.names(in: folder, query: "muller").isEmpty)
            #expect(ContactListCache.read(bookDirectory: folder.path)?["list-zoe-0001"]?.entry.displayName == "Zoë Ackermann")
        }
    }

    @Test func aCachedEntryWhoseHashIsNotTheBooksIsReadAgain() async throws {
        try await Self.withBook { folder in
            _ = try await Self.names(in: folder)
            var cached = try #require(ContactListCache.read(bookDirectory: folder.path))
            var zoe = try #require(cached["list-zoe-0001"])
            zoe.entry.displayName = "Not In The Book"
            zoe.hash = ContentHash(words: (1, 2, 3, 4))
            cached["list-zoe-0001"] = zoe
            try ContactListCache.write(cached.values, bookDirectory: folder.path)
            #expect(try await Self.names(in: folder) == ["José García", "Zoë Müller", "Bob Smith", "Bob Smith"])
        }
    }

    @Test(arguments: ["flipped byte", "cut short", "other format", "empty"])
    func aDamagedCacheIsIgnoredAndRebuilt(damage: String) async throws {
        try await Self.withBook { folder in
            _ = try await Self.names(in: folder)
            var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Self.cachePath(folder))))
            switch damage {
            case "flipped byte": bytes[bytes.count / 2] ^= 0x20
            case "cut short": bytes.removeLast(bytes.count / 3)
            case "other format": bytes.replaceSubrange(0..<8, with: Array("CSWEBL00".utf8))
            default: bytes = []
            }
            try Data(bytes).write(to: URL(fileURLWithPath: Self.cachePath(folder)))
            #expect(ContactListCache.read(bookDirectory: folder.path) == nil)
            #expect(try await Self.names(in: folder) == ["José García", "Zoë Müller", "Bob Smith", "Bob Smith"])
            #expect(ContactListCache.read(bookDirectory: folder.path)?.count == 4)
        }
    }

    @Test func anEditMovesOneEntryAndBothOrdersStaySorted() async throws {
        try await Self.withBook { folder in
            try await AddressBook.withOpen(at: folder) { book in
                let catalog = await ContactCatalog.load(book)
                let renamed = try VCardReader.read(Array("BEGIN:VCARD\r\nVERSION:4.0\r\nUID:list-smith-0003\r\nFN:Bob Aardvark\r\nN:Aardvark;Bob;;;\r\nEND:VCARD\r\n".utf8)).cards[0]
                await catalog.update(uid: "list-smith-0003", card: renamed)
                #expect(await catalog.page(query: "", sort: .family, offset: 0, limit: 10).entries.map(\.displayName)
                    == ["Bob Aardvark", "José García", "Zoë Müller", "Bob Smith"])
                #expect(await catalog.page(query: "", sort: .name, offset: 0, limit: 10).entries.map(\.displayName)
                    == ["Bob Aardvark", "Bob Smith", "José García", "Zoë Müller"])
                await catalog.update(uid: "list-jose-0002", card: nil)
                #expect(await catalog.page(query: "", sort: .family, offset: 1, limit: 10).entries.map(\.displayName)
                    == ["Zoë Müller", "Bob Smith"])
                #expect(await catalog.count == 3)
                #expect(await catalog.page(query: "garcia", sort: .family, offset: 0, limit: 10).total == 0)
                #expect(await catalog.page(query: "bob", sort: .family, offset: 0, limit: 10).entries.map(\.displayName)
                    == ["Bob Aardvark", "Bob Smith"])
            }
        }
    }

    @Test(arguments: [("ZOE", ["Zoë Müller"]), ("müller", ["Zoë Müller"]), ("GARCÍA", ["José García"]),
                      ("sevilla", ["José García"]), ("7946 0000", ["Zoë Müller"]), ("20-7946", ["Zoë Müller"]),
                      ("example.com", ["Bob Smith", "Bob Smith"]), ("engines", ["Zoë Müller"]), ("zzz", [])])
    func searchIgnoresCaseAndAccentsAndMatchesPhonesByDigits(query: String, expected: [String]) async throws {
        try await Self.withBook { folder in
            let names = try await Self.names(in: folder, query: query)
            #expect(names == expected)
        }
    }

    @Test func searchPagesThroughTheMatchesInListOrder() async throws {
        try await Self.withBook { folder in
            try await AddressBook.withOpen(at: folder) { book in
                let catalog = await ContactCatalog.load(book)
                let second = await catalog.page(query: "example", sort: .name, offset: 1, limit: 2)
                #expect(second.total == 4)
                #expect(second.entries.map(\.displayName) == ["Bob Smith", "José García"])
                // The export asks for everything.
                #expect(await catalog.page(query: "", sort: .name, offset: 0, limit: .max).entries.count == 4)
                #expect(await catalog.page(query: "", sort: .name, offset: 3, limit: .max).entries.map(\.displayName) == ["Zoë Müller"])
            }
        }
    }

    @Test func duplicatesAreComputedOnceAndAgainAfterAChange() async throws {
        try await Self.withBook { folder in
            try await AddressBook.withOpen(at: folder) { book in
                let catalog = await ContactCatalog.load(book)
                let search = DuplicateSearch()
                guard case .ready(let first) = await search.state(of: catalog, book: book, patience: .seconds(60)) else {
                    Issue.record("the duplicates of four contacts were not found within a minute")
                    return
                }
                #expect(first.entries.count == 4)
                #expect(first.clusters.contains { Set($0.members.compactMap { first.entries[$0].uid }) == ["list-smith-0003", "list-smith-0004"] })
                guard case .ready(let again) = await search.state(of: catalog, book: book, patience: .zero) else {
                    Issue.record("unchanged list: the groups were computed again")
                    return
                }
                #expect(again.generation == first.generation)
                await catalog.update(uid: "list-smith-0004", card: nil)
                _ = try await book.deleteContact(uid: "list-smith-0004", basedOn: nil)
                guard case .ready(let after) = await search.state(of: catalog, book: book, patience: .seconds(60)) else {
                    Issue.record("the duplicates after a change were not found within a minute")
                    return
                }
                #expect(after.generation > first.generation)
                #expect(after.entries.count == 3)
                #expect(!after.clusters.contains { $0.members.contains { after.entries[$0].uid == "list-smith-0003" } })
            }
        }
    }

    @Test func theGroupsAreSearchedInTheContactsFileOrderSoTheyComeInTheSameOrderOnEveryStart() async throws {
        try await Self.withBook { folder in
            for number in 0..<12 {
                try Data("BEGIN:VCARD\r\nVERSION:4.0\r\nUID:order-\(number)\r\nFN:Person \(number % 4)\r\nEMAIL:p\(number % 4)@example.com\r\nNOTE:\(number)\r\nEND:VCARD\r\n".utf8)
                    .write(to: folder.appendingPathComponent("order-\(String(format: "%02d", number)).vcf"))
            }
            let groups = try await Self.duplicateGroups(afterScanning: folder)
            let files = groups.entries.map(\.origin)
            #expect(files.count == 16 && files == files.sorted())
            // Four groups of three, each listed from its first file.
            let people = groups.clusters.filter { $0.members.allSatisfy { groups.entries[$0].origin.hasPrefix("order-") } }
            #expect(people.map { $0.members.map { groups.entries[$0].origin } } == [
                ["order-00.vcf", "order-04.vcf", "order-08.vcf"], ["order-01.vcf", "order-05.vcf", "order-09.vcf"],
                ["order-02.vcf", "order-06.vcf", "order-10.vcf"], ["order-03.vcf", "order-07.vcf", "order-11.vcf"],
            ])
        }
    }

    @Test func theSearchKeepsOnlyWhatMatchingReadsButJudgesSamenessOnWholeCards() async throws {
        try await Self.withBook { folder in
            // Two more Bob Smiths: the same name, e-mail address and number as the fixtures, but
            // one has a note and the other a title, so neither is the same card as another.
            for (uid, extra) in [("list-smith-0005", "NOTE:met at the conference"), ("list-smith-0006", "TITLE:Engineer")] {
                try Data("BEGIN:VCARD\r\nVERSION:4.0\r\nUID:\(uid)\r\nFN:Bob Smith\r\nN:Smith;Bob;;;\r\nEMAIL:bob@example.com\r\nTEL:+1 555 0100\r\n\(extra)\r\nEND:VCARD\r\n".utf8)
                    .write(to: folder.appendingPathComponent("\(uid).vcf"))
            }
            let groups = try await Self.duplicateGroups(afterScanning: folder)
            let position = Dictionary(uniqueKeysWithValues: groups.entries.enumerated().map { ($0.element.uid ?? "", $0.offset) })
            let noted = try #require(position["list-smith-0005"])
            #expect(groups.entries[noted].card.properties.allSatisfy { DuplicateFinder.propertiesRead.contains($0.name.uppercased()) })
            #expect(groups.propertyCounts[noted] == 7)
            let smiths: Set = ["list-smith-0003", "list-smith-0004", "list-smith-0005", "list-smith-0006"]
            let cluster = try #require(groups.clusters.first { Set($0.members.compactMap { groups.entries[$0].uid }) == smiths })
            let exactPairs = cluster.links.filter { $0.confidence == .exact }
                .map { Set([groups.entries[$0.first].uid ?? "", groups.entries[$0.second].uid ?? ""]) }
            #expect(exactPairs == [["list-smith-0003", "list-smith-0004"]])
        }
    }
}
