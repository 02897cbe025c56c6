import Foundation
import JSONText
import Testing
import TestSupport
@testable import VCardKit

/// The streaming jCard reader: the same cards and diagnostics whatever the chunk size, the
/// whole-document JSON parser's diagnostics for broken JSON, and the size limits.
@Suite struct JCardParserTests {
    /// A jCard input and its name.
    struct Input: Sendable, CustomStringConvertible {
        var name: String
        var bytes: [UInt8]
        var description: String { name }
    }

    /// Corpus jCard files, the fuzzing regression inputs, every sample converted to a jCard array
    /// (one card per line), and broken documents.
    static let inputs: [Input] = {
        var inputs = CorpusIndex.entries.filter { $0.version == "jcard" }.compactMap { entry in
            (try? Data(contentsOf: entry.url)).map { Input(name: entry.path, bytes: Array($0)) }
        }
        let fuzz = TestPaths.repositoryRoot.appendingPathComponent("Tests/FuzzRegressionTests/Inputs/jcard")
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: fuzz.path)) ?? []).sorted() {
            if let data = try? Data(contentsOf: fuzz.appendingPathComponent(name)) { inputs.append(Input(name: "fuzz/" + name, bytes: Array(data))) }
        }
        for file in SamplesTests.files {
            guard let data = try? Data(contentsOf: TestPaths.samples.appendingPathComponent(file)),
                  let cards = try? VCardReader.read(Array(data)).cards, !cards.isEmpty else { continue }
            inputs.append(Input(name: file + ".json", bytes: arrayDocument(cards.map(JCardWriter.element(for:)))))
        }
        for (name, text) in brokenDocuments { inputs.append(Input(name: name, bytes: Array(text.utf8))) }
        return inputs
    }()

    static let brokenDocuments: [(String, String)] = [
        ("missing-comma", "[\n  [\"vcard\",[[\"fn\",{},\"text\",\"A\"]]]\n  [\"vcard\",[]]\n]"),
        ("trailing-comma", "[[\"vcard\",[[\"fn\",{},\"text\",\"A\"]]],\n]"),
        ("unclosed-array", "[[\"vcard\",[[\"fn\",{},\"text\",\"A\"]]],\n [\"vcard\",[[\"fn\",{},\"text\",\"B\"]]]"),
        ("unclosed-string", "[[\"vcard\",[[\"fn\",{},\"text\",\"A\"]]],\n [\"vcard\",[[\"fn\",{},\"text\",\"B]]]]"),
        ("text-after", "[[\"vcard\",[[\"fn\",{},\"text\",\"A\"]]]]\n  x"),
        ("brace-in-array", "[\n[\"vcard\",[[\"fn\",{},\"text\",\"Ä\"]]] }"),
        ("bad-literal", "[[\"vcard\",[[\"fn\",{},\"text\",\"A\"]]], tru]"),
        ("empty-element", "[\n,[\"vcard\",[]]]"),
        ("control-in-string", "[[\"vcard\",[[\"fn\",{},\"text\",\"Ä\u{01}\"]]]]"),
        ("bad-escape", "[[\"vcard\",[[\"fn\",{},\"text\",\"\\q\"]]]]"),
        ("escaped-quote-and-comma", "[[\"vcard\",[[\"fn\",{},\"text\",\"a\\\",]b\"]]], [\"vcard\",[[\"fn\",{},\"text\",\"c\"]]]]"),
        ("single-card-broken", "[\"vcard\",\n  [[\"fn\", {}, \"text\" \"x\"]]]"),
        ("object", "{\"vcard\": []}"),
        ("byte-order-mark", "\u{FEFF}  [[\"vcard\",[[\"fn\",{},\"text\",\"A\"]]]]"),
        ("empty-array", " [ ] "),
        ("whitespace-only", " \n "),
        ("too-deep", String(repeating: "[", count: 200) + String(repeating: "]", count: 200)),
        ("not-a-card", "[1, \"vcard\", [\"vcard\",[[\"fn\",{},\"text\",\"A\"]]]]"),
    ]

    static func arrayDocument(_ elements: [[UInt8]]) -> [UInt8] {
        var bytes = Array("[\n  ".utf8)
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes += Array(",\n  ".utf8) }
            bytes += element
        }
        return bytes + Array("\n]\n".utf8)
    }

    static func read(_ bytes: [UInt8], chunkSize: Int, options: VCardReadOptions = .lenient) -> (cards: [VCard], diagnostics: [Diagnostic]) {
        var parser = JCardParser(sourceName: "input.json", options: options)
        var cards: [VCard] = []
        var diagnostics: [Diagnostic] = []
        var start = 0
        while start < bytes.count {
            let end = min(start + chunkSize, bytes.count)
            parser.feed(bytes[start..<end])
            while let card = parser.nextCard() { cards.append(card) }
            diagnostics += parser.takeDiagnostics()
            start = end
        }
        parser.finish()
        while let card = parser.nextCard() { cards.append(card) }
        return (cards, diagnostics + parser.takeDiagnostics())
    }

    @Test func inputsExist() {
        #expect(Self.inputs.count >= Self.brokenDocuments.count + 6)
    }

    @Test(arguments: inputs, [1, 7, 4096])
    func readsTheSameInAnyChunkSize(_ input: Input, chunkSize: Int) throws {
        let whole = try JCardReader.read(input.bytes, sourceName: "input.json")
        let streamed = Self.read(input.bytes, chunkSize: chunkSize)
        #expect(streamed.cards == whole.cards)
        #expect(streamed.diagnostics == whole.diagnostics)
    }

    /// Where the JSON is broken, the report is the whole-document parser's, word for word.
    @Test(arguments: inputs)
    func reportsBrokenJSONAsTheWholeDocumentParserDoes(_ input: Input) throws {
        let streamed = Self.read(input.bytes, chunkSize: 7).diagnostics.filter { $0.code == "invalid-json" }
        do {
            let document = try JSONValue(parsing: input.bytes, options: JCardParser.jsonOptions(.lenient))
            #expect(streamed.isEmpty, "\(streamed)")
            // A valid document: one card per element of an array of cards.
            let cards = Self.read(input.bytes, chunkSize: 7).cards.count
            switch document {
            case .array(let items) where items.first == .string("vcard"): #expect(cards == 1)
            case .array(let items): #expect(cards == items.count { if case .array(let parts) = $0 { parts.first == .string("vcard") } else { false } })
            default: #expect(cards == 0)
            }
        } catch {
            #expect(streamed.count == 1)
            #expect(streamed.first?.message == "not valid JSON: \(error.message)")
            #expect(streamed.first?.location.line == error.line)
            #expect(streamed.first?.location.column == error.column)
        }
    }

    @Test func readsTheCardsBeforeBrokenJSON() {
        let result = Self.read(Array(Self.brokenDocuments[0].1.utf8), chunkSize: 5)
        #expect(result.cards.map(\.formattedName) == ["A"])
        #expect(result.diagnostics.last?.location.line == 3)
    }

    @Test func locatesEachCardAtItsLine() {
        let cards = (1...3).map { VCard(properties: [VCardProperty(name: "FN", text: "N\($0)")]) }
        let result = Self.read(Self.arrayDocument(cards.map(JCardWriter.element(for:))), chunkSize: 3)
        #expect(result.cards.map { $0.location?.line } == [2, 3, 4])
        #expect(result.cards.map { $0.location?.column } == [3, 3, 3])
    }

    @Test(arguments: [1, 7, 4096])
    func skipsAnOversizedCardAtItsLineAndReadsTheOthers(chunkSize: Int) {
        let small = { (name: String) in JCardWriter.element(for: VCard(properties: [VCardProperty(name: "FN", text: name)])) }
        let huge = Array(#"["vcard",[["fn",{},"text",""#.utf8) + Array(repeating: UInt8(ascii: "a"), count: 5000) + Array(#"\"],,]"]]]"#.utf8)
        let document = Self.arrayDocument([small("A"), small("B"), huge, small("C")])
        let result = Self.read(document, chunkSize: chunkSize, options: VCardReadOptions(maximumCardBytes: 1000))
        #expect(result.cards.map(\.formattedName) == ["A", "B", "C"])
        let errors = result.diagnostics.filter { $0.severity == .error }
        #expect(errors.map(\.code) == ["limit-exceeded"])
        #expect(errors.first?.location.line == 4)
        #expect(errors.first?.message.contains("card 3") == true)
    }

    @Test func skipsAnOversizedSingleCard() {
        let document = Array(#"["vcard",[["fn",{},"text",""#.utf8) + Array(repeating: UInt8(ascii: "a"), count: 5000) + Array(#""]]]"#.utf8)
        let result = Self.read(document, chunkSize: 512, options: VCardReadOptions(maximumCardBytes: 1000))
        #expect(result.cards.isEmpty)
        #expect(result.diagnostics.map(\.code) == ["limit-exceeded"])
    }

    @Test func readsNoMoreThanTheMaximumNumberOfCards() {
        let cards = (1...5).map { VCard(properties: [VCardProperty(name: "FN", text: "N\($0)")]) }
        let result = Self.read(Self.arrayDocument(cards.map(JCardWriter.element(for:))), chunkSize: 4096,
                               options: VCardReadOptions(maximumCards: 3))
        #expect(result.cards.map(\.formattedName) == ["N1", "N2", "N3"])
        let errors = result.diagnostics.filter { $0.severity == .error }
        #expect(errors.map(\.code) == ["limit-exceeded"])
        #expect(errors.first?.location.line == 5)
    }

    @Test func strictReadingStopsAtTheFirstProblem() {
        let document = Array("[[\"vcard\",[[\"fn\",{},\"text\",\"A\"]]],\n [\"vcard\",[[\"version\",{},\"text\",\"4.0\"],[\"fn\",{},\"text\",\"B\"]]]]".utf8)
        let result = Self.read(document, chunkSize: 7, options: .strict)
        #expect(result.cards.isEmpty)
        #expect(result.diagnostics.count == 1)
        #expect(result.diagnostics.first?.code == "missing-version")
        #expect(throws: VCardError.self) { try JCardReader.read(document, options: .strict) }
    }
}
