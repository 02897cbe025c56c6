import Foundation
import JSONText
import Testing
import TestSupport
@testable import VCardKit

/// Every file of the real-world corpus (`../shared/corpus/INDEX.tsv`) is read with the outcome
/// its `expected` column states, written back byte for byte, and converted between versions
/// without losing a property, parameter or value.
@Suite struct CorpusConformanceTests {
    static let textEntries = CorpusIndex.entries.filter(\.isVCardText)
    static let jCardEntries = CorpusIndex.entries.filter { $0.version == "jcard" }

    @Test func corpusIsPresentInCI() {
        if ProcessInfo.processInfo.environment["CI"] != nil {
            #expect(CorpusIndex.isAvailable, "../shared/corpus/INDEX.tsv is missing: CI must run the corpus conformance tests")
        }
    }

    @Test(.needsSharedCorpus, arguments: textEntries)
    func readsWithTheOutcomeTheIndexStates(_ entry: CorpusEntry) throws {
        let bytes = try Array(Data(contentsOf: entry.url))
        let result = try VCardReader.read(bytes, sourceName: entry.path)
        let errors = result.diagnostics.filter { $0.severity == .error }
        let warnings = result.diagnostics.filter { $0.severity == .warning }
        switch entry.expected {
        case .valid:
            #expect(errors.isEmpty, "\(errors)")
            #expect(result.cards.count == entry.cards)
        case .lenient:
            #expect(errors.isEmpty, "\(errors)")
            #expect(!warnings.isEmpty, "a lenient file must produce at least one warning")
            #expect(result.cards.count == entry.cards)
        case .invalid:
            #expect(!errors.isEmpty, "an invalid file must produce an error")
            #expect(errors.allSatisfy { $0.location.line >= 1 && $0.location.source == entry.path })
        }
    }

    @Test(.needsSharedCorpus, arguments: jCardEntries)
    func readsJCardFilesWithTheOutcomeTheIndexStates(_ entry: CorpusEntry) throws {
        let result = try JCardReader.read(Array(Data(contentsOf: entry.url)), sourceName: entry.path)
        let errors = result.diagnostics.filter { $0.severity == .error }
        #expect(errors.isEmpty, "\(errors)")
        #expect(result.cards.count == entry.cards)
        for card in result.cards {
            // jCard → vCard 4.0 → jCard keeps the meaning, and so does jCard → vCard 3.0 → jCard.
            let original = CanonicalForm.properties(of: card)
            for target in [VCardVersion.v4_0, .v3_0] {
                let text = VCardWriter(target: target).bytes(for: card)
                let reread = try #require(try VCardReader.read(text).cards.first)
                #expect(CanonicalForm.properties(of: reread) == original, "via \(target.rawValue): \(RoundTripChecks.difference(original, CanonicalForm.properties(of: reread)))")
                let json = JCardWriter().bytes(for: [reread])
                let back = try #require(try JCardReader.read(json).cards.first)
                #expect(CanonicalForm.properties(of: back) == original, "back to jCard: \(RoundTripChecks.difference(original, CanonicalForm.properties(of: back)))")
            }
        }
    }

    @Test(.needsSharedCorpus, arguments: textEntries.filter { $0.expected != .invalid || $0.cards > 0 })
    func convertsToJCardAndBackWithoutLoss(_ entry: CorpusEntry) throws {
        try RoundTripChecks.convertsThroughJCardWithoutLoss(Array(Data(contentsOf: entry.url)), sourceName: entry.path)
    }

    @Test(.needsSharedCorpus, arguments: textEntries.filter { $0.expected != .invalid || $0.cards > 0 })
    func writesUneditedCardsBackByteForByte(_ entry: CorpusEntry) throws {
        try RoundTripChecks.writesBackByteForByte(Array(Data(contentsOf: entry.url)), sourceName: entry.path)
    }

    @Test(.needsSharedCorpus, arguments: textEntries.filter { $0.expected != .invalid || $0.cards > 0 })
    func writesUneditedFilesBackByteForByte(_ entry: CorpusEntry) throws {
        try RoundTripChecks.writesFileBackByteForByte(Array(Data(contentsOf: entry.url)), sourceName: entry.path)
    }

    @Test(.needsSharedCorpus, arguments: textEntries.filter { $0.expected != .invalid || $0.cards > 0 })
    func convertsBetweenVersionsWithoutLoss(_ entry: CorpusEntry) throws {
        try RoundTripChecks.convertsWithoutLoss(Array(Data(contentsOf: entry.url)), sourceName: entry.path)
    }
}

/// Checks shared by the corpus and sample tests.
enum RoundTripChecks {
    /// Every card, written with no edits, is found in the input as read (in order).
    static func writesBackByteForByte(_ bytes: [UInt8], sourceName: String) throws {
        let result = try VCardReader.read(bytes, sourceName: sourceName)
        let source = CorpusText.utf8Text(of: bytes)
        var searchFrom = source.startIndex
        let writer = VCardWriter()
        for card in result.cards {
            let written = writer.bytes(for: card)
            let range = source[searchFrom...].firstRange(of: written)
            #expect(range != nil, "card at \(card.location.map(\.description) ?? "?") was not written back as read:\n\(String(decoding: written, as: UTF8.self))")
            if let range { searchFrom = range.upperBound }
        }
    }

