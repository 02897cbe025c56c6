import Foundation
import SampleGenerator
import Testing

@Suite struct DuplicateLabelTests {
    private static let options = GeneratorOptions(
        count: 2000, seed: 1234, photoRate: 0.05, duplicateRate: 0.2, nearDuplicateRate: 0.12)
    private static let cards: [GeneratedCard] = Array(AddressBookGenerator(options: options).makeCards())
    private static let labels = AddressBookGenerator(options: options).labels()

    @Test func duplicateCountsFollowTheRates() {
        let labels = Self.labels
        let n = Double(Self.options.count)
        // Expected: 200 exact, 200 reformatted, 240 near, 60 look-alikes (a quarter of the near rate).
        #expect(abs(Double(labels.exact) - n * 0.1) <= n * 0.03, "exact \(labels.exact)")
        #expect(abs(Double(labels.reformatted) - n * 0.1) <= n * 0.03, "reformatted \(labels.reformatted)")
        #expect(abs(Double(labels.near) - n * 0.12) <= n * 0.03, "near \(labels.near)")
        #expect(abs(Double(labels.lookalike) - n * 0.03) <= n * 0.015, "look-alikes \(labels.lookalike)")
    }

    @Test func noDuplicatesWithoutRates() {
        let labels = AddressBookGenerator(options: GeneratorOptions(count: 500, seed: 1234)).labels()
        #expect(labels.cards.isEmpty)
        #expect(labels.distinct == 500)
    }

    @Test func distinctCountIsCountMinusExactAndReformatted() {
        let labels = Self.labels
        #expect(labels.count == 2000)
        #expect(labels.distinct == labels.count - labels.exact - labels.reformatted)
        #expect(labels.cards.count == labels.exact + labels.reformatted + labels.near + labels.lookalike)
        #expect(labels.cards.filter { $0.kind == .exact }.count == labels.exact)
    }

    @Test func labelsAgreeWithTheCards() {
        #expect(Self.labels.cards == Self.cards.compactMap(\.label))
        for label in Self.labels.cards {
            let card = Self.cards[label.index]
            #expect(label.uid == card.uid)
            #expect(label.of < label.index)
            #expect(label.ofUID == Self.cards[label.of].uid)
            #expect(label.uid != label.ofUID, "duplicates get a UID of their own")
            let source = Self.cards[label.of].label?.kind
            #expect(source != .exact && source != .reformatted, "labels point at distinct cards")
            if label.kind == .near || label.kind == .lookalike {
                #expect(source == nil, "near duplicates and look-alikes point at new contacts")
            }
        }
        #expect(Set(Self.cards.map(\.uid)).count == Self.cards.count)
    }

    @Test func exactDuplicatesDifferOnlyInTheirUID() {
        let exact = Self.labels.cards.filter { $0.kind == .exact }
        #expect(!exact.isEmpty)
        for label in exact {
            let copy = Self.cards[label.index].text
            let original = Self.cards[label.of].text
            #expect(label.changes.isEmpty)
            #expect(copy != original)
            #expect(copy.replacingOccurrences(of: label.uid, with: label.ofUID) == original, "card \(label.index)")
        }
    }

