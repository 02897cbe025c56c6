import Foundation
import JSONText
import Testing
import TestSupport
@testable import VCardKit

/// jCard (RFC 7095): the RFC's example reads as the RFC says, values move between jCard's
/// extended forms and vCard's basic ones, and broken JSON is reported with its position.
@Suite struct JCardTests {
    /// A jCard of our own with the extended forms RFC 7095 gives dates, offsets, structured
    /// values and URIs.
    static let fullJCard = #"""
    ["vcard",
      [
        ["version", {}, "text", "4.0"],
        ["fn", {}, "text", "Marguerite Tremblay"],
        ["n", {}, "text", ["Tremblay", "Marguerite", "", "Dr.", ["Ph.D.", "P.Eng."]]],
        ["bday", {}, "date-and-or-time", "--09-17"],
        ["anniversary", {}, "date-and-or-time", "2011-05-21T16:00:00-04:00"],
        ["gender", {}, "text", "F"],
        ["lang", {"pref": "1"}, "language-tag", "fr"],
        ["lang", {"pref": "2"}, "language-tag", "en"],
        ["org", {"type": "work"}, "text", "Laboratoire Boréal"],
        ["adr", {"type": "work"}, "text", ["", "Bureau 12", "410 rue des Érables", "Sherbrooke", "QC", "J1H 4A7", "Canada"]],
        ["tel", {"type": ["work", "voice"], "pref": "1"}, "uri", "tel:+1-819-555-0142;ext=7"],
        ["tel", {"type": ["cell", "text"]}, "uri", "tel:+1-819-555-0199"],
        ["email", {"type": "work"}, "text", "m.tremblay@boreal.example"],
        ["tz", {}, "utc-offset", "-05:00"],
        ["url", {"type": "home"}, "uri", "https://tremblay.example"]
      ]
    ]
    """#

    @Test func readsAFullJCard() throws {
        let result = try JCardReader.read(Array(Self.fullJCard.utf8), sourceName: "full.json")
        #expect(result.diagnostics == [])
        let card = try #require(result.cards.first)
        #expect(card.version == .v4_0)
        #expect(card.formattedName == "Marguerite Tremblay")
        #expect(card.structuredName == StructuredName(family: ["Tremblay"], given: ["Marguerite"], prefixes: ["Dr."], suffixes: ["Ph.D.", "P.Eng."]))
        #expect(card.first("BDAY")?.rawValue == "--0917")
        #expect(card.first("ANNIVERSARY")?.rawValue == "20110521T160000-0400")
        #expect(card.all("LANG").map(\.rawValue) == ["fr", "en"])
        #expect(card.all("LANG").map(\.preference) == [1, 2])
        #expect(card.organization == ["Laboratoire Boréal"])
        #expect(card.addresses.first?.extended == ["Bureau 12"])
        #expect(card.addresses.first?.street == ["410 rue des Érables"])
        let tel = try #require(card.telephones.first)
        #expect(tel.rawValue == "tel:+1-819-555-0142;ext=7")
        #expect(tel.types == ["work", "voice"])
        #expect(tel.preference == 1)
        #expect(tel.parameter("VALUE")?.values == ["uri"])
        #expect(card.telephones.last?.types == ["cell", "text"])
        #expect(card.first("TZ")?.rawValue == "-0500")
        #expect(card.first("TZ")?.parameter("VALUE")?.values == ["utc-offset"])
        #expect(card.urls == ["https://tremblay.example"])
    }

    @Test(.needsSharedCorpus)
    func readsTheRFC7095Example() throws {
        let url = TestPaths.corpus.appendingPathComponent("ezvcard/jcard-example.json")
        let result = try JCardReader.read(Array(Data(contentsOf: url)), sourceName: "jcard-example.json")
        #expect(result.diagnostics == [])
        let card = try #require(result.cards.first)
        #expect(card.version == .v4_0)
        #expect(card.formattedName == "Simon Perreault")
        #expect(card.structuredName == StructuredName(family: ["Perreault"], given: ["Simon"], suffixes: ["ing. jr", "M.Sc."]))
        #expect(card.first("BDAY")?.rawValue == "--0203")
        #expect(card.first("ANNIVERSARY")?.rawValue == "20090808T143000-0500")
        #expect(card.all("LANG").map(\.rawValue) == ["fr", "en"])
        #expect(card.all("LANG").map(\.preference) == [1, 2])
        #expect(card.organization == ["Viagenie"])
        #expect(card.addresses.first?.extended == ["Suite D2-630"])
        #expect(card.addresses.first?.street == ["2875 Laurier"])
        let tel = try #require(card.telephones.first)
        #expect(tel.rawValue == "tel:+1-418-656-9254;ext=102")
        #expect(tel.types == ["work", "voice"])
        #expect(tel.preference == 1)
        #expect(tel.parameter("VALUE")?.values == ["uri"])
        #expect(card.telephones.last?.types == ["work", "cell", "voice", "video", "text"])
        #expect(card.first("TZ")?.rawValue == "-0500")
        #expect(card.first("TZ")?.parameter("VALUE")?.values == ["utc-offset"])
        #expect(card.urls == ["http://nomis80.org"])
    }

    /// Found by fuzzing: a utc-offset value that is not an offset lost its colons on reading.
    @Test func aUTCOffsetThatIsNotAnOffsetKeepsItsColons() throws {
        let json = #"["vcard",[["version",{},"text","4.0"],["tz",{},"utc-offset","GMT+05:30"],["x-a",{},"utc-offset","-05:00"]]]"#
        let card = try #require(try JCardReader.read(Array(json.utf8)).cards.first)
        #expect(card.first("TZ")?.rawValue == "GMT+05:30")
        #expect(card.first("X-A")?.rawValue == "-0500")
        let written = String(decoding: JCardWriter().bytes(for: [card]), as: UTF8.self)
        #expect(written.contains(#"["tz",{},"utc-offset","GMT+05:30"]"#))
        #expect(written.contains(#""utc-offset","-05:00"]"#))
    }

    @Test func writesTheExtendedFormsJCardUses() throws {
        let text = "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:A\r\nBDAY:19850412\r\nANNIVERSARY:--0412\r\nREV:20080424T195243Z\r\nTZ;VALUE=utc-offset:-0500\r\nN:Doe;Jane;Ann,Marie;;\r\nCATEGORIES:a,b\\,c\r\nitem1.X-FOO;X-P=1:raw\\,value\r\nEND:VCARD\r\n"
        let card = try #require(try VCardReader.read(text).cards.first)
        let json = String(decoding: JCardWriter().bytes(for: [card]), as: UTF8.self)
        #expect(json.contains(#"["bday",{},"date-and-or-time","1985-04-12"]"#))
        #expect(json.contains(#"["anniversary",{},"date-and-or-time","--04-12"]"#))
        #expect(json.contains(#"["rev",{},"timestamp","2008-04-24T19:52:43Z"]"#))
        #expect(json.contains(#"["tz",{},"utc-offset","-05:00"]"#))
        #expect(json.contains(#"["n",{},"text",["Doe","Jane",["Ann","Marie"],"",""]]"#))
        #expect(json.contains(#"["categories",{},"text","a","b,c"]"#))
        #expect(json.contains(#"["x-foo",{"group":"item1","x-p":"1"},"unknown","raw\\,value"]"#))
        let back = try #require(try JCardReader.read(Array(json.utf8)).cards.first)
        #expect(CanonicalForm.properties(of: back) == CanonicalForm.properties(of: card))
    }

    @Test func reportsBrokenJSONWithLineAndColumn() throws {
        let result = try JCardReader.read(Array("[\"vcard\",\n  [[\"fn\", {}, \"text\" \"x\"]]]".utf8), sourceName: "broken.json")
        let error = try #require(result.diagnostics.first)
        #expect(error.severity == .error)
        #expect(error.code.rawValue == "invalid-json")
        #expect(error.location.line == 2)
        #expect(error.location.column == 22)
    }

    @Test func rejectsDeepNestingWithoutExhaustingTheStack() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let result = try JCardReader.read(Array(deep.utf8))
        #expect(result.diagnostics.contains { $0.code.rawValue == "invalid-json" && $0.message.contains("nested deeper") })
    }

    @Test func schemaCheckFindsAPropertyWithoutValue() throws {
        let schema = try JSONSchema(parsing: Array(Data(contentsOf: TestPaths.repositoryRoot.appendingPathComponent("Schemas/jcard.schema.json"))))
        #expect(try schema.violations(in: Array(#"["vcard",[["fn",{},"text","A"]]]"#.utf8)) == [])
        #expect(try !schema.violations(in: Array(#"["vcard",[["fn",{},"text"]]]"#.utf8)).isEmpty)
        #expect(try !schema.violations(in: Array(#"["vcard",[["FN",{},"text","A"]]]"#.utf8)).isEmpty)
        #expect(try !schema.violations(in: Array(#"["vcard",[["fn",{},"txt","A"]]]"#.utf8)).isEmpty)
    }
}

/// Lone UTF-16 surrogates in jCard strings (the first was an arithmetic overflow, found by fuzzing).
struct JCardSurrogateTests {
    @Test(arguments: [
        (#"\udadd\udade"#, "\u{FFFD}\u{FFFD}"),
        (#"\ud83d\u0041"#, "\u{FFFD}A"),
        (#"\ud83d\ude00"#, "😀"),
        (#"\udc00"#, "\u{FFFD}"),
    ])
    func aLoneSurrogateBecomesAReplacementCharacter(escaped: String, expected: String) throws {
        let text = #"["vcard",[["version",{},"text","4.0"],["fn",{},"text",""# + escaped + #""]]]"#
        let result = try JCardReader.read(Array(text.utf8))
        #expect(result.cards.first?.formattedName == expected)
    }
}