    /// What the reader leaves out of the cards it reads: text outside cards, other components, a
    /// card it could not read. A file with none of these is written back whole, byte for byte.
    static let codesOfTextLeftOut: Set<String> = ["text-outside-card", "other-component", "unexpected-end", "missing-end", "limit-exceeded"]

    /// The cards of a file, written as a file with no edits, are the file (as UTF-8, without a
    /// byte order mark): the blank lines before, between and after the cards included.
    static func writesFileBackByteForByte(_ bytes: [UInt8], sourceName: String) throws {
        let result = try VCardReader.read(bytes, sourceName: sourceName)
        let leftOut = result.diagnostics.filter { codesOfTextLeftOut.contains($0.code.rawValue) }
        guard leftOut.isEmpty else { return }
        let written = VCardWriter().bytes(for: result)
        let source = CorpusText.utf8Text(of: bytes)
        #expect(written == source, "the file was not written back as read; first difference at byte \(zip(written, source).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(written.count, source.count))")
    }

    /// read → write 4.0 → read → write 3.0 → read → write 4.0 gives the first 4.0 text again, and
    /// the canonical property multiset never changes.
    static func convertsWithoutLoss(_ bytes: [UInt8], sourceName: String) throws {
        let cards = try VCardReader.read(bytes, sourceName: sourceName).cards
        let to4 = VCardWriter(target: .v4_0, preservesOriginalFormatting: false)
        let to3 = VCardWriter(target: .v3_0, preservesOriginalFormatting: false)
        for card in cards {
            let original = CanonicalForm.properties(of: card)
            let first4 = to4.bytes(for: card)
            let read4 = try #require(try VCardReader.read(first4).cards.first)
            let second3 = to3.bytes(for: read4)
            let read3 = try #require(try VCardReader.read(second3).cards.first)
            let third4 = to4.bytes(for: read3)
            let read4Again = try #require(try VCardReader.read(third4).cards.first)
            #expect(String(decoding: third4, as: UTF8.self) == String(decoding: first4, as: UTF8.self))
            #expect(CanonicalForm.properties(of: read4) == original, "4.0 conversion changed: \(difference(original, CanonicalForm.properties(of: read4)))")
            #expect(CanonicalForm.properties(of: read3) == original, "3.0 conversion changed: \(difference(original, CanonicalForm.properties(of: read3)))")
            #expect(CanonicalForm.properties(of: read4Again) == original)
        }
    }

    /// vCard → jCard → vCard keeps every property, parameter and value.
    static func convertsThroughJCardWithoutLoss(_ bytes: [UInt8], sourceName: String) throws {
        let cards = try VCardReader.read(bytes, sourceName: sourceName).cards
        let json = JCardWriter(unwrapsSingleCard: false).bytes(for: cards)
        let schema = try JSONSchema(parsing: Array(Data(contentsOf: TestPaths.repositoryRoot.appendingPathComponent("Schemas/jcard.schema.json"))))
        #expect(try schema.violations(in: json) == [], "\(sourceName)")
        let back = try JCardReader.read(json, sourceName: "jcard")
        #expect(!back.hasErrors, "\(back.diagnostics)")
        #expect(back.cards.count == cards.count)
        for (card, reread) in zip(cards, back.cards) {
            let original = CanonicalForm.properties(of: card)
            let text = VCardWriter(target: .v4_0).bytes(for: reread)
            let again = try #require(try VCardReader.read(text).cards.first)
            #expect(CanonicalForm.properties(of: reread) == original, "\(difference(original, CanonicalForm.properties(of: reread)))")
            #expect(CanonicalForm.properties(of: again) == original)
        }
    }

    static func difference(_ a: [CanonicalProperty], _ b: [CanonicalProperty]) -> String {
        let onlyA = a.filter { !b.contains($0) }.map(\.description)
        let onlyB = b.filter { !a.contains($0) }.map(\.description)
        return "lost \(onlyA) added \(onlyB)"
    }
}

/// The corpus file as UTF-8, the way the reader sees it (UTF-16 transcoded, BOM removed).
enum CorpusText {
    static func utf8Text(of bytes: [UInt8]) -> [UInt8] {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return Array(bytes.dropFirst(3)) }
        let littleEndian = bytes.starts(with: [0xFF, 0xFE]) || (bytes.count > 1 && bytes[0] != 0 && bytes[1] == 0)
        let bigEndian = bytes.starts(with: [0xFE, 0xFF]) || (bytes.count > 1 && bytes[0] == 0 && bytes[1] != 0)
        guard littleEndian || bigEndian else { return bytes }
        var units: [UInt16] = []
        var index = 0
        while index + 1 < bytes.count {
            units.append(littleEndian ? UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
                                      : UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]))
            index += 2
        }
        if units.first == 0xFEFF { units.removeFirst() }
        return Array(String(decoding: units, as: UTF16.self).utf8)
    }
}
