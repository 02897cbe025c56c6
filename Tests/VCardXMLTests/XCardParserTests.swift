import Foundation
import Testing
import TestSupport
import VCardKit
@testable import VCardXML

/// The chunk-fed xCard reader: the same cards and diagnostics whatever the chunk size, and the
/// card and card-count limits.
@Suite struct XCardParserTests {
    static func card(_ name: String, note: String? = nil) -> VCard {
        var properties = [VCardProperty(name: "FN", text: name)]
        if let note { properties.append(VCardProperty(name: "NOTE", text: note)) }
        return VCard(properties: properties)
    }

    /// One card per line, so that a card's line is its position plus two.
    static func document(_ cards: [VCard]) -> [UInt8] {
        let stream = XCardStreamWriter(indents: false)
        var bytes = stream.begin()
        for card in cards {
            bytes += stream.write(card)
            if bytes.last != 0x0A { bytes.append(0x0A) }
        }
        return bytes + stream.end()
    }

    static func read(_ bytes: [UInt8], chunkSize: Int, options: VCardReadOptions = .lenient) -> (cards: [VCard], diagnostics: [Diagnostic]) {
        var start = 0
        var cards: [VCard] = []
        let diagnostics = XCardReader.read(chunks: {
            guard start < bytes.count else { return nil }
            defer { start = min(start + chunkSize, bytes.count) }
            return Array(bytes[start..<min(start + chunkSize, bytes.count)])
        }, sourceName: "input.xml", options: options) { cards.append($0) }
        return (cards, diagnostics)
    }

    static let inputs: [String: [UInt8]] = {
        var inputs: [String: [UInt8]] = [
            "cards": document((1...50).map { card("N\($0)", note: String(repeating: "x", count: $0 * 40)) }),
            "broken": Array("<?xml version=\"1.0\"?>\n<vcards xmlns=\"urn:ietf:params:xml:ns:vcard-4.0\">\n<vcard><fn><text>x</text></fn></vcard>\n<vcard><fn><text>x</fn></vcard>\n</vcards>\n".utf8),
            "not-xcard": Array("<contacts><vcard/></contacts>".utf8),
        ]
        for entry in CorpusIndex.entries where entry.version == "xcard" {
            if let data = try? Data(contentsOf: entry.url) { inputs[entry.path] = Array(data) }
        }
        return inputs
    }()

    @Test(arguments: inputs.keys.sorted(), [1, 7, 4096])
    func readsTheSameInAnyChunkSize(_ name: String, chunkSize: Int) throws {
        let bytes = try #require(Self.inputs[name])
        let whole = try XCardReader.read(bytes, sourceName: "input.xml")
        let streamed = Self.read(bytes, chunkSize: chunkSize)
        if name == "broken" {
            // libxml2 reads ahead: with the whole input at hand it meets the broken second card
            // before handing out the first, with small chunks it does not.
            #expect(Array(streamed.cards.prefix(whole.cards.count)) == whole.cards)
            #expect(streamed.cards.count <= 1)
        } else {
            #expect(streamed.cards == whole.cards)
        }
        #expect(Array(streamed.cards.map(\.location).prefix(whole.cards.count)) == whole.cards.map(\.location))
        #expect(streamed.diagnostics == whole.diagnostics)
        if name == "cards" { #expect(streamed.cards.count == 50) }
    }

    @Test func readsNoMoreThanTheMaximumNumberOfCards() {
        let result = Self.read(Self.document((1...5).map { Self.card("N\($0)") }), chunkSize: 100, options: VCardReadOptions(maximumCards: 3))
        #expect(result.cards.map(\.formattedName) == ["N1", "N2", "N3"])
        #expect(result.diagnostics.map(\.code.rawValue) == ["limit-exceeded"])
        #expect(result.diagnostics.first?.location.line == 6)
    }

    @Test func stopsAtACardLargerThanTheLimitNamingItsLine() {
        let cards = [Self.card("A"), Self.card("B"), Self.card("Huge", note: String(repeating: "y", count: 100_000)), Self.card("C")]
        let result = Self.read(Self.document(cards), chunkSize: 4096, options: VCardReadOptions(maximumCardBytes: 20_000))
        #expect(result.cards.map(\.formattedName) == ["A", "B"])
        #expect(result.diagnostics.map(\.code.rawValue) == ["limit-exceeded"])
        #expect(result.diagnostics.first?.location.line == 5)
    }

    @Test func readsAFileInChunksWithTheLimits() throws {
        let directory = try TestPaths.makeTemporaryDirectory("xcard-limits")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("cards.xml").path
        try Data(Self.document((1...4).map { Self.card("N\($0)") })).write(to: URL(fileURLWithPath: path))
        var names: [String?] = []
        let diagnostics = XCardReader.readFile(atPath: path, options: VCardReadOptions(maximumCards: 2)) { names.append($0.formattedName) }
        #expect(names == ["N1", "N2"])
        #expect(diagnostics.map(\.code.rawValue) == ["limit-exceeded"])
    }
}
