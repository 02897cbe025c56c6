import Foundation
import Testing
import TestSupport
import VCardKit
@testable import VCardXML

/// xCard (RFC 6351): the corpus converts through xCard without loss, every document cardsync
/// writes validates against `Schemas/xcard.rng`, the RFC example reads as the RFC says, and
/// hostile documents are refused.
@Suite struct XCardTests {
    static let readableText = CorpusIndex.entries.filter { $0.isVCardText && ($0.expected != .invalid || $0.cards > 0) }
    static let extendedSchema = schema("xcard.rng")
    static let rfcSchema = schema("xcard-rfc6351.rng")

    /// A schema from `Schemas/`; a missing or broken schema fails every test that uses it.
    static func schema(_ name: String) -> Result<XCardSchema, VCardError> {
        Result { () throws(VCardError) in try XCardSchema(contentsOf: TestPaths.repositoryRoot.appendingPathComponent("Schemas/\(name)").path) }
    }

    @Test(.needsSharedCorpus, arguments: readableText)
    func corpusCardsGoThroughXCardWithoutLossAndValidate(_ entry: CorpusEntry) throws {
        let cards = try VCardReader.read(Array(Data(contentsOf: entry.url)), sourceName: entry.path).cards
        let xml = XCardWriter().bytes(for: cards)
        let violations = cards.isEmpty ? [] : try Self.extendedSchema.get().validate(xml, sourceName: entry.path)
        #expect(violations == [], "\(violations.prefix(5).map(\.message))")
        let back = try XCardReader.read(xml, sourceName: "xcard")
        #expect(!back.hasErrors, "\(back.diagnostics)")
        #expect(back.cards.count == cards.count)
        for (card, reread) in zip(cards, back.cards) {
            let original = CanonicalForm.properties(of: card)
            let again = CanonicalForm.properties(of: reread)
            let lost = original.filter { !again.contains($0) }.map(\.description)
            let added = again.filter { !original.contains($0) }.map(\.description)
            #expect(lost.isEmpty && added.isEmpty, "lost \(lost) added \(added)")
        }
    }

    @Test func rfcOnlyCardsValidateAgainstTheUnextendedRFCSchema() throws {
        let text = try String(contentsOf: TestPaths.samples.appendingPathComponent("generated/rfc-only-4.0-20.vcf"), encoding: .utf8)
        let cards = try VCardReader.read(text).cards
        #expect(cards.count == 20)
        let xml = XCardWriter().bytes(for: cards)
        #expect(try Self.rfcSchema.get().validate(xml) == [])
    }

    static let upperCaseVocabulary = TestPaths.fixtures("VCardXMLTests").appendingPathComponent("rfc6350-vocabulary-upper-case.vcf")

    @Test func writesRegisteredTypeValuesInTheirRegisteredCase() throws {
        let cards = try VCardReader.read(Array(Data(contentsOf: Self.upperCaseVocabulary))).cards
        let xml = String(decoding: XCardWriter().bytes(for: cards), as: UTF8.self)
        for value in ["work", "voice", "cell", "home", "friend", "co-worker", "text", "fax"] {
            #expect(xml.contains("<text>\(value)</text>"), "\(value)")
        }
        for value in ["WORK", "Work", "VOICE", "Voice", "CELL", "HOME", "Friend", "CO-WORKER", "TEXT", "FAX"] {
            #expect(!xml.contains("<text>\(value)</text>"), "\(value)")
        }
        // Reading is case-insensitive, and nothing is lost.
        let back = try XCardReader.read(Array(xml.utf8))
        #expect(back.cards.map { CanonicalForm.properties(of: $0) } == cards.map { CanonicalForm.properties(of: $0) })
    }

    @Test func keepsTheCaseOfTypeValuesThatAreNotRegistered() throws {
        let card = try #require(try VCardReader.read("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:A\r\nTEL;TYPE=X-Satellite,MAIN:+1\r\nEND:VCARD\r\n").cards.first)
        let xml = String(decoding: XCardWriter().bytes(for: [card]), as: UTF8.self)
        #expect(xml.contains("<text>X-Satellite</text>"))
        #expect(xml.contains("<text>MAIN</text>"))
    }

