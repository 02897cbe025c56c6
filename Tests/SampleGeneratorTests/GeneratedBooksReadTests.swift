import SampleGenerator
import Testing
import VCardKit

/// Generated books are what the reader calls valid, and their labels tell the truth about
/// meaning: exact and reformatted duplicates mean the same as their originals.
@Suite struct GeneratedBooksReadTests {
    static let options: [GeneratorOptions] = [
        GeneratorOptions(count: 1500, seed: 1, version: .mixed, photoRate: 0.1, duplicateRate: 0.1, nearDuplicateRate: 0.1),
        GeneratorOptions(count: 800, seed: 2, version: .v3, photoRate: 0.2, duplicateRate: 0.1),
        GeneratorOptions(count: 800, seed: 3, version: .v4, photoRate: 0.2, duplicateRate: 0.1),
        GeneratorOptions(count: 500, seed: 4, version: .v4, rfcOnly: true),
        GeneratorOptions(count: 500, seed: 5, version: .mixed, sparse: true),
    ]

    @Test(arguments: options)
    func generatedBooksReadWithoutErrorsOrWarnings(_ options: GeneratorOptions) throws {
        var bytes: [UInt8] = []
        AddressBookGenerator(options: options).write(to: &bytes)
        let result = try VCardReader.read(bytes, sourceName: "generated.vcf")
        #expect(result.cards.count == options.count)
        #expect(result.diagnostics.filter { $0.severity == .error } == [])
        let warnings = result.diagnostics.filter { $0.severity == .warning }
        #expect(warnings.isEmpty, "\(warnings.prefix(5))")
        #expect(VCardWriter().bytes(for: result.cards) == bytes)
    }

    @Test func duplicatesMeanTheSameAsTheirOriginals() throws {
        let options = GeneratorOptions(count: 2000, seed: 11, version: .mixed, photoRate: 0.1, duplicateRate: 0.2)
        var bytes: [UInt8] = []
        let labels = AddressBookGenerator(options: options).write(to: &bytes)
        let cards = try VCardReader.read(bytes).cards
        let duplicates = labels.cards.filter { $0.kind == .exact || $0.kind == .reformatted }
        #expect(duplicates.count > 100)
        for label in duplicates {
            let copy = CanonicalForm.properties(of: cards[label.index], excluding: .volatile)
            let original = CanonicalForm.properties(of: cards[label.of], excluding: .volatile)
            let lost = original.filter { !copy.contains($0) }.map(\.description)
            let added = copy.filter { !original.contains($0) }.map(\.description)
            #expect(lost == [] && added == [], "card \(label.index) (\(label.kind.rawValue) of \(label.of), \(label.changes.map(\.rawValue))): lost \(lost) added \(added)")
        }
    }
}
