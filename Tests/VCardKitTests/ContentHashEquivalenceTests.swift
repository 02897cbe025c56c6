import Foundation
import SampleGenerator
import Testing
import TestSupport
@testable import VCardKit

/// ``ContentHash`` gives, for every card, exactly the digest and canonical text of the frozen v1
/// definition in `Support/ReferenceContentHash.swift`, and ``CanonicalForm/properties(of:excluding:)``
/// the same properties: the hash is stored in every journal line and index snapshot, so a faster
/// implementation may change nothing.
@Suite struct ContentHashEquivalenceTests {
    /// Checks one card; answers whether it matched.
    @discardableResult
    static func expectSameAsReference(_ card: VCard, _ origin: @autoclosure () -> String,
                                      sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Bool {
        let text = ContentHash.canonicalText(of: card)
        let referenceText = ReferenceContentHash.canonicalText(of: card)
        let hash = ContentHash(of: card)
        let referenceHash = ReferenceContentHash(of: card).contentHash
        let properties = CanonicalForm.properties(of: card).map(\.description)
        let referenceProperties = ReferenceCanonicalForm.properties(of: card).map(\.description)
        let same = text == referenceText && hash == referenceHash && properties == referenceProperties
        if !same {
            Issue.record("""
                \(origin()): the content hash differs from the v1 definition
                hash \(hash) vs \(referenceHash)
                --- canonical text
                \(text)--- v1
                \(referenceText)--- properties
                \(properties)
                --- v1
                \(referenceProperties)
                """, sourceLocation: sourceLocation)
        }
        return same
    }

    /// The cards of vCard text, as the lenient reader gives them (nothing when it refuses the
    /// input), then the same cards read as import, the folder scan and the pull read them: plain
    /// 3.0 and 4.0 cards deferred, hashed from their lines without being built.
    static func cards(_ bytes: [UInt8], source: String) -> [VCard] {
        let built = (try? VCardReader.read(bytes, sourceName: source))?.cards ?? []
        let deferred = (try? VCardReader.read(bytes, sourceName: source, options: .deferringPlainCards))?.cards ?? []
        return built + deferred
    }

    static func vcfFiles(under root: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        return enumerator.compactMap { $0 as? URL }.filter { $0.pathExtension == "vcf" }.sorted { $0.path < $1.path }
    }

    @Test(.needsSharedCorpus) func everyCorpusCardHashesAsInV1() throws {
        var checked = 0
        for entry in CorpusIndex.entries where entry.isVCardText {
            for (index, card) in Self.cards(try Array(Data(contentsOf: entry.url)), source: entry.path).enumerated() {
                Self.expectSameAsReference(card, "\(entry.path) card \(index + 1)")
                checked += 1
            }
        }
        #expect(checked > 100)
    }

    @Test func everySampleAndFixtureCardHashesAsInV1() throws {
        let roots = [TestPaths.samples] + (try FileManager.default.contentsOfDirectory(
            at: TestPaths.repositoryRoot.appendingPathComponent("Tests"), includingPropertiesForKeys: nil))
            .map { $0.appendingPathComponent("Fixtures") }
        var checked = 0
        for root in roots {
            for file in Self.vcfFiles(under: root) {
                for (index, card) in Self.cards(try Array(Data(contentsOf: file)), source: file.lastPathComponent).enumerated() {
                    Self.expectSameAsReference(card, "\(file.path) card \(index + 1)")
                    checked += 1
                }
            }
        }
        #expect(checked > 50)
    }

    @Test(arguments: [
        (UInt64(7), GeneratorOptions.Version.mixed), (11, .mixed), (23, .v3), (42, .v4), (99, .mixed),
    ])
    func everyGeneratedCardHashesAsInV1(seed: UInt64, version: GeneratorOptions.Version) {
        var book: [UInt8] = []
        _ = AddressBookGenerator(options: GeneratorOptions(count: 1500, seed: seed, version: version, photoRate: 0.2,
                                                           duplicateRate: 0.1, nearDuplicateRate: 0.1)).write(to: &book)
        let cards = Self.cards(book, source: "generated-\(seed).vcf")
        #expect(cards.count == 1500 * 2)
        for (index, card) in cards.enumerated() { Self.expectSameAsReference(card, "seed \(seed) card \(index + 1)") }
    }

    /// Cards written for the corners of the canonical form, one property or quirk each.
    static let edgeCards: [String] = [
        "FN:\r\nN:;;;;\r\nNOTE:\r\nORG:\r\nCATEGORIES:\r\nADR:;;;;;;",
        "FN:a\\,b\\;c\\\\d\\ne\\Nf\r\nNOTE:lone \\ backslash\r\nTITLE:trailing\\",
        "NOTE:\\:apple\\: escape\\x\r\nNICKNAME:a\\,b,c\\\\,d\r\nCATEGORIES:x,y\\,z,\\;",
        "N:Doe\\;x;Jane,Mary;;Dr.\r\nADR;TYPE=home:;;1 Main St\\, Apt 2;Town;;12345;Land",
        "N:Doe",
        "ORG:Acme\\, Inc.;R&D\\;Lab;\\\\",
        "FN:Zoë Ångström\r\nNOTE:日本語のメモ\r\nX-EMOJI:👩‍👩‍👧",
        "FN:Zoe\u{0308} A\u{030A}ngstro\u{0308}m\r\nNOTE:e\u{0301}\r\nNOTE:\u{00E9}\r\nNOTE:e",
        // Orders that differ between bytes and NFC: a decomposed é sorts after "e中" as a String.
        "NOTE:e\u{0301}\r\nNOTE:e\u{4E00}\r\nNOTE:e\u{00FF}",
        "a.NOTE:e\u{0301}\r\nb.NOTE:e\u{4E00}",
        "a.NOTE:e\u{0301}\r\na.NOTE:e\u{4E00}\r\nb.NOTE:e\u{4E00}\r\nb.NOTE:f",
        "FN:B\r\nNOTE:a\r\nNOTE:B\r\nNOTE:_\r\nNOTE:é\r\nNOTE:z\r\nNOTE:Z\r\nNOTE:\u{1F600}\r\nNOTE:\u{FF21}",
        "TEL;VALUE=uri:tel:+1-555-123-4567\r\nTEL;TYPE=cell:+1 (555) 123.4567\r\nTEL:+49\\,30 1234",
        "TEL;TYPE=work,voice,pref:555 1234\r\nTEL;PREF=1;TYPE=WORK,VOICE:5551234\r\nTEL:tel:+44 20 (7946) 0958 ext. 12",
        "TEL:+81-３-1234-5678\r\nTEL:\u{00A0}555\u{2011}1234",
        "ADR;LABEL=\"1 Main St\\nTown\";TYPE=home:;;1 Main St;Town;;;\r\nADR;LABEL=a,b;PREF=2;TYPE=work:;;x;;;;",
        "LABEL;TYPE=HOME:1 Main St\\nTown\r\nADR;TYPE=home:;;1 Main St;Town;;;",
        "EMAIL;TYPE=pref:a@example.com\r\nEMAIL;PREF=1:a@example.com\r\nEMAIL;TYPE=INTERNET,pref;PREF=3:b@example.com",
        "EMAIL;TYPE=internet:c@example.com\r\nEMAIL;type=Work,HOME:d@example.com\r\nEMAIL;TYPE=\"work,home\":d@example.com",
        "N;SORT-AS=\"Doe,Jane\":Doe;Jane;;;\r\nSORT-STRING:Doe\r\nN;SORT-AS=a,b:X;Y;;;",
        "GEO:37.386013;-122.082932\r\nGEO:geo:37.386013,-122.082932\r\nGEO: 1.5 ; 2.5 \r\nGEO:north;south",
        "BDAY:1985-04-12\r\nANNIVERSARY:19850412\r\nBDAY:--04-12\r\nBDAY:--0412\r\nBDAY:1985-04-12T10:22:00-05:00",
        "BDAY:19850412T102200Z\r\nDEATHDATE:T10:22\r\nBDAY:---12\r\nBDAY:--,--02\r\nBDAY;VALUE=text:circa 1800\r\nBDAY:2001-13-45T",
        "X-DATE;VALUE=date:2001-02-03\r\nX-TIME;VALUE=time:10:22:00\r\nX-DT;VALUE=date-time:2001-02-03T04:05:06+01:00\r\nX-TS;VALUE=timestamp:2001-02-03T04:05:06Z",
        "X-D;VALUE=DATE:1999-12-31\r\nX-T;VALUE=time:T1022\r\nX-U;VALUE=uri:http://x\r\nX-TXT;VALUE=text:a\\,b\r\nX-B;VALUE=binary:AAAA",
        "TZ:-05:00\r\nTZ;VALUE=utc-offset:+01:00\r\nTZ;VALUE=text:Europe/Berlin\r\nTZ:Europe/Paris",
        "XML:<a xmlns=\"urn:x\"><b x=\"1\"></b><c/></a>\r\nXML:<a xmlns=\"urn:x\"><b x=\"1\"/><c></c></a>\r\nXML:<a>x\\,y</a>",
        "item1.EMAIL:a@example.com\r\nitem1.X-ABLABEL:work\r\nitem2.EMAIL:a@example.com\r\nitem2.X-ABLABEL:work",
        "work.EMAIL:a@example.com\r\nWORK.X-ABLABEL:_$!<Other>!$_\r\nhome.TEL:1\r\nhome.X-ABLABEL:b\r\nz.NOTE:n\r\na.NOTE:n",
        "PHOTO;ENCODING=b;TYPE=JPEG:AAEC AwQF\r\n BgcI\r\nLOGO;ENCODING=BASE64;TYPE=png:iVBO\tRw0K",
        "PHOTO:data:image/JPEG;base64,AAEC AwQF\r\nPHOTO:data:;base64,AAAA\r\nPHOTO:data:image/png,notbase64\r\nPHOTO;VALUE=uri:http://x/p.jpg",
        "PHOTO;ENCODING=b:AA\u{0B}BB\u{0C}CC\r\nSOUND;ENCODING=b;TYPE=OGG:AAAA\r\nKEY;ENCODING=b:\u{00A0}AAAA",
        "X-UNKNOWN:a\\,b;c\r\nX-FOO;X-P=1;x-p=2:v\r\nX-BAR;VALUE=date:2001-02-03\r\nX-BAR;VALUE=date-and-or-time:--0203",
        "KIND:individual\r\nKIND:INDIVIDUAL\r\nKIND:group\r\nMEMBER:urn:uuid:x",
        "UID:abc\r\nREV:20200101T000000Z\r\nPRODID:-//x//y\r\nFN:volatile",
        "GENDER:M\r\nGENDER:F;x\r\nCLIENTPIDMAP:1\r\nCLIENTPIDMAP:1;urn:uuid:x\r\nRELATED;TYPE=friend:urn:uuid:y",
        "ORG;SORT-AS=x:A;B\r\nNICKNAME;TYPE=work,home:n\r\nIMPP;PREF=1:xmpp:a@b\r\nLANG;PREF=1:fr\r\nURL;TYPE=WORK:http://x",
        "FN;LANGUAGE=de;ALTID=1;PID=1.1:x\r\nFN;PID=1.1;ALTID=1;LANGUAGE=de:x\r\nFN;X-A=\"a,b\";X-A=c:y",
    ]

    static func edgeCardText(_ body: String, version: String) -> String {
        "BEGIN:VCARD\r\nVERSION:\(version)\r\n\(body)\r\nEND:VCARD\r\n"
    }

    static let edgeCards21: [String] = [
        "N;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:M=C3=BCller;J=C3=B6rg\r\nFN;CHARSET=utf-8;QUOTED-PRINTABLE:J=C3=B6rg",
        "TEL;WORK;VOICE;PREF:+1-555-0000\r\nEMAIL;INTERNET:a@example.com\r\nLABEL;HOME;ENCODING=QUOTED-PRINTABLE:1 Main=0D=0ATown",
        "PHOTO;ENCODING=BASE64;TYPE=GIF:\r\n R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7\r\n\r\nNOTE;ENCODING=QUOTED-PRINTABLE:a=\r\n b",
    ]

    @Test func everyEdgeCardHashesAsInV1() {
        var checked = 0
        for version in ["3.0", "4.0"] {
            for body in Self.edgeCards {
                let text = Self.edgeCardText(body, version: version)
                for card in Self.cards(Array(text.utf8), source: "edge") {
                    Self.expectSameAsReference(card, "edge card \(version): \(body)")
                    checked += 1
                }
            }
        }
        for body in Self.edgeCards21 {
            for card in Self.cards(Array(Self.edgeCardText(body, version: "2.1").utf8), source: "edge21") {
                Self.expectSameAsReference(card, "edge card 2.1: \(body)")
                checked += 1
            }
        }
        #expect(checked == (Self.edgeCards.count * 2 + Self.edgeCards21.count) * 2)
    }

    /// Pieces a mutation inserts: escapes, separators, non-ASCII and NFD text, dates, URIs.
    static let insertions: [String] = [
        "\\", "\\\\", "\\,", "\\;", "\\n", "\\N", ",", ";", ":", "=", "\"", " ", "\t", "-", ".", "(", ")", "T",
        "é", "e\u{0301}", "Å", "日本", "\u{1F600}", "\u{00A0}", "ß", "İ", "tel:", "data:image/png;base64,", "geo:1,2",
        "1985-04-12", "--0412", "10:22:00Z", "+05:00", "></x>", "<y></y>", "pref", "PREF", "internet", "Z", "a", "0",
    ]

    /// Parameters a mutation adds.
    static let parameterInsertions: [String] = [
        ";TYPE=pref", ";TYPE=work,HOME", ";PREF=2", ";VALUE=date", ";VALUE=text", ";VALUE=uri", ";VALUE=time",
        ";ENCODING=b", ";CHARSET=utf-8", ";LABEL=\"x\\ny\"", ";SORT-AS=\"a,b\"", ";X-P=é", ";type=INTERNET", ";VALUE=timestamp",
    ]

    static func mutated(_ card: String, using random: inout SeededGenerator) -> String {
        var lines = card.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        guard lines.count > 3 else { return card }
        let bodyRange = 2..<(lines.count - 1)
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let index = Int.random(in: bodyRange, using: &random)
            var line = lines[index]
            guard !line.hasPrefix(" "), !line.hasPrefix("\t") else { continue }
            switch Int.random(in: 0..<8, using: &random) {
            case 0, 1:
                let piece = insertions.randomElement(using: &random)!
                if let colon = line.firstIndex(of: ":") {
                    let valueCount = line.distance(from: colon, to: line.endIndex)
                    let at = line.index(colon, offsetBy: Int.random(in: 1...max(1, valueCount), using: &random), limitedBy: line.endIndex) ?? line.endIndex
                    line.insert(contentsOf: piece, at: at)
                }
            case 2:
                if let name = line.firstIndex(where: { $0 == ";" || $0 == ":" }) {
                    line.insert(contentsOf: parameterInsertions.randomElement(using: &random)!, at: name)
                }
            case 3:
                line = ["item1.", "ITEM2.", "a.", "item1."].randomElement(using: &random)! + line
            case 4:
                line = Bool.random(using: &random) ? line.lowercased() : line.uppercased()
            case 5:
                lines.insert(line, at: index)
            case 6:
                if let colon = line.firstIndex(of: ":") { line = String(line[...colon]) }
            default:
                let other = Int.random(in: bodyRange, using: &random)
                lines.swapAt(index, other)
                continue
            }
            lines[index] = line
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    @Test func seededMutationsOfGeneratedAndEdgeCardsHashAsInV1() {
        var random = SeededGenerator(seed: 20261126)
        let generator = AddressBookGenerator(options: GeneratorOptions(count: 400, seed: 5, version: .mixed, photoRate: 0.1,
                                                                       duplicateRate: 0.05, nearDuplicateRate: 0.05))
        var sources = generator.makeCards().map(\.text)
        sources += Self.edgeCards.map { Self.edgeCardText($0, version: "4.0") }
        sources += Self.edgeCards.map { Self.edgeCardText($0, version: "3.0") }
        var checked = 0
        for round in 0..<4000 {
            let source = sources[round % sources.count]
            let variant = Self.mutated(source, using: &random)
            for card in Self.cards(Array(variant.utf8), source: "mutation \(round)") {
                if !Self.expectSameAsReference(card, "mutation \(round):\n\(variant)") { return }
                checked += 1
            }
        }
        #expect(checked > 3000)
    }

    @Test(.needsSharedCorpus) func seededMutationsOfCorpusCardsHashAsInV1() throws {
        var random = SeededGenerator(seed: 14)
        var sources: [String] = []
        for entry in CorpusIndex.entries where entry.isVCardText {
            guard let text = String(data: try Data(contentsOf: entry.url), encoding: .utf8) else { continue }
            for piece in text.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "END:VCARD") {
                guard let begin = piece.range(of: "BEGIN:VCARD") else { continue }
                sources.append((piece[begin.lowerBound...] + "END:VCARD\n").replacingOccurrences(of: "\n", with: "\r\n"))
            }
        }
        #expect(!sources.isEmpty)
        for round in 0..<3000 where !sources.isEmpty {
            let variant = Self.mutated(sources[Int.random(in: 0..<sources.count, using: &random)], using: &random)
            for card in Self.cards(Array(variant.utf8), source: "corpus mutation \(round)") {
                if !Self.expectSameAsReference(card, "corpus mutation \(round):\n\(variant)") { return }
            }
        }
    }
}
