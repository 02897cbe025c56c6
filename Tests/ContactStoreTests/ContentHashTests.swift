import Testing
import VCardKit

/// Pairs of cards that must, and must not, have the same content hash.
struct ContentHashTests {
    static func card(_ text: String) throws -> VCard {
        let result = try VCardReader.read(text.replacingOccurrences(of: "\n", with: "\r\n"))
        return try #require(result.cards.first)
    }

    static let base = """
        BEGIN:VCARD
        VERSION:3.0
        UID:one
        FN:Ada Lovelace
        N:Lovelace;Ada;;;
        EMAIL;TYPE=WORK,PREF:ada@example.com
        TEL;TYPE=cell:+44 20 7946 0000
        item1.ADR;TYPE=home:;;12 St James's Square;London;;SW1Y 4JH;UK
        item1.X-ABLABEL:Home
        NOTE:Analyst\\, mathematician
        END:VCARD

        """

    /// Cards that say the same as `base` in another form.
    static let sameMeaning: [(String, String)] = [
        ("folding and LF line ends", base.replacingOccurrences(of: "NOTE:Analyst\\, mathematician", with: "NOTE:Analyst\\, mat\n hematician")),
        ("property and parameter case", base.replacingOccurrences(of: "EMAIL;TYPE=WORK,PREF", with: "email;type=work,pref")),
        ("parameter order and spelling", base.replacingOccurrences(of: "EMAIL;TYPE=WORK,PREF", with: "EMAIL;TYPE=pref;TYPE=work")),
        ("quoting", base.replacingOccurrences(of: "TEL;TYPE=cell", with: "TEL;TYPE=\"cell\"")),
        ("quoted-printable", base.replacingOccurrences(of: "NOTE:Analyst\\, mathematician",
                                                       with: "NOTE;ENCODING=QUOTED-PRINTABLE;CHARSET=UTF-8:Analyst=2C mathematician")),
        ("property order", base.replacingOccurrences(of: "FN:Ada Lovelace\nN:Lovelace;Ada;;;", with: "N:Lovelace;Ada;;;\nFN:Ada Lovelace")),
        ("group label", base.replacingOccurrences(of: "item1.", with: "home.")),
        ("UID, REV and PRODID", base.replacingOccurrences(of: "UID:one", with: "UID:two\nREV:20250101T000000Z\nPRODID:-//other//EN")),
        ("vCard 4.0 spelling", """
            BEGIN:VCARD
            VERSION:4.0
            FN:Ada Lovelace
            N:Lovelace;Ada;;;
            EMAIL;TYPE=work;PREF=1:ada@example.com
            TEL;TYPE=cell:+44 20 7946 0000
            item1.ADR;TYPE=home:;;12 St James's Square;London;;SW1Y 4JH;UK
            item1.X-ABLABEL:Home
            NOTE:Analyst\\, mathematician
            UID:urn:uuid:0a1b2c3d-0000-4000-8000-000000000001
            END:VCARD

            """),
    ]

    /// Cards that differ from `base` in meaning.
    static let otherMeaning: [(String, String)] = [
        ("another e-mail address", base.replacingOccurrences(of: "ada@example.com", with: "ada@example.org")),
        ("value case", base.replacingOccurrences(of: "Analyst", with: "analyst")),
        ("another type", base.replacingOccurrences(of: "TYPE=cell", with: "TYPE=home")),
        ("a property twice", base.replacingOccurrences(of: "NOTE:", with: "EMAIL;TYPE=WORK,PREF:ada@example.com\nNOTE:")),
        ("a property removed", base.replacingOccurrences(of: "TEL;TYPE=cell:+44 20 7946 0000\n", with: "")),
        ("group membership", base.replacingOccurrences(of: "item1.X-ABLABEL", with: "item2.X-ABLABEL")),
        ("white space inside a value", base.replacingOccurrences(of: "Ada Lovelace", with: "Ada  Lovelace")),
    ]

    @Test(arguments: sameMeaning)
    func hashesEqualWhenOnlyTheFormDiffers(_ label: String, _ text: String) throws {
        #expect(ContentHash(of: try Self.card(Self.base)) == ContentHash(of: try Self.card(text)), "\(label)")
    }

    @Test(arguments: otherMeaning)
    func hashesDifferWhenTheMeaningDiffers(_ label: String, _ text: String) throws {
        #expect(ContentHash(of: try Self.card(Self.base)) != ContentHash(of: try Self.card(text)), "\(label)")
    }

    @Test func hexDigitsRoundTrip() throws {
        let hash = ContentHash(of: try Self.card(Self.base))
        #expect(hash.hexDigits.count == 64)
        #expect(ContentHash(hexDigits: hash.hexDigits) == hash)
        #expect(ContentHash(hexDigits: "xyz") == nil)
    }

    @Test func groupsAreRelabelledByContent() throws {
        let a = try Self.card(Self.base.replacingOccurrences(of: "item1.", with: "zz."))
        #expect(ContentHash.canonicalText(of: a).contains("g1.ADR"))
    }

    @Test func nameHashIgnoresSpacingCaseAndOrder() throws {
        let names = ["John  Smith", "smith, john", "Smith John"].map { name in
            try! Self.card("BEGIN:VCARD\nVERSION:4.0\nFN:\(name)\nEND:VCARD\n")
        }
        let hashes = names.map { NameHash(of: $0) }
        #expect(hashes[0] != nil)
        #expect(Set(hashes.map { $0?.hexDigits }).count == 1)
        let other = try Self.card("BEGIN:VCARD\nVERSION:4.0\nFN:Jane Smith\nEND:VCARD\n")
        #expect(NameHash(of: other) != hashes[0])
        #expect(NameHash(of: try Self.card("BEGIN:VCARD\nVERSION:4.0\nEMAIL:a@b.c\nEND:VCARD\n")) == nil)
    }
}
