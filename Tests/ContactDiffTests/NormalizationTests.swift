import ContactDiff
import Testing

struct NameNormalizationTests {
    /// ASCII names take a byte-by-byte path; a non-ASCII separator at the end sends the same
    /// name through the Unicode path, which must find the same words.
    @Test(arguments: ["John Smith", "SMITH,John", "O'Brien-Smith  Jr.", "Dr. Ada   Lovelace", "van der Berg", "mc", "R2 D2",
                      "a.b@c", "  ", "", "Jean-Luc Picard III", "D'Artagnan", "x_y z~w"])
    func asciiNamesGiveTheWordsOfTheUnicodePath(name: String) {
        #expect(NameNormalizer.words(of: name) == NameNormalizer.words(of: name + "\u{00A0}"))
    }

    @Test(arguments: ["tel:+1 312 555 0142 x12", "TEL:(312) 555-0142", "+49 (0)30 1234567#9", "00 44 20 7946 0958", "1-800-FLOWERS", "+ 1 2"])
    func asciiNumbersGiveTheDigitsOfTheCharacterPath(written: String) {
        let normalizer = PhoneNormalizer()
        #expect(normalizer.normalize(written) == normalizer.normalize(written + "\u{00A0}"))
    }

    @Test(arguments: [
        ("John Smith", "john smith"),
        ("John  Smith", "john smith"),
        ("SMITH, John", "john smith"),
        ("Smith John", "john smith"),
        ("José Martínez", "jose martinez"),
        ("Ludwig van Beethoven", "beethoven ludwig"),
        ("Dr. Jürgen Groß", "gross jurgen"),
        ("Søren Kierkegaard", "kierkegaard soren"),
        ("Seán O'Brien", "obrien sean"),
    ])
    func keyIgnoresCaseAccentsOrderAndParticles(name: String, key: String) {
        #expect(NameNormalizer.key(of: name) == key)
    }

    @Test func aNameMadeOnlyOfParticlesKeepsThem() {
        #expect(NameNormalizer.key(of: "De La") == "de la")
    }

    @Test func similarityForgivesTyposAndOrderButNotOtherNames() {
        let smith = NameNormalizer.words(of: "John Smith")
        #expect(NameNormalizer.similarity(smith, NameNormalizer.words(of: "Smith John")) == 1)
        #expect(NameNormalizer.similarity(smith, NameNormalizer.words(of: "John Smtih")) > 0.9)
        #expect(NameNormalizer.similarity(smith, NameNormalizer.words(of: "Jon Smith")) > 0.9)
        #expect(NameNormalizer.similarity(smith, NameNormalizer.words(of: "Mary Smith")) < 0.8)
        #expect(NameNormalizer.similarity(smith, NameNormalizer.words(of: "Peter Kowalski")) < 0.6)
    }
}

struct JaroWinklerTests {
    // Winkler's published examples (1990), to three decimals.
    @Test(arguments: [("MARTHA", "MARHTA", 0.961), ("DWAYNE", "DUANE", 0.840), ("DIXON", "DICKSONX", 0.813)])
    func matchesPublishedValues(a: String, b: String, expected: Double) {
        #expect(abs(JaroWinkler.similarity(a, b) - expected) < 0.0005)
    }

    @Test func equalStringsScoreOneAndDisjointOnesZero() {
        #expect(JaroWinkler.similarity("smith", "smith") == 1)
        #expect(JaroWinkler.similarity("abc", "xyz") == 0)
        #expect(JaroWinkler.similarity("", "") == 1)
        #expect(JaroWinkler.similarity("a", "") == 0)
    }
}

struct PhoneNormalizationTests {
    let normalizer = PhoneNormalizer()

    @Test(arguments: ["+1 312 555 0142", "+1-312-555-0142", "+13125550142", "(312) 555-0142", "tel:+1-312-555-0142", "001 312 555 0142", "1 312 555 0142"])
    func northAmericanSpellingsAreOneNumber(written: String) {
        #expect(normalizer.normalize(written).digits == "13125550142")
    }

    @Test func aNationalNumberMatchesItsInternationalFormWhateverTheDefaultRegion() {
        let national = normalizer.normalize("030 12345678")
        let international = normalizer.normalize("+49 30 12345678")
        #expect(national.isSameNumber(as: international))
        #expect(international.isSameNumber(as: national))
        #expect(!normalizer.normalize("+44 30 12345679").isSameNumber(as: national))
    }

    @Test func differentCountryCodesAreDifferentNumbers() {
        #expect(!normalizer.normalize("+44 20 7946 0018").isSameNumber(as: normalizer.normalize("+33 20 7946 0018")))
    }

    @Test func extensionsAreKept() {
        #expect(normalizer.normalize("+1 312 555 0142 x12").digits == "13125550142x12")
        #expect(!normalizer.normalize("+1 312 555 0142 x12").isSameNumber(as: normalizer.normalize("+1 312 555 0142")))
    }

    @Test func theDefaultRegionIsAnOption() {
        #expect(PhoneNormalizer(defaultCountryCode: "44").normalize("020 7946 0018").digits == "442079460018")
    }
}

struct IdentityTests {
    @Test func emailsAreLowerCasedAndNamesFallBackToN() {
        let identity = ContactIdentity(of: card("VERSION:4.0", "N:Lovelace;Ada;;;", "EMAIL:Ada@Example.COM", "TEL:+44 20 7946 0018"))
        #expect(identity.nameKey == "ada lovelace")
        #expect(identity.emails == ["ada@example.com"])
        #expect(identity.phones.map(\.digits) == ["442079460018"])
    }
}
