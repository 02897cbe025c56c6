import Foundation
import SampleGenerator
import Testing
import TestSupport
@testable import VCardKit

/// ``PlainCardReader`` is a fast path: for every card it accepts it must give what the full
/// reader gives, property for property and byte for byte, and it must refuse every card whose
/// syntax the full reader treats specially.
@Suite struct PlainCardReaderTests {
    /// The cards of a text input as the full reader frames them.
    static func frames(_ bytes: [UInt8], source: String) -> [VCardFrame] {
        var parser = VCardParser(framingOnly: source)
        parser.feed(bytes)
        parser.finish()
        var frames: [VCardFrame] = []
        while let frame = parser.nextFrame() { frames.append(frame) }
        return frames
    }

    /// Compares the fast reader with the full reader on one card; answers whether the fast reader took it.
    @discardableResult
    static func expectSameAsFullReader(_ frame: VCardFrame, selecting names: Set<String>? = nil,
                                       sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Bool {
        guard let fast = PlainCardReader.read(frame.text[...], sourceName: frame.sourceName, firstLine: frame.firstLine,
                                                selecting: names) else { return false }
        guard let full = frame.parse().card else {
            Issue.record("the fast reader read a card the full reader drops: \(String(decoding: frame.text, as: UTF8.self))", sourceLocation: sourceLocation)
            return true
        }
        let expected = names.map { names in full.properties.filter { $0.hasName("VERSION") || names.contains($0.name.uppercased()) } }
            ?? full.properties
        #expect(fast.properties == expected, "\(frame.sourceName):\(frame.firstLine)", sourceLocation: sourceLocation)
        #expect(fast.properties.map(\.original) == expected.map(\.original), "originals of \(frame.sourceName):\(frame.firstLine)",
                sourceLocation: sourceLocation)
        #expect(fast.properties.map(\.line) == expected.map(\.line), sourceLocation: sourceLocation)
        #expect(fast.sourceVersion == full.sourceVersion, sourceLocation: sourceLocation)
        if names == nil {
            #expect(VCardWriter(target: nil).bytes(for: fast) == frame.text, "write-back of \(frame.sourceName):\(frame.firstLine)",
                    sourceLocation: sourceLocation)
        }
        return true
    }

    @Test(.needsSharedCorpus) func readsEveryPlainCardOfTheCorpusAsTheFullReaderDoes() throws {
        var taken = 0, total = 0
        for entry in CorpusIndex.entries where entry.isVCardText {
            let bytes = try Array(Data(contentsOf: entry.url))
            for frame in Self.frames(bytes, source: entry.path) {
                total += 1
                if Self.expectSameAsFullReader(frame) { taken += 1 }
                Self.expectSameAsFullReader(frame, selecting: ["FN", "N", "EMAIL", "TEL"])
            }
        }
        print("plain card reader: \(taken) of \(total) corpus cards took the fast path")
        if CorpusIndex.isAvailable { #expect(taken > 0) }
    }

    @Test func readsMostGeneratedCardsAsTheFullReaderDoes() {
        var book: [UInt8] = []
        _ = AddressBookGenerator(options: GeneratorOptions(count: 3000, seed: 7, version: .mixed, photoRate: 0.1,
                                                           duplicateRate: 0.05, nearDuplicateRate: 0.05)).write(to: &book)
        let frames = Self.frames(book, source: "generated.vcf")
        var taken = 0
        for frame in frames {
            if Self.expectSameAsFullReader(frame) { taken += 1 }
            Self.expectSameAsFullReader(frame, selecting: ["FN", "N", "ORG", "EMAIL", "TEL", "BDAY", "UID"])
        }
        // The generator writes 2.1 cards (quoted-printable, base64 blocks) among the others;
        // the 3.0 and 4.0 ones are plain.
        print("plain card reader: \(taken) of \(frames.count) generated cards took the fast path")
        #expect(taken * 2 > frames.count)
    }

    @Test func readsEverySampleCardItAcceptsAsTheFullReaderDoes() throws {
        let files = try FileManager.default.subpathsOfDirectory(atPath: TestPaths.samples.path).filter { $0.hasSuffix(".vcf") }.sorted()
        #expect(!files.isEmpty)
        for file in files {
            let bytes = try Array(Data(contentsOf: TestPaths.samples.appendingPathComponent(file)))
            for frame in Self.frames(bytes, source: file) { Self.expectSameAsFullReader(frame) }
        }
    }

    @Test(arguments: [
        ("2.1", "BEGIN:VCARD\r\nVERSION:2.1\r\nFN:A\r\nEND:VCARD\r\n"),
        ("no VERSION", "BEGIN:VCARD\r\nFN:A\r\nEND:VCARD\r\n"),
        ("VERSION with a parameter", "BEGIN:VCARD\r\nVERSION;X-A=1:4.0\r\nFN:A\r\nEND:VCARD\r\n"),
        ("blank line", "BEGIN:VCARD\r\nVERSION:4.0\r\n\r\nFN:A\r\nEND:VCARD\r\n"),
        ("white-space-only fold", "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:A\r\n \r\nEND:VCARD\r\n"),
        ("lone carriage return", "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:A\rB\r\nEND:VCARD\r\n"),
        ("carriage return before a line end's", "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:A\r\r\nEND:VCARD\r\n"),
        ("carriage return opening a line", "BEGIN:VCARD\r\nVERSION:4.0\r\n\rFN:A\r\nEND:VCARD\r\n"),
        ("carriage return ending the input", "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:A\r\nEND:VCARD\r"),
        ("unclosed quote", "BEGIN:VCARD\r\nVERSION:4.0\r\nTEL;TYPE=\"a:1\r\nEND:VCARD\r\n"),
        ("quoted-printable", "BEGIN:VCARD\r\nVERSION:3.0\r\nNOTE;ENCODING=QUOTED-PRINTABLE:a=\r\nb\r\nEND:VCARD\r\n"),
        ("quoted-printable named elsewhere", "BEGIN:VCARD\r\nVERSION:3.0\r\nNOTE;X-A=QUOTED-PRINTABLE:a=\r\nb:c\r\nEND:VCARD\r\n"),
        ("charset", "BEGIN:VCARD\r\nVERSION:3.0\r\nFN;CHARSET=ISO-8859-1:A\r\nEND:VCARD\r\n"),
        ("bare B", "BEGIN:VCARD\r\nVERSION:3.0\r\nPHOTO;B:AAAA\r\nEND:VCARD\r\n"),
        ("control character", "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:A\u{01}B\r\nEND:VCARD\r\n"),
        ("trailing backslash", "BEGIN:VCARD\r\nVERSION:4.0\r\nNOTE:a\\\r\nb\r\nEND:VCARD\r\n"),
        ("not a property line", "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:A\r\njust text\r\nEND:VCARD\r\n"),
        ("AGENT", "BEGIN:VCARD\r\nVERSION:3.0\r\nAGENT:BEGIN:VCARD\r\nEND:VCARD\r\n"),
        ("nested card", "BEGIN:VCARD\r\nVERSION:4.0\r\nBEGIN:VCARD\r\nEND:VCARD\r\nEND:VCARD\r\n"),
        ("two groups", "BEGIN:VCARD\r\nVERSION:4.0\r\na.b.FN:A\r\nEND:VCARD\r\n"),
        ("empty parameter", "BEGIN:VCARD\r\nVERSION:4.0\r\nTEL;;TYPE=cell:1\r\nEND:VCARD\r\n"),
    ])
    func leavesSpecialSyntaxToTheFullReader(_ case: (String, String)) {
        #expect(PlainCardReader.read(Array(`case`.1.utf8)[...], sourceName: "t") == nil, "\(`case`.0)")
        // Reading only some properties, the special line is one of them.
        #expect(PlainCardReader.read(Array(`case`.1.utf8)[...], sourceName: "t", selecting: ["FN", "TEL", "ADR", "PHOTO", "NOTE"]) == nil,
                "\(`case`.0), selecting")
    }

    @Test func leavesTheCardToTheFullReaderWhenALineNotSelectedHasParametersItDrops() throws {
        // The quotes pair up on the ORG line, but the second opens a quoted TYPE value that never
        // closes: the full reader finds no value, drops the line and keeps its bytes with FN's.
        let card = Array("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:A\r\nORG;X-A=a\"b;TYPE=c\"d:e\r\nEND:VCARD\r\n".utf8)
        let full = try VCardReader.read(card, sourceName: "t")
        #expect(full.cards.first?.properties.map(\.name) == ["VERSION", "FN"])
        #expect(PlainCardReader.read(card[...], sourceName: "t", selecting: ["FN"]) == nil)
        #expect(PlainCardReader.read(card[...], sourceName: "t") == nil)
    }

    @Test func readsAroundALineNotSelectedWhoseValueIsEncoded() throws {
        // A 3.0 photo in base64 is not decoded when PHOTO is not selected: the card keeps the fast path.
        let card = Array("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:A\r\nPHOTO;ENCODING=b;TYPE=JPEG:AAAA\r\nPHOTO;B:AAAA\r\nEND:VCARD\r\n".utf8)
        let fast = try #require(PlainCardReader.read(card[...], sourceName: "t", selecting: ["FN"]))
        #expect(fast.properties.map(\.name) == ["VERSION", "FN"])
        #expect(PlainCardReader.read(card[...], sourceName: "t") == nil)
    }

    @Test func readsFoldsGroupsBareParametersAndUTF8() throws {
        let text = "BEGIN:VCARD\r\nVERSION:3.0\r\nitem1.EMAIL;TYPE=INTERNET,pref;HOME:ada@example.com\r\nTEL;TYPE=\"cell,voice\";X-A=\"a;b:c,d\";X-B=e,f^n^^^'^x:+1 555\r\nFN:Ad\r\n a Lové\r\n lace\r\nNOTE:x\\, y\r\nEND:VCARD\r\n"
        let frame = try #require(Self.frames(Array(text.utf8), source: "t").first)
        #expect(Self.expectSameAsFullReader(frame))
        let card = try #require(PlainCardReader.read(frame.text[...], sourceName: "t"))
        #expect(card.formattedName == "Ada Lovélace")
        #expect(card.first("EMAIL")?.group == "item1")
        #expect(card.first("EMAIL")?.parameters.count == 2)
        #expect(card.first("TEL")?.parameters.map(\.values) == [["cell", "voice"], ["a;b:c,d"], ["e", "f\n^\"^x"]])
        let selected = try #require(PlainCardReader.read(frame.text[...], sourceName: "t", selecting: ["FN"]))
        #expect(selected.properties.map(\.name) == ["VERSION", "FN"])
    }

    /// The parameters of a line not selected are only scanned for where they end; the scan must
    /// take and refuse what reading them takes and refuses, so that a card goes to the full
    /// reader for the same lines whether or not they are selected.
    @Test(arguments: [
        (";TYPE=\"cell,voice\",pref", true),
        (";X-A=\"a;b:c,d\";X-B=e", true),
        (";X-A=a\"b", true),
        (";TYPE=a\"b,c\"d", true),
        (";LABEL=\"a,b\",c", true),
        (";X-A=f^n^^^'^x", true),
        (";X-A=a\tb", true),
        (";X-A=é,ü;HOME", true),
        (";X-A=", true),
        (";X-A=\"ab", false),
        (";X-A=a\u{01}b", false),
        (";=a", false),
        (";X_A=1", false),
        (";;X-A=1", false),
        (";X-A=\"a\"b\"", true),
    ])
    func scansTheParametersOfALineNotSelectedAsItReadsThem(_ case: (parameters: String, isTaken: Bool)) {
        let card = Array("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:A\r\nX-P\(`case`.parameters):v\r\nEND:VCARD\r\n".utf8)
        let selected = PlainCardReader.read(card[...], sourceName: "t", selecting: ["FN", "X-P"])
        let notSelected = PlainCardReader.read(card[...], sourceName: "t", selecting: ["FN"])
        #expect((selected != nil) == `case`.isTaken, "\(`case`.parameters), selected")
        #expect((notSelected != nil) == `case`.isTaken, "\(`case`.parameters), not selected")
        if let frame = Self.frames(card, source: "t").first {
            Self.expectSameAsFullReader(frame, selecting: ["FN"])
            Self.expectSameAsFullReader(frame, selecting: ["FN", "X-P"])
        }
    }

    @Test func refusesAParameterValueThatIsNotUTF8OnALineNotSelected() {
        let card = Array("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:A\r\nX-P;X-A=a".utf8) + [0xC3, 0x28] + Array(":v\r\nEND:VCARD\r\n".utf8)
        #expect(PlainCardReader.read(card[...], sourceName: "t", selecting: ["FN", "X-P"]) == nil)
        #expect(PlainCardReader.read(card[...], sourceName: "t", selecting: ["FN"]) == nil)
    }
}
