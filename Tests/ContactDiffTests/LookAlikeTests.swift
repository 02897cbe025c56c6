import ContactDiff
import Testing

/// People who share a name and a detail are not always one person: a father and his son share a
/// name and a home number. What tells them apart rules the link out, or keeps it a guess.
@Suite struct LookAlikeTests {
    func book(_ cards: [(uid: String, fn: String, extra: String)]) -> [ContactEntry] {
        entries(cards.map { card in
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:\(card.uid)\r\nFN:\(card.fn)\r\nTEL;TYPE=HOME:+1 312 555 0142\r\n\(card.extra)END:VCARD\r\n"
        }.joined())
    }

    @Test func namesStatingDifferentGenerationsAreNeverLinkedWhateverTheThreshold() {
        let family = book([("father", "John Smith Sr.", ""), ("son", "John Smith, Jr.", ""), ("grandson", "John Smith III", "")])
        #expect(DuplicateFinder(threshold: 0.01).clusters(in: family).isEmpty)
    }

    @Test func aGenerationOnOneSideOnlyIsAGuessBelowTheDefaultThresholdAndNeverStrong() {
        let pair = book([("father", "John Smith", ""), ("son", "John Smith Junior", "")])
        #expect(DuplicateFinder().clusters(in: pair).isEmpty)
        let shown = DuplicateFinder(threshold: 0.5).clusters(in: pair)
        #expect(shown.count == 1)
        #expect(shown.first?.links.allSatisfy { $0.confidence == .fuzzy } == true)
        #expect(shown.first?.links.first?.reasons.contains { $0.contains("only one name states a generation (jr)") } == true)
    }

    @Test func theSameGenerationWrittenDifferentlyIsStillTheSamePerson() {
        let pair = book([("a", "John Smith Jr.", ""), ("b", "Smith, John, Junior", "")])
        let clusters = DuplicateFinder().clusters(in: pair)
        #expect(clusters.count == 1)
        #expect(clusters.first?.links.first?.confidence == .strong)
    }

    @Test func differentBirthdaysRuleALinkOutAndANameAloneNeverLinks() {
        let twins = book([("a", "Ada Lovelace", "BDAY:1815-12-10\r\n"), ("b", "Ada Lovelace", "BDAY:1990-01-01\r\n")])
        #expect(DuplicateFinder(threshold: 0.01).clusters(in: twins).isEmpty)
        let strangers = entries("""
            BEGIN:VCARD\r\nVERSION:3.0\r\nUID:a\r\nFN:Maria Garcia\r\nEMAIL:maria@one.example\r\nEND:VCARD\r
            BEGIN:VCARD\r\nVERSION:3.0\r\nUID:b\r\nFN:Maria Garcia\r\nEMAIL:mgarcia@two.example\r\nEND:VCARD\r

            """)
        #expect(DuplicateFinder(threshold: 0.01).clusters(in: strangers).isEmpty)
    }

    @Test(arguments: [("John Smith Jr.", "jr"), ("SMITH, JOHN, SR", "sr"), ("Henry Ford II", "ii"), ("Louis the 3rd", "iii"),
                      ("Pope John Paul II", "ii"), ("Ivan Ivanov", nil), ("Srinivasan", nil), ("Junioria Ives", nil)])
    func theGenerationOfAName(name: String, generation: String?) {
        #expect(NameNormalizer.generation(of: name) == generation)
    }
}
