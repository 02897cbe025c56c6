import Foundation
import Testing
import TestSupport
@testable import VCardKit

/// Blank lines before, between and after the cards of a file belong to the file: a file nobody
/// edited is written back identical, while the text of each card stays the card's alone.
@Suite struct FileLayoutTests {
    static let fileURL = TestPaths.fixtures("VCardKitTests").appendingPathComponent("blank-lines-between-cards.vcf")

    private func readFixture() throws -> (bytes: [UInt8], result: VCardReadResult) {
        let bytes = try Array(Data(contentsOf: Self.fileURL))
        return (bytes, try VCardReader.read(bytes, sourceName: "blank-lines-between-cards.vcf"))
    }

    @Test func keepsTheBlankLinesAroundEachCardAsRead() throws {
        let (_, result) = try readFixture()
        #expect(!result.hasErrors, "\(result.diagnostics)")
        #expect(result.cards.map(\.formattedName) == ["Ada Lovelace", "Charles Babbage", "Grace Hopper"])
        #expect(result.cards.map { String(decoding: $0.blankLinesBefore, as: UTF8.self) } == ["\r\n", "\r\n\r\n", "   \r\n"])
        #expect(result.blankLinesAtEnd == Array("\r\n".utf8))
        // Blank lines outside cards are no deviation.
        #expect(!result.diagnostics.contains { $0.code.rawValue == "blank-line" && $0.location.line != 22 })
    }

    @Test func writesAFileNobodyEditedBackByteForByte() throws {
        let (bytes, result) = try readFixture()
        #expect(VCardWriter().bytes(for: result) == bytes)
        var parts: [UInt8] = []
        let writer = VCardWriter()
        for card in result.cards { writer.write(card, asPartOfFile: true, into: &parts) }
        writer.write(blankLinesAtEnd: result.blankLinesAtEnd, into: &parts)
        #expect(parts == bytes)
    }

    @Test func writesACardOnItsOwnWithoutTheBlankLinesOfItsFile() throws {
        let (_, result) = try readFixture()
        for card in result.cards {
            #expect(VCardWriter().string(for: card).hasPrefix("BEGIN:VCARD\r\n"))
        }
        // The blank line that ends a vCard 2.1 base64 block is inside the card: it stays there.
        #expect(VCardWriter().string(for: result.cards[2]).hasSuffix("ErkJggg==\r\n\r\nEND:VCARD\r\n"))
    }

    @Test func keepsTheBlankLinesBetweenConvertedCardsButNotInsideThem() throws {
        let (_, result) = try readFixture()
        let text = String(decoding: VCardWriter(target: .v4_0).bytes(for: result), as: UTF8.self)
        #expect(text.hasPrefix("\r\nBEGIN:VCARD\r\nVERSION:4.0\r\nFN:Ada Lovelace\r\n"))
        #expect(text.contains("END:VCARD\r\n\r\n\r\nBEGIN:VCARD\r\nVERSION:4.0\r\nN:Babbage"))
        #expect(text.contains("END:VCARD\r\n   \r\nBEGIN:VCARD\r\nVERSION:4.0\r\nN:Hopper"))
        #expect(text.contains("ErkJggg==\r\nEND:VCARD\r\n\r\n"))
        #expect(text.hasSuffix("END:VCARD\r\n\r\n"))
        let reread = try VCardReader.read(text)
        #expect(!reread.hasErrors)
        #expect(reread.cards.map { CanonicalForm.properties(of: $0) } == result.cards.map { CanonicalForm.properties(of: $0) })
    }

    @Test func writesNoBlankLinesInCanonicalForm() throws {
        let (_, result) = try readFixture()
        let text = String(decoding: VCardWriter(preservesOriginalFormatting: false).bytes(for: result), as: UTF8.self)
        #expect(text.hasPrefix("BEGIN:VCARD\r\n"))
        #expect(!text.contains("\r\n\r\n"))
        #expect(!text.contains("\r\n   \r\n"))
    }

    @Test func aCardWhoseFormattingIsForgottenLosesItsBlankLines() throws {
        var card = try #require(try readFixture().result.cards.last)
        card.forgetOriginalFormatting()
        #expect(card.blankLinesBefore.isEmpty)
    }

    @Test func keepsBlankLinesOfLFFilesAndOfAFileThatStartsWithThem() throws {
        let text = "\n\nBEGIN:VCARD\nVERSION:4.0\nFN:A\nEND:VCARD\n\nBEGIN:VCARD\nVERSION:4.0\nFN:B\nEND:VCARD\n\n\n"
        let result = try VCardReader.read(text)
        #expect(result.diagnostics.isEmpty)
        #expect(VCardWriter().bytes(for: result) == Array(text.utf8))
    }

    @Test func readsTheSameBlankLinesWhenFedOneByteAtATime() throws {
        let (bytes, whole) = try readFixture()
        var parser = VCardParser(framingOnly: "blank-lines-between-cards.vcf")
        var frames: [VCardFrame] = []
        for byte in bytes {
            parser.feed([byte])
            while let frame = parser.nextFrame() { frames.append(frame) }
        }
        parser.finish()
        while let frame = parser.nextFrame() { frames.append(frame) }
        let cards = frames.compactMap { $0.parse().card }
        #expect(cards.map(\.blankLinesBefore) == whole.cards.map(\.blankLinesBefore))
        #expect(parser.blankLinesAtEnd == whole.blankLinesAtEnd)
    }
}