    @Test func upperCaseRFCVocabularyValidatesAgainstTheUnextendedRFCSchema() throws {
        let cards = try VCardReader.read(Array(Data(contentsOf: Self.upperCaseVocabulary))).cards
        #expect(cards.count == 3)
        let xml = XCardWriter().bytes(for: cards)
        #expect(try Self.rfcSchema.get().validate(xml) == [])
        #expect(try Self.extendedSchema.get().validate(xml) == [])
    }

    @Test(.enabled(if: XMLLint.isAvailable, "xmllint (Debian libxml2-utils) is not installed"))
    func upperCaseRFCVocabularyValidatesWithXMLLint() throws {
        let cards = try VCardReader.read(Array(Data(contentsOf: Self.upperCaseVocabulary))).cards
        let xml = XCardWriter().bytes(for: cards)
        #expect(try XMLLint.problems(validating: xml, against: "xcard-rfc6351.rng") == [])
        #expect(try XMLLint.problems(validating: xml, against: "xcard.rng") == [])
    }

    @Test func readsAFullXCardDocument() throws {
        let url = TestPaths.fixtures("VCardXMLTests").appendingPathComponent("xcard-full.xml")
        let result = try XCardReader.read(Array(Data(contentsOf: url)), sourceName: "xcard-full.xml")
        #expect(result.diagnostics == [])
        let card = try #require(result.cards.first)
        #expect(card.formattedName == "Marguerite Tremblay")
        #expect(card.structuredName == StructuredName(family: ["Tremblay"], given: ["Marguerite"], prefixes: ["Dr."], suffixes: ["Ph.D.", "P.Eng."]))
        #expect(card.birthday == VCardDateAndOrTime(month: 9, day: 17))
        #expect(card.first("ANNIVERSARY")?.rawValue == "20110521T1600-0400")
        #expect(card.first("GENDER")?.components.first == ["F"])
        #expect(card.all("LANG").map(\.rawValue) == ["fr", "en"])
        #expect(card.all("LANG").map(\.preference) == [1, 2])
        #expect(card.organization == ["Laboratoire Boréal"])
        let address = try #require(card.addresses.first)
        #expect(address.street == ["410 rue des Érables, bureau 12"])
        #expect(address.locality == ["Sherbrooke"])
        #expect(address.label?.hasPrefix("Marguerite Tremblay\n410 rue des Érables") == true)
        #expect(card.telephones.first?.rawValue == "tel:+1-819-555-0142;ext=7")
        #expect(card.telephones.first?.parameter("VALUE")?.values == ["uri"])
        #expect(card.telephones.first?.preference == 1)
        #expect(card.telephones.last?.types == ["cell", "text"])
        #expect(card.emailAddresses == ["m.tremblay@boreal.example"])
        #expect(card.first("KEY")?.rawValue == "https://boreal.example/keys/tremblay.asc")
        #expect(card.first("TZ")?.rawValue == "America/Toronto")
        #expect(card.urls == ["https://tremblay.example"])
        #expect(card.first("GEO")?.rawValue == "geo:45.4010,-71.8929")
    }

    @Test(.needsSharedCorpus)
    func readsTheRFC6351Example() throws {
        let url = TestPaths.corpus.appendingPathComponent("ezvcard/rfc6351-example.xml")
        let result = try XCardReader.read(Array(Data(contentsOf: url)), sourceName: "rfc6351-example.xml")
        #expect(result.diagnostics == [])
        let card = try #require(result.cards.first)
        #expect(card.formattedName == "Simon Perreault")
        #expect(card.structuredName == StructuredName(family: ["Perreault"], given: ["Simon"], suffixes: ["ing. jr", "M.Sc."]))
        #expect(card.birthday == VCardDateAndOrTime(month: 2, day: 3))
        #expect(card.first("ANNIVERSARY")?.rawValue == "20090808T1430-0500")
        #expect(card.first("GENDER")?.components.first == ["M"])
        #expect(card.all("LANG").map(\.rawValue) == ["fr", "en"])
        #expect(card.all("LANG").map(\.preference) == [1, 2])
        #expect(card.organization == ["Viagenie"])
        let address = try #require(card.addresses.first)
        #expect(address.street == ["2875 boul. Laurier, suite D2-630"])
        #expect(address.label?.hasPrefix("Simon Perreault\n2875 boul. Laurier") == true)
        #expect(card.telephones.first?.rawValue == "tel:+1-418-656-9254;ext=102")
        #expect(card.telephones.first?.parameter("VALUE")?.values == ["uri"])
        #expect(card.emailAddresses == ["simon.perreault@viagenie.ca"])
        #expect(card.first("KEY")?.rawValue == "http://www.viagenie.ca/simon.perreault/simon.asc")
        #expect(card.first("TZ")?.rawValue == "America/Montreal")
        #expect(card.urls == ["http://nomis80.org"])
        #expect(card.first("GEO")?.rawValue == "geo:46.766336,-71.28955")
    }

