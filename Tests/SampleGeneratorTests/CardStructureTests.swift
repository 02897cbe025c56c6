import SampleGenerator
import Testing

@Suite struct CardStructureTests {
    private static let book: [GeneratedCard] = Array(
        AddressBookGenerator(options: GeneratorOptions(count: 400, seed: 77, photoRate: 0.15)).makeCards())

    @Test(arguments: [0, 1, 17, 250])
    func producesExactlyTheRequestedNumberOfCards(count: Int) {
        let generator = AddressBookGenerator(options: GeneratorOptions(count: count, seed: 5, duplicateRate: 0.3))
        var bytes: [UInt8] = []
        let labels = generator.write(to: &bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(Array(generator.makeCards()).count == count)
        #expect(text.uppercased().components(separatedBy: "BEGIN:VCARD\r\n").count - 1 == count)
        #expect(labels.count == count)
    }

    @Test func negativeCountProducesNothing() {
        #expect(Array(AddressBookGenerator(options: GeneratorOptions(count: -3, seed: 1)).makeCards()).isEmpty)
    }

    @Test func everyCardStartsWithBeginAndVersionAndEndsWithEnd() {
        for card in Self.book {
            let lines = CardText.contentLines(card.text)
            #expect(lines.first == "BEGIN:VCARD", "card \(card.index)")
            #expect(lines.dropFirst().first == "VERSION:\(card.version.rawValue)", "card \(card.index)")
            #expect(lines.last == "END:VCARD", "card \(card.index)")
            #expect(card.text.hasSuffix("END:VCARD\r\n"))
            #expect(lines.filter { $0.uppercased().hasPrefix("BEGIN:") }.count == 1)
        }
    }

    @Test func everyLineEndsWithCRLF() {
        for card in Self.book {
            #expect(CardText.bareLineBreaks(Array(card.text.utf8)) == 0, "card \(card.index)")
        }
    }

    /// The same book as raw bytes: `GeneratedCard.text` is a `String`, which would repair a split
    /// UTF-8 sequence into U+FFFD and hide it, so folding is checked on the bytes `write` produces.
    private static let bookBytes: [UInt8] = {
        var bytes: [UInt8] = []
        AddressBookGenerator(options: GeneratorOptions(count: 400, seed: 77, photoRate: 0.15)).write(to: &bytes)
        return bytes
    }()

    @Test func writtenBytesMatchTheCardsText() {
        #expect(Self.bookBytes == Array(Self.book.map(\.text).joined().utf8))
        #expect(!Self.book.contains { $0.text.unicodeScalars.contains("\u{FFFD}") })
    }

    @Test func noPhysicalLineIsLongerThan75Octets() {
        let longest = CardText.physicalLines(Self.bookBytes).map(\.count).max() ?? 0
        #expect(longest <= 75)
        #expect(longest >= 70, "long values should be folded close to the limit")
    }

    @Test func foldsNeverSplitUTF8Sequences() {
        var continuationLines = 0
        var splitLines = 0
        for line in CardText.physicalLines(Self.bookBytes) {
            if String(validating: line, as: UTF8.self) == nil { splitLines += 1 }
            if let first = line.first, first == 0x20 || first == 0x09 {
                continuationLines += 1
                if let second = line.dropFirst().first, second & 0xC0 == 0x80 { splitLines += 1 }
            }
        }
        #expect(splitLines == 0)
        #expect(continuationLines > 100, "the book should exercise folding")
    }

    @Test func everyCardHasItsOwnUIDAndTheRequiredNames() {
        var uids = Set<String>()
        for card in Self.book {
            let properties = CardText.contentLines(card.text).map(CardText.parse)
            let uidValues = properties.filter { $0.name == "UID" }.map(\.value)
            #expect(uidValues == [card.uid])
            #expect(properties.contains { $0.name == "FN" && !$0.value.isEmpty })
            #expect(properties.contains { $0.name == "N" })
            uids.insert(card.uid)
        }
        #expect(uids.count == Self.book.count)
    }

    @Test func photosAppearAtRoughlyTheRequestedRateAndLookLikeJPEG() {
        let photos = Self.book.compactMap { card -> (GeneratedCard, CardText.Property)? in
            guard let photo = CardText.contentLines(card.text).map(CardText.parse).first(where: { $0.name == "PHOTO" })
            else { return nil }
            return (card, photo)
        }
        let share = Double(photos.count) / Double(Self.book.count)
        #expect(share > 0.08 && share < 0.22, "photo share \(share)")
        for (card, photo) in photos {
            let base64: Substring
            if card.version == .v4 {
                #expect(photo.value.hasPrefix("data:image/jpeg;base64,"))
                #expect(photo.parameters.isEmpty)
                base64 = photo.value.dropFirst("data:image/jpeg;base64,".count)
            } else {
                #expect(photo.parameters.contains(.init(name: "ENCODING", values: ["b"])))
                #expect(photo.parameters.contains(.init(name: "TYPE", values: ["JPEG"])))
                base64 = Substring(photo.value)
            }
            #expect(base64.hasPrefix("/9j/4AAQSkZJRg"), "JPEG SOI + JFIF APP0")
            #expect(base64.count >= 4096 * 4 / 3 && base64.count <= 8194 * 4 / 3 + 4)
        }
    }

    @Test func textValuesAreEscaped() {
        let cards = Array(
            AddressBookGenerator(options: GeneratorOptions(count: 600, seed: 12, photoRate: 0)).makeCards())
        let notes = cards.compactMap { CardText.value(of: "NOTE", in: $0.text) }
        #expect(notes.contains { $0.contains("\\,") })
        #expect(notes.contains { $0.contains("\\;") })
        #expect(notes.contains { $0.contains("\\\\") })
        #expect(notes.contains { $0.contains("\\n") })
        #expect(notes.contains { $0.contains("👨‍👩‍👧‍👦") })
        #expect(notes.contains { $0.utf8.count > 1000 }, "some notes are long enough to fold many times")
        for note in notes {
            #expect(Self.hasOnlyEscapedSpecials(note), "unescaped , ; or \\ in \(note)")
        }
        let categories = cards.compactMap { CardText.value(of: "CATEGORIES", in: $0.text) }
        #expect(categories.contains { $0.contains("Clients\\, EU") })
        let formattedNames = cards.compactMap { CardText.value(of: "FN", in: $0.text) }
        #expect(formattedNames.contains { $0.contains("\\,") })
        #expect(formattedNames.contains { $0.unicodeScalars.contains { $0.value >= 0x4E00 && $0.value <= 0x9FFF } })
        #expect(formattedNames.contains { $0.unicodeScalars.contains { $0.value >= 0x0590 && $0.value <= 0x05FF } })
        #expect(formattedNames.contains { $0.unicodeScalars.contains { $0.value >= 0x0900 && $0.value <= 0x097F } })
    }

    /// Whether every `,`, `;` and `\` in a TEXT value is escaped.
    private static func hasOnlyEscapedSpecials(_ value: String) -> Bool {
        var escaped = false
        for character in value {
            if escaped {
                guard "\\,;nN".contains(character) else { return false }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "," || character == ";" {
                return false
            }
        }
        return !escaped
    }

    @Test func sparseCardsAreMinimal() {
        let cards = Array(
            AddressBookGenerator(options: GeneratorOptions(count: 300, seed: 4, photoRate: 1, sparse: true)).makeCards()
        )
        for card in cards {
            let names = CardText.contentLines(card.text).map { CardText.parse($0).name }
            #expect(Set(names).isSubset(of: ["BEGIN", "VERSION", "N", "FN", "UID", "TEL", "EMAIL", "END"]))
            #expect(names.filter { $0 == "TEL" || $0 == "EMAIL" }.count <= 1)
        }
        #expect(cards.contains { $0.text.contains("\r\nTEL") })
        #expect(cards.contains { $0.text.contains("\r\nEMAIL") })
    }

    @Test func fileNamesAreSafe() {
        #expect(
            GeneratedCard.fileName(forUID: "5F1C2B8E-0D3A-4C55-9A41-2B7E9C7D1F00")
                == "5F1C2B8E-0D3A-4C55-9A41-2B7E9C7D1F00.vcf")
        #expect(GeneratedCard.fileName(forUID: "a.b_c+d-e") == "a.b_c+d-e.vcf")
        let digested = GeneratedCard.fileName(forUID: "urn:uuid:5f1c2b8e-0d3a-4c55-9a41-2b7e9c7d1f00")
        #expect(digested.count == 36)
        #expect(digested.hasSuffix(".vcf"))
        #expect(digested.dropLast(4).allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(digested != GeneratedCard.fileName(forUID: "urn:uuid:5f1c2b8e-0d3a-4c55-9a41-2b7e9c7d1f01"))
        #expect(GeneratedCard.fileName(forUID: "../etc/passwd").hasPrefix("..") == false)
        #expect(GeneratedCard.fileName(forUID: "..") != "...vcf")
        for card in Self.book {
            #expect(!card.fileName.contains("/") && !card.fileName.contains(":"))
        }
    }
}