    @Test func reformattedDuplicatesKeepTheMeaning() {
        let reformatted = Self.labels.cards.filter { $0.kind == .reformatted }
        var seenChanges = Set<DuplicateLabel.Change>()
        for label in reformatted {
            let copy = Self.cards[label.index]
            let original = Self.cards[label.of]
            #expect(!label.changes.isEmpty)
            #expect(copy.text != original.text)
            seenChanges.formUnion(label.changes)
            let lines = CardText.contentLines(copy.text)
            #expect(lines.first?.uppercased() == "BEGIN:VCARD" && lines.last?.uppercased() == "END:VCARD")
            #expect(lines[1].uppercased().hasPrefix("VERSION:"), "VERSION stays second")
            if label.changes.contains(.version) {
                #expect(copy.version != original.version)
                #expect(CardText.value(of: "FN", in: copy.text) == CardText.value(of: "FN", in: original.text))
                #expect(
                    Self.values("EMAIL", in: copy.text).sorted() == Self.values("EMAIL", in: original.text).sorted())
            } else {
                #expect(copy.version == original.version)
                #expect(
                    Self.canonicalLines(copy.text, uid: copy.uid)
                        == Self.canonicalLines(original.text, uid: original.uid),
                    "card \(label.index) changed meaning")
            }
            let physical = CardText.physicalLines(Array(copy.text.utf8))
            if !label.changes.contains(.unfolded) {
                #expect(physical.allSatisfy { $0.count <= 75 })
            }
            if label.changes.contains(.foldWidth) {
                #expect(physical.allSatisfy { $0.count <= 60 })
            }
            if label.changes.contains(.tabContinuation) {
                #expect(physical.contains { $0.first == 0x09 })
            }
        }
        let formChanges: Set<DuplicateLabel.Change> = [
            .version, .parameterSpelling, .parameterOrder, .propertyOrder, .nameCase, .foldWidth, .unfolded,
            .tabContinuation,
        ]
        #expect(seenChanges == formChanges, "missing: \(formChanges.subtracting(seenChanges))")
    }

    @Test func nearDuplicatesSayWhatChanged() {
        let near = Self.labels.cards.filter { $0.kind == .near }
        var seenChanges = Set<DuplicateLabel.Change>()
        for label in near {
            let copy = Self.cards[label.index].text
            let original = Self.cards[label.of].text
            #expect(!label.changes.isEmpty && label.changes.count <= 2)
            seenChanges.formUnion(label.changes)
            let copyFN = CardText.value(of: "FN", in: copy)
            let originalFN = CardText.value(of: "FN", in: original)
            if label.changes.contains(.nameWhitespace) || label.changes.contains(.nameTypo)
                || label.changes.contains(.namesSwapped)
            {
                #expect(copyFN != originalFN, "card \(label.index)")
            } else {
                #expect(copyFN == originalFN, "card \(label.index)")
            }
            if label.changes.contains(.nameWhitespace) {
                #expect(copyFN?.contains(" ") == true)
            }
            let emailDifference = Self.values("EMAIL", in: copy).count - Self.values("EMAIL", in: original).count
            if label.changes.contains(.emailAdded) {
                #expect(emailDifference == 1)
            } else if label.changes.contains(.emailRemoved) {
                #expect(emailDifference == -1)
            } else {
                #expect(emailDifference == 0)
            }
            let phonesChanged = Self.values("TEL", in: copy) != Self.values("TEL", in: original)
            #expect(phonesChanged == label.changes.contains(.phoneFormat), "card \(label.index)")
        }
        let contentChanges: Set<DuplicateLabel.Change> = [
            .nameTypo, .namesSwapped, .nameWhitespace, .phoneFormat, .emailAdded, .emailRemoved,
        ]
        #expect(seenChanges == contentChanges, "missing: \(contentChanges.subtracting(seenChanges))")
    }

    @Test func lookalikesShareTheNameButNoContactDetails() {
        let lookalikes = Self.labels.cards.filter { $0.kind == .lookalike }
        #expect(!lookalikes.isEmpty)
        for label in lookalikes {
            let copy = Self.cards[label.index].text
            let original = Self.cards[label.of].text
            #expect(CardText.value(of: "FN", in: copy) == CardText.value(of: "FN", in: original))
            #expect(Set(Self.values("EMAIL", in: copy)).isDisjoint(with: Self.values("EMAIL", in: original)))
            let digits = { (text: String) in Set(Self.values("TEL", in: text).map { $0.filter(\.isNumber) }) }
            #expect(digits(copy).isDisjoint(with: digits(original)), "card \(label.index)")
        }
    }

    @Test func singleVersionBooksNeverChangeVersionInDuplicates() {
        let options = GeneratorOptions(count: 300, seed: 5, version: .v3, duplicateRate: 0.6)
        let labels = AddressBookGenerator(options: options).labels()
        #expect(labels.reformatted > 50)
        #expect(!labels.cards.contains { $0.changes.contains(.version) })
    }

    @Test func labelsEncodeAsSortedDeterministicJSON() throws {
        let data = try Self.labels.jsonData()
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.hasPrefix("{\"cards\":[{\"changes\":["))
        #expect(text.contains("\"schemaVersion\":1"))
        #expect(text.contains("\"seed\":1234"))
        #expect(text.contains("\"distinct\":\(Self.labels.distinct)"))
        #expect(try AddressBookGenerator(options: Self.options).labels().jsonData() == data)
        let decoded = try JSONDecoder().decode(GeneratorLabels.self, from: data)
        #expect(decoded == Self.labels)
        let keys = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any]).keys.sorted()
        #expect(
            keys == [
                "cards", "count", "distinct", "exact", "lookalike", "near", "reformatted", "schemaVersion", "seed",
                "version",
            ])
    }

    // MARK: - Helpers

    /// Values of every ungrouped property called `name`, in order.
    private static func values(_ name: String, in text: String) -> [String] {
        CardText.contentLines(text).map(CardText.parse).filter { $0.name == name && $0.group == nil }.map(\.value)
    }

    /// The card's properties in a form-independent spelling, sorted, with the UID value blanked.
    private static func canonicalLines(_ text: String, uid: String) -> [String] {
        CardText.contentLines(text).map { line in
            var property = CardText.parse(line)
            if property.name == "UID" { property.value = property.value == uid ? "<uid>" : property.value }
            return CardText.canonical(property)
        }.sorted()
    }
}