    @Test func refusesExternalEntitiesWithoutReadingThem() throws {
        let bytes = try Array(Data(contentsOf: TestPaths.fixtures("VCardXMLTests").appendingPathComponent("xxe-file.xml")))
        let result = try XCardReader.read(bytes, sourceName: "xxe-file.xml")
        #expect(result.cards.isEmpty)
        #expect(result.diagnostics.contains { $0.code.rawValue == "doctype-rejected" && $0.severity == .error })
        #expect(!result.diagnostics.contains { $0.message.contains("root:") })
    }

    @Test func refusesEntityExpansionQuicklyWithBoundedMemory() throws {
        let bytes = try Array(Data(contentsOf: TestPaths.fixtures("VCardXMLTests").appendingPathComponent("billion-laughs.xml")))
        let result = try XCardReader.read(bytes, sourceName: "billion-laughs.xml")
        #expect(result.cards.isEmpty)
        #expect(result.diagnostics.contains { $0.severity == .error })
    }

    @Test func reportsMalformedXMLWithItsLine() throws {
        let bytes = Array("<?xml version=\"1.0\"?>\n<vcards xmlns=\"urn:ietf:params:xml:ns:vcard-4.0\">\n<vcard><fn><text>x</fn></vcard>\n</vcards>\n".utf8)
        let result = try XCardReader.read(bytes, sourceName: "broken.xml")
        let error = try #require(result.diagnostics.first { $0.severity == .error })
        #expect(error.code.rawValue == "invalid-xml")
        #expect(error.location.line == 3)
    }

    @Test func rejectsARootOutsideTheXCardNamespace() throws {
        let result = try XCardReader.read(Array("<contacts><vcard/></contacts>".utf8))
        #expect(result.diagnostics.contains { $0.code.rawValue == "not-xcard" })
    }

    @Test func keepsGroupsExtensionsAndForeignElements() throws {
        let text = "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:A\r\nitem1.EMAIL;TYPE=internet:a@example.com\r\nitem1.X-ABLabel:_$!<Other>!$_\r\nX-CUSTOM;X-PARAM=1,2:raw\\, value\r\nXML:<x:note xmlns:x=\"urn:example:x\">hi</x:note>\r\nEND:VCARD\r\n"
        let card = try #require(try VCardReader.read(text).cards.first)
        let xml = XCardWriter().bytes(for: [card])
        let xmlText = String(decoding: xml, as: UTF8.self)
        #expect(xmlText.contains("<group name=\"item1\">"))
        #expect(xmlText.contains("<x:note xmlns:x=\"urn:example:x\">hi</x:note>"))
        #expect(try Self.extendedSchema.get().validate(xml) == [])
        let back = try #require(try XCardReader.read(xml).cards.first)
        #expect(CanonicalForm.properties(of: back) == CanonicalForm.properties(of: card))
    }

    @Test func streamsALargeFileCardByCard() throws {
        let directory = try TestPaths.makeTemporaryDirectory("xcard-stream")
        defer { try? FileManager.default.removeItem(at: directory) }
        let card = try #require(try VCardReader.read("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Many\r\nEND:VCARD\r\n").cards.first)
        let path = directory.appendingPathComponent("many.xml").path
        let stream = XCardStreamWriter(indents: false)
        var bytes = stream.begin()
        for _ in 0..<2000 { bytes += stream.write(card) }
        bytes += stream.end()
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        var count = 0
        let diagnostics = XCardReader.readFile(atPath: path) { read in
            if read.formattedName == "Many" { count += 1 }
        }
        #expect(diagnostics == [])
        #expect(count == 2000)
    }
}
