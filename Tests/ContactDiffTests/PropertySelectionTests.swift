import ContactDiff
import SampleGenerator
import Testing
import VCardKit

/// `ContactSet.parsed(selecting:)`: cards read with only some properties say what whole cards say.
struct PropertySelectionTests {
    static let names = DuplicateFinder.propertiesRead

    @Test func plainCardKeepsOnlyTheNamedPropertiesAndTheCompleteCardHasTheRest() throws {
        let text = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:ada\r\nFN:Ada\r\n  Lovelace\r\nitem1.EMAIL;TYPE=work:ada@example.com\r\n"
            + "PHOTO:data:image/png;base64,iVBORw0KGgo\r\n AAAANSUhEUgAA\r\nNOTE:a\\, b\r\nTEL;VALUE=uri:tel:+44-20-7946-0000\r\nEND:VCARD\r\n"
        let entry = try #require(ContactSetReader.read(bytes: Array(text.utf8), name: "a.vcf").parsed(selecting: Self.names).first)
        #expect(entry.isPartial)
        #expect(entry.card.properties.map(\.name) == ["VERSION", "UID", "FN", "EMAIL", "TEL"])
        #expect(entry.card.formattedName == "Ada Lovelace")
        #expect(entry.completeCard.properties.map(\.name) == ["VERSION", "UID", "FN", "EMAIL", "PHOTO", "NOTE", "TEL"])
        let whole = try #require(ContactSetReader.read(bytes: Array(text.utf8), name: "a.vcf").parsed().first)
        #expect(!whole.isPartial)
        #expect(entry.hash == whole.hash)
        #expect(ContactIdentity(of: entry.card) == ContactIdentity(of: whole.card))
        #expect(entry.origin == whole.origin && entry.uid == whole.uid && entry.displayName == whole.displayName)
    }

    @Test(arguments: [
        // A quoted-printable soft line break: the next line continues the value.
        "BEGIN:VCARD\r\nVERSION:2.1\r\nFN;ENCODING=QUOTED-PRINTABLE;CHARSET=UTF-8:Ad=C3=A9le =\r\nMartin\r\nEND:VCARD\r\n",
        // A vCard 2.1 base64 block: unindented lines and a blank line.
        "BEGIN:VCARD\r\nVERSION:2.1\r\nFN:Ada\r\nPHOTO;ENCODING=BASE64;TYPE=PNG:iVBORw0K\r\nGgoAAAAN\r\n\r\nEND:VCARD\r\n",
        // A vCard 2.1 AGENT with an embedded card whose FN is not the card's.
        "BEGIN:VCARD\r\nVERSION:2.1\r\nFN:Ada\r\nAGENT:\r\nBEGIN:VCARD\r\nVERSION:2.1\r\nFN:Assistant\r\nEND:VCARD\r\nEND:VCARD\r\n",
        // A value continued after a backslash on an unindented line.
        "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada\r\nNOTE:one\\\r\ntwo\r\nEND:VCARD\r\n",
        // No VERSION: the version is guessed from the whole card.
        "BEGIN:VCARD\r\nFN:Ada\r\nEND:VCARD\r\n",
        // A lone carriage return is a line end to the parser.
        "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada\rEMAIL:x@example.com\r\nEND:VCARD\r\n",
    ])
    func cardsWhoseLinesMayContinueOtherwiseAreReadWhole(text: String) throws {
        let set = ContactSetReader.read(bytes: Array(text.utf8), name: "odd.vcf")
        let selected = set.parsed(selecting: Self.names)
        let whole = set.parsed()
        #expect(selected.map(\.isPartial) == whole.map { _ in false })
        #expect(selected.map { ContactIdentity(of: $0.card) } == whole.map { ContactIdentity(of: $0.card) })
        #expect(selected.map(\.displayName) == whole.map(\.displayName))
    }

    @Test func quotedPrintableWithoutSoftBreakIsSelectedAndDecodedAsInTheWholeCard() throws {
        let text = "BEGIN:VCARD\r\nVERSION:2.1\r\nN;ENCODING=QUOTED-PRINTABLE;CHARSET=UTF-8:M=C3=BCller;J=C3=BCrgen\r\n"
            + "FN;CHARSET=ISO-8859-1:J\u{FC}rgen M\u{FC}ller\r\nNOTE;ENCODING=QUOTED-PRINTABLE:line=0D=0Anext\r\nEND:VCARD\r\n"
        let set = ContactSetReader.read(bytes: Array(text.utf8), name: "qp.vcf")
        let entry = try #require(set.parsed(selecting: Self.names).first)
        let whole = try #require(set.parsed().first)
        #expect(entry.isPartial)
        #expect(entry.card.structuredName == whole.card.structuredName)
        #expect(entry.card.formattedName == whole.card.formattedName)
        #expect(entry.hash == whole.hash)
    }

    /// Every generated card (2.1, 3.0 and 4.0, photos, duplicates) reads the same either way, and
    /// the duplicate clusters are the same.
    @Test func generatedBookGivesTheSameIdentitiesAndClustersEitherWay() {
        var options = GeneratorOptions(count: 4_000, seed: 5, version: .mixed, photoRate: 0.1)
        options.duplicateRate = 0.05
        options.nearDuplicateRate = 0.05
        var bytes: [UInt8] = []
        _ = AddressBookGenerator(options: options).write(to: &bytes)
        let set = ContactSetReader.read(bytes: bytes, name: "book.vcf")
        let selected = set.parsed(selecting: Self.names)
        let whole = set.parsed()
        #expect(selected.count == whole.count)
        let partial = selected.filter(\.isPartial).count
        print("property selection: \(partial) of \(selected.count) generated cards read partially")
        #expect(partial * 2 > selected.count, "most generated cards are plain enough to select from")
        var mismatches: [String] = []
        for (a, b) in zip(selected, whole) where ContactIdentity(of: a.card) != ContactIdentity(of: b.card) || a.uid != b.uid
            || a.displayName != b.displayName || a.origin != b.origin || a.card.all("FN").map(\.textValue) != b.card.all("FN").map(\.textValue) {
            mismatches.append(b.origin)
        }
        #expect(mismatches.prefix(5) == [])
        let sample = selected.indices.filter { $0 % 97 == 0 }
        #expect(sample.filter { selected[$0].hash != whole[$0].hash }.prefix(5) == [])
        #expect(DuplicateFinder().clusters(in: selected) == DuplicateFinder().clusters(in: whole))
    }
}
