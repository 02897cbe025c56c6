import Foundation
import Testing
import TestSupport
@testable import VCardKit

/// vCard 2.1 nests a card inside a card as its `AGENT`, with or without the `AGENT:` line before
/// the embedded `BEGIN:VCARD`: the outer card is kept, the embedded card is its `AGENT` value, and
/// both are written back as they were.
@Suite struct NestedCardTests {
    static let fileURL = TestPaths.fixtures("VCardKitTests").appendingPathComponent("nested-agent-2.1.vcf")

    private func readFixture() throws -> (bytes: [UInt8], result: VCardReadResult) {
        let bytes = try Array(Data(contentsOf: Self.fileURL))
        return (bytes, try VCardReader.read(bytes, sourceName: "nested-agent-2.1.vcf"))
    }

    @Test func keepsTheOuterCardsAndTheirEmbeddedCardsAsAgents() throws {
        let (_, result) = try readFixture()
        #expect(!result.hasErrors, "\(result.diagnostics)")
        #expect(result.cards.map(\.formattedName) == ["Beatrix Bossman", "Carla Chief"])
        #expect(result.cards[0].properties.map(\.name) == ["VERSION", "N", "FN", "TEL", "AGENT", "EMAIL"])
        #expect(result.cards[1].properties.map(\.name) == ["VERSION", "N", "FN", "AGENT", "TEL"])
        let agents = result.cards.compactMap { $0.first("AGENT")?.textValue }
        #expect(agents[0].hasPrefix("BEGIN:VCARD\nVERSION:2.1\nN:Helper;Hugo\nFN:Hugo Helper\n"))
        #expect(agents[1] == "BEGIN:VCARD\nVERSION:2.1\nN:Deputy;Dan\nFN:Dan Deputy\nEND:VCARD\n")
        // The embedded cards are cards in their own right.
        let embedded = try agents.map { try #require(try VCardReader.read($0).cards.first) }
        #expect(embedded.map(\.formattedName) == ["Hugo Helper", "Dan Deputy"])
        #expect(embedded[0].first("NOTE")?.textValue == "Reachable 9-17,\nask first")
    }

    @Test func saysWhereACardIsNestedWithoutAnAgentLine() throws {
        let (_, result) = try readFixture()
        let nested = result.diagnostics.filter { $0.code.rawValue == "nested-card-without-agent" }
        #expect(nested.map(\.severity) == [.warning])
        #expect(nested.map(\.location) == [SourceLocation(source: "nested-agent-2.1.vcf", line: 21, column: 1)])
        #expect(result.cards[1].first("AGENT")?.line == 21)
    }

    @Test func writesTheCardsAndTheFileBackByteForByte() throws {
        let (bytes, result) = try readFixture()
        #expect(result.cards.allSatisfy { $0.isUnedited })
        #expect(VCardWriter().bytes(for: result) == bytes)
        let secondCard = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n\r\n")[1]
        #expect(VCardWriter().string(for: result.cards[1]) == secondCard)
    }

    @Test func convertsTo30WithTheEmbeddedCardAsEscapedText() throws {
        let (_, result) = try readFixture()
        let text = VCardWriter(target: .v3_0).string(for: result.cards[1])
        #expect(text.contains("\r\nAGENT:BEGIN:VCARD\\nVERSION:2.1\\nN:Deputy\\;Dan\\nFN:Dan Deputy\\nEND:VCARD\\n\r\n"))
        let reread = try VCardReader.read(text)
        #expect(!reread.hasErrors)
        #expect(reread.cards.first?.first("AGENT")?.textValue == result.cards[1].first("AGENT")?.textValue)
        #expect(CanonicalForm.properties(of: try #require(reread.cards.first)) == CanonicalForm.properties(of: result.cards[1]))
    }

    @Test func keepsAgentWhenConvertingTo40AndSaysThat40LacksIt() throws {
        let (_, result) = try readFixture()
        var output: [UInt8] = []
        let notes = VCardWriter(target: .v4_0).write(result.cards[0], into: &output)
        #expect(notes.map(\.code.rawValue) == ["property-not-in-version"])
        #expect(notes.first?.location.line == 6)
        let reread = try #require(try VCardReader.read(output).cards.first)
        #expect(reread.first("AGENT")?.textValue == result.cards[0].first("AGENT")?.textValue)
        #expect(CanonicalForm.properties(of: reread) == CanonicalForm.properties(of: result.cards[0]))
    }

    @Test func joinsAnAgentLineFollowedByABlankLineToTheCardAfterIt() throws {
        let text = "BEGIN:VCARD\r\nVERSION:2.1\r\nN:Boss\r\nAGENT:\r\n\r\nBEGIN:VCARD\r\nVERSION:2.1\r\nN:Aide\r\nEND:VCARD\r\nEND:VCARD\r\n"
        let result = try VCardReader.read(text)
        #expect(result.cards.first?.all("AGENT").map(\.textValue) == ["BEGIN:VCARD\nVERSION:2.1\nN:Aide\nEND:VCARD\n"])
        #expect(result.diagnostics.map(\.code.rawValue) == ["blank-line"])
        #expect(VCardWriter().string(for: try #require(result.cards.first)) == text)
    }

    @Test func stillReportsACardWithoutEndBeforeTheNextCards() throws {
        // The first card has no END:VCARD: the cards after it are cards of their own, not AGENTs.
        let text = "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Open\r\n"
            + "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Second\r\nEND:VCARD\r\n\r\n"
            + "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Third\r\nEND:VCARD\r\n"
        let result = try VCardReader.read(text, sourceName: "open.vcf")
        #expect(result.cards.map(\.formattedName) == ["Second", "Third"])
        #expect(result.cards.allSatisfy { $0.first("AGENT") == nil })
        let errors = result.diagnostics.filter { $0.severity == .error }
        #expect(errors.map(\.code.rawValue) == ["missing-end"])
        #expect(errors.first?.location == SourceLocation(source: "open.vcf", line: 1, column: 1))
        #expect(result.cards[1].blankLinesBefore == Array("\r\n".utf8))
    }

    @Test func reportsACardWithoutEndWhoseLastCardEndsTheInput() throws {
        let text = "BEGIN:VCARD\nVERSION:4.0\nFN:Open\nBEGIN:VCARD\nVERSION:4.0\nFN:Last\nEND:VCARD\n"
        let result = try VCardReader.read(text)
        #expect(result.cards.map(\.formattedName) == ["Last"])
        #expect(result.diagnostics.filter { $0.severity == .error }.map(\.code.rawValue) == ["missing-end"])
    }

    @Test func readsTheNestedCardsWhenFedOneByteAtATime() throws {
        let (bytes, whole) = try readFixture()
        var parser = VCardParser(sourceName: "nested-agent-2.1.vcf")
        var cards: [VCard] = []
        for byte in bytes {
            parser.feed([byte])
            while let card = parser.nextCard() { cards.append(card) }
        }
        parser.finish()
        while let card = parser.nextCard() { cards.append(card) }
        #expect(cards == whole.cards)
        #expect(parser.takeDiagnostics() == whole.diagnostics)
    }
}
