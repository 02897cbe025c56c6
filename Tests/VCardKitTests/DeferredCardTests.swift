import Foundation
import SampleGenerator
import Testing
import TestSupport
@testable import VCardKit

/// A card read with ``VCardReadOptions/deferredVersions`` is the card read without it: the same
/// diagnostics in the same order, the same properties (with their original bytes and lines), the
/// same text written in every version. Only when the properties are built differs.
@Suite struct DeferredCardTests {
    /// Both readings of `bytes`, by ``VCardReader`` and by frames parsed one by one, compared;
    /// answers how many cards were deferred (checked without being built).
    @discardableResult
    static func expectSameReading(_ bytes: [UInt8], source: String, options: VCardReadOptions = .lenient,
                                  sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Int {
        var deferring = options
        deferring.deferredVersions = [.v3_0, .v4_0]
        let built = try? VCardReader.read(bytes, sourceName: source, options: options)
        let deferred = try? VCardReader.read(bytes, sourceName: source, options: deferring)
        guard let built, let deferred else {
            #expect((built == nil) == (deferred == nil), "\(source): one reading failed", sourceLocation: sourceLocation)
            return 0
        }
        #expect(deferred.diagnostics == built.diagnostics, "\(source): diagnostics differ", sourceLocation: sourceLocation)
        #expect(deferred.cards.count == built.cards.count, "\(source): card counts differ", sourceLocation: sourceLocation)
        var deferredCount = 0
        for (index, (card, reference)) in zip(deferred.cards, built.cards).enumerated() {
            if card.isDeferred { deferredCount += 1 }
            expectSameCard(card, reference, "\(source) card \(index + 1)", sourceLocation: sourceLocation)
        }
        #expect(VCardWriter().bytes(for: deferred) == VCardWriter().bytes(for: built), "\(source): files written back differ",
                sourceLocation: sourceLocation)

        // Framed, as `convert` and `validate` read: each frame parsed on its own.
        var framing = VCardParser(framingOnly: source, options: deferring)
        framing.feed(bytes)
        framing.finish()
        var framed: [(card: VCard?, diagnostics: [Diagnostic])] = []
        while let frame = framing.nextFrame() { framed.append(frame.parse()) }
        var builtFraming = VCardParser(framingOnly: source, options: options)
        builtFraming.feed(bytes)
        builtFraming.finish()
        var index = 0
        while let frame = builtFraming.nextFrame() {
            let reference = frame.parse()
            guard index < framed.count else {
                Issue.record("\(source): fewer frames when deferring", sourceLocation: sourceLocation)
                break
            }
            #expect(framed[index].diagnostics == reference.diagnostics, "\(source) frame \(index + 1): diagnostics differ",
                    sourceLocation: sourceLocation)
            if let card = framed[index].card, let referenceCard = reference.card {
                expectSameCard(card, referenceCard, "\(source) frame \(index + 1)", sourceLocation: sourceLocation)
            } else {
                #expect((framed[index].card == nil) == (reference.card == nil), sourceLocation: sourceLocation)
            }
            index += 1
        }
        #expect(index == framed.count, "\(source): frame counts differ", sourceLocation: sourceLocation)
        return deferredCount
    }

    /// Everything a reader of `card` can see, compared with `reference` (read without deferring).
    static func expectSameCard(_ card: VCard, _ reference: VCard, _ origin: String, sourceLocation: Testing.SourceLocation) {
        // First, before anything builds the card's properties: what is read from its lines alone.
        #expect(ContentHash(of: card) == ContentHash(of: reference),
                "\(origin): content hashes differ:\n\(ContentHash.canonicalText(of: card))\nexpected:\n\(ContentHash.canonicalText(of: reference))",
                sourceLocation: sourceLocation)
        #expect(CanonicalForm.properties(of: card) == CanonicalForm.properties(of: reference), "\(origin): canonical forms differ",
                sourceLocation: sourceLocation)
        // Left out by name: a registered name, and one that is not (the card's first such name).
        let unregistered = reference.properties.first { PropertyTraits.of($0.name).registeredName == nil }.map(\.upperName) ?? "X-NONE"
        let exclusions = CanonicalForm.Exclusions(names: ["REV", unregistered])
        #expect(CanonicalForm.properties(of: card, excluding: exclusions) == CanonicalForm.properties(of: reference, excluding: exclusions),
                "\(origin): canonical forms without REV and \(unregistered) differ", sourceLocation: sourceLocation)
        // ... and leaving them out removes exactly their lines, whichever way the card is read.
        let kept = CanonicalForm.properties(of: reference, excluding: CanonicalForm.Exclusions(names: [])).filter { $0.name != "REV" && $0.name != unregistered }
        #expect(CanonicalForm.properties(of: card, excluding: exclusions) == kept,
                "\(origin): leaving out REV and \(unregistered) removed other lines, or not theirs", sourceLocation: sourceLocation)
        // Every name the card holds, and a few it may not (in another case too).
        let names = Set(reference.properties.map(\.name)).sorted()
            + ["UID", "FN", "fn", "N", "VERSION", "EMAIL", "TEL", "X-ABLABEL", "NOTE", "PHOTO", "NO-SUCH-PROPERTY"]
        for name in names {
            let first = card.first(name), expected = reference.first(name)
            #expect(first == expected && first?.original.map(Array.init) == expected?.original.map(Array.init) && first?.line == expected?.line,
                    "\(origin): the first \(name) differs", sourceLocation: sourceLocation)
        }
        #expect(card.uid == reference.uid && card.formattedName == reference.formattedName, sourceLocation: sourceLocation)
        #expect(card.properties == reference.properties, "\(origin): properties differ", sourceLocation: sourceLocation)
        #expect(card.properties.map { $0.original.map(Array.init) } == reference.properties.map { $0.original.map(Array.init) },
                "\(origin): original bytes differ", sourceLocation: sourceLocation)
        #expect(card.properties.map(\.line) == reference.properties.map(\.line), "\(origin): lines differ", sourceLocation: sourceLocation)
        #expect(card.originalBegin.map(Array.init) == reference.originalBegin.map(Array.init), sourceLocation: sourceLocation)
        #expect(card.originalEnd.map(Array.init) == reference.originalEnd.map(Array.init), sourceLocation: sourceLocation)
        #expect(card.originalText.map(Array.init) == reference.originalText.map(Array.init), sourceLocation: sourceLocation)
        #expect(card.blankLinesBefore == reference.blankLinesBefore, sourceLocation: sourceLocation)
        #expect(card.location == reference.location, sourceLocation: sourceLocation)
        #expect(card.sourceVersion == reference.sourceVersion, sourceLocation: sourceLocation)
        #expect(card.isUnedited == reference.isUnedited, sourceLocation: sourceLocation)
        for target in [VCardVersion.v3_0, .v4_0] {
            // A deferred card in another version is converted from its lines (the unchanged ones
            // copied): the same text and the same notes, in the same order.
            let writer = VCardWriter(target: target)
            var written: [UInt8] = [], referenceWritten: [UInt8] = []
            let notes = writer.write(card, into: &written)
            let referenceNotes = writer.write(reference, into: &referenceWritten)
            // (Compared as bytes; the texts are shown only when they differ.)
            let sameText = written == referenceWritten
            #expect(sameText, "\(origin): written as \(target.rawValue) differs:\n\(String(decoding: written, as: UTF8.self))\nexpected:\n\(String(decoding: referenceWritten, as: UTF8.self))",
                    sourceLocation: sourceLocation)
            #expect(notes == referenceNotes, "\(origin): notes of writing as \(target.rawValue) differ", sourceLocation: sourceLocation)
        }
    }

    @Test(.needsSharedCorpus) func everyCorpusFileReadsTheSameDeferred() throws {
        var deferred = 0
        for entry in CorpusIndex.entries where entry.isVCardText {
            let bytes = try Array(Data(contentsOf: entry.url))
            deferred += Self.expectSameReading(bytes, source: entry.path)
            Self.expectSameReading(bytes, source: entry.path, options: .validation)
        }
        #expect(deferred > 50, "the corpus has plain 3.0 and 4.0 cards")
    }

    @Test func everySampleAndFixtureFileReadsTheSameDeferred() throws {
        let roots = [TestPaths.samples] + (try FileManager.default.contentsOfDirectory(
            at: TestPaths.repositoryRoot.appendingPathComponent("Tests"), includingPropertiesForKeys: nil))
            .map { $0.appendingPathComponent("Fixtures") }
        var files = 0
        var deferred = 0
        for root in roots {
            for file in ContentHashEquivalenceTests.vcfFiles(under: root) {
                let bytes = try Array(Data(contentsOf: file))
                deferred += Self.expectSameReading(bytes, source: file.lastPathComponent)
                Self.expectSameReading(bytes, source: file.lastPathComponent, options: .validation)
                files += 1
            }
        }
        #expect(files > 20)
        #expect(deferred > 20)
    }

    @Test(arguments: [(UInt64(7), GeneratorOptions.Version.mixed), (23, .v3), (42, .v4)])
    func generatedBooksReadTheSameDeferred(seed: UInt64, version: GeneratorOptions.Version) {
        var book: [UInt8] = []
        _ = AddressBookGenerator(options: GeneratorOptions(count: 600, seed: seed, version: version, photoRate: 0.2,
                                                           duplicateRate: 0.1, nearDuplicateRate: 0.1)).write(to: &book)
        let deferred = Self.expectSameReading(book, source: "generated-\(seed).vcf")
        #expect(deferred > 100)
    }

    /// The corner cards of the canonical form, and lines built to sit right at the edge of what is
    /// checked without building (parameters, values, groups, folds), in both versions.
    @Test(arguments: ["3.0", "4.0"]) func edgeCardsReadTheSameDeferred(version: String) {
        let edges = ContentHashEquivalenceTests.edgeCards + [
            "FN:plain\r\nN:a;b;c;d;e\r\nADR:;;x;;;;\r\nN:short\r\nADR:a;b",
            "FN:x\r\nTEL;TYPE=cell,voice,x-own,made-up:1\r\nEMAIL;TYPE=work,,home:a@b\r\nEMAIL;TYPE=:a@b\r\nEMAIL;TYPE:a@b",
            "FN:x\r\nNOTE;LANGUAGE=en-GB:a\r\nNOTE;LANGUAGE=not_a_tag:b\r\nNOTE;LANGUAGE=en,fr-CA,x:c\r\nNOTE;SORT-AS=a,b:c",
            "FN:x\r\nN;SORT-AS=\"a;b\":a;b;;;\r\nNOTE;X-P=a^nb:c\r\nNOTE;X-P=\"q\":c\r\nNOTE;X-ODD=é:c\r\nNOTE;X-T=a\tb:c",
            "FN:x\r\nPHOTO:http://example.com/p.jpg\r\nPHOTO:AAAA\r\nLOGO;VALUE=uri:http://x\r\nSOUND:data:audio/ogg;base64,AAAA",
            "FN:x\r\nNOTE;ENCODING=QUOTED-PRINTABLE:a=3Db\r\nNOTE;CHARSET=utf-8:x\r\nNOTE;encoding=b:AAAA",
            "FN:x\r\nNOTE:a long note that is folded\r\n  across two lines\r\nNOTE:ends with an equals sign=\r\nNOTE:and a backslash\\",
            "FN:x\r\nNOTE:é split\r\n é\r\nX-Ünicode:x\r\ngrp.NOTE:grouped\r\ng.r.NOTE:two dots\r\n-x.NOTE:y",
            "FN:x\r\nNOTE:tab\tinside\r\nNOTE:control\u{07}inside\r\n#comment\r\nno colon here\r\nNOTE:after",
            "FN:x\r\nKIND:individual\r\nLABEL:old\r\nMAILER:m\r\nCLIENTPIDMAP:1;urn:x\r\nX-:empty extension\r\nFOO:unknown",
            "FN:x\r\nUID:a\r\nUID:b\r\nREV:1\r\nREV:2\r\nVERSION:\(version)\r\nN:a;b;;;\r\nN:c;d;;;",
            "N:no;fn;;;\r\nNOTE:x",
            "FN:x\r\nAGENT:http://example.com/agent\r\nAGENT;VALUE=uri:CID:x",
            "FN:x\r\n\r\nNOTE:after a blank line",
            "FN:x\r\nNOTE;:empty parameter\r\nNOTE;=v:nameless\r\nNOTE;X-A=1;X-B=2,3:ok",
            "FN:x\r\nTEL;TYPE=\"work,fax\":1\r\nTEL;TYPE=\"work,,fax\":2\r\nTEL;TYPE=\"cell\",voice:3\r\nTEL;type=\"WORK,made-up\":4",
            "FN:x\r\nX-C;X-P=\"a,b\":c\r\nX-C;X-P=\"\":c\r\nX-C;X-P=\"a\"b:c\r\nX-C;X-P=\"a;b:c\":d\r\nX-C;X-P=\"open:x",
            "FN:x\r\nADR;LABEL=\"x,y\";TYPE=\"home,postal\":;;a;b;;;\r\nNOTE;LANGUAGE=\"en,zz-99-toolong9\":x\r\nN;SORT-AS=\"a,b\":a;b;;;",
            "FN:x\r\nNOTE;X-E=QUOTED-PRINTABLE:soft=\r\nbreak\r\nNOTE:plain=\r\nNOTE;QUOTED-PRINTABLE:a=\r\nb",
            "FN:x\r\nN;X-E=QUOTED-PRINTABLE:a;b;c;d=\r\nX-F:e;f\r\nNOTE:after",
            "FN:x\r\nNOTE:odd backslash\\\r\ncontinued text\r\nNOTE:even\\\\\r\nNOTE:after",
            "FN:x\r\nAGENT:BEGIN:VCARD\r\nFN:inner\r\nEND:VCARD\r\nNOTE:outer",
            "FN:x\r\nAGENT;X-P=1:BEGIN:VCARD\r\nFN:inner\r\nEND:VCARD\r\nNOTE:outer",
            "FN:x\r\ng.AGENT:BEGIN:VCARD\r\nFN:inner\r\nEND:VCARD\r\nNOTE:outer",
            "FN:x\r\nAGENT:\r\nBEGIN:VCARD\r\nFN:inner\r\nEND:VCARD\r\nNOTE:outer",
            "FN:x\r\nNOTE:folded\r\n\r\n  after a blank line\r\nNOTE:last",
            "FN:x\r\nNOTE:folded into a\r\n  \r\nNOTE:white-space-only continuation",
            "FN:x\r\nGEO;X-Q=\"1,2\":geo:1,2\r\nTZ;X-Q=\"a\";X-R=b:Europe/Paris\r\nNOTE;X-Q=\"caret^n\":x\r\nNOTE;X-Q=\"é\":x",
            // What conversion between 3.0 and 4.0 changes, beside lines it leaves alone.
            "FN:x\r\nN:a;b;;;\r\nSORT-STRING:b\r\nADR;TYPE=home:;;1;2;;;\r\nLABEL;TYPE=home:1\\n2\r\nTEL;TYPE=\"voice,PREF\":1\r\nNOTE:x",
            "FN:x\r\nTEL;type=pref:2\r\nTEL;TYPE=x-prefix:3\r\nTEL;PREF=1:4\r\nURL;VALUE=URL:http://x\r\nGEO:1.5;2.5\r\nEMAIL;TYPE=INTERNET,pref:a@b",
            "FN:x\r\nN;SORT-AS=\"b,a\":a;b;;;\r\nADR;LABEL=\"1\\n2\";TYPE=work:;;1;2;;;\r\nGEO:geo:1.5,2.5\r\nPHOTO;MEDIATYPE=image/png:data:image/png;base64,AAAA",
            "FN:x\r\nNOTE:a line longer than seventy-five octets, written on one line, which the writer folds\r\nNOTE:short",
            "FN:x\r\nNOTE:folded as the writer folds, one space after a line end, each line within seventy-\r\n five octets\r\nNOTE:x",
            "FN:x\r\nCLASS:PUBLIC\r\nMAILER:m\r\nKIND:group\r\nGENDER:M\r\nitem1.ADR:;;a;;;;\r\nitem1.LABEL:a\r\nitem1.X-ABLABEL:home",
            "FN:x\r\nLABEL;TYPE=work:no address\r\nSORT-STRING:one\r\nSORT-STRING:two\r\nversion:\(version)\r\nNOTE:after",
            // Folded lines the content hash reads in place, unfolded.
            "FN:x\r\nTEL;TYPE=ce\r\n ll,VOICE:1\r\nNOTE:tab\r\n\tfolded\r\nX-A:b\r\n  two spaces\r\nitem1.EMAIL;TYPE=\"wo\r\n rk\":a@b\r\nKIND:indiv\r\n idual",
            "FN:x\r\nN:a\\\r\n ;b;;;\r\nNOTE:a,b\r\n ;c\\n\r\n d\r\nCATEGORIES:a,\r\n b\r\nADR;TYPE=home:;;1\r\n ;2;;;",
            // Inline base64, read in place only while it is kept as written.
            "FN:x\r\nPHOTO;ENCODING=b;TYPE=JPEG:QUJD\r\nLOGO;encoding=BASE64;TYPE=png:QUJDRA==\r\nKEY;ENCODING=B:QU JD\r\nNOTE;ENCODING=b:a b",
            "FN:x\r\nPHOTO;ENCODING=b:QUJDRE\r\n VGR0g=\r\nSOUND;ENCODING=\"b\":QUJD\r\nPHOTO;ENCODING=b;ENCODING=b:QUJD\r\nPHOTO;ENCODING=bb:QUJD",
            "FN:x\r\nPHOTO;ENCODING=b:QUJD\r\nQUJDRA\r\nNOTE:after a base64 line without a colon",
            // An unindented base64 line followed by a fold with a colon (found by fuzzing): the
            // full parse joins the base64 line to the photo, and the fold then has no property.
            "FN:x\r\nPHOTO;ENCODING=b:QUJD\r\nQUJD\r\n X-A:b\r\nNOTE:y",
            "FN:x\r\nPHOTO;ENCODING=b:QUJD\tRA\r\nPHOTO;ENCODING=QUOTED-PRINTABLE:QUJD\r\nPHOTO;ENCODING=8BIT:QUJD\r\nPHOTO;X-E=B:QUJD",
            "FN:x\r\nPHOTO:QUJD\r\nPHOTO;VALUE=uri:http://x/p.jpg\r\nPHOTO;ENCODING=b;VALUE=binary:QUJD\r\nPHOTO;ENCODING=b:data:image/png;base64,QUJD",
            // Inline binary as the content hash reads it in place: the media type from the first
            // TYPE as written (after a `pref`), the others kept; a `data:` URI's header lower-cased.
            "FN:x\r\nPHOTO;ENCODING=b;TYPE=GIF;TYPE=JPEG:QUJD\r\nLOGO;TYPE=pref,PNG,work;ENCODING=b:QUJD\r\nKEY;ENCODING=b;TYPE=PGP,x509:QUJD",
            "FN:x\r\nPHOTO;TYPE=image/JPEG,home;ENCODING=b;PREF=2:QUJD\r\nSOUND;ENCODING=b;TYPE=MP3:QUJD\r\nPHOTO;ENCODING=b;TYPE=:QUJD",
            "FN:x\r\nPHOTO:data:IMAGE/Png;base64,QUJD\r\nPHOTO:data:;base64,QUJD\r\nPHOTO:data:image/png,QUJD\r\nPHOTO:DATA:image/png;base64,QUJD",
            "FN:x\r\nPHOTO:data:image/png;BASE64,QUJD\r\nPHOTO:data:image/png;base64,QU JD\tRA\r\nPHOTO:data:imäge/png;base64,QUJD\r\nPHOTO:data:image/png;base64,QUJD é",
            "FN:x\r\nPHOTO;TYPE=work;VALUE=uri:data:image/gif;base64,QUJD\r\nPHOTO:data:a,b;base64,QUJD\r\nPHOTO:data:;base64\r\nPHOTO:data:x;base64,",
            "FN:x\r\nPHOTO;ENCODING=b;TYPE=JPEG:QUJDRE\r\n VGR0g=\r\nPHOTO:data:image/png;base64,QUJD\r\n RA==\r\ng.PHOTO;ENCODING=b:QUJD\r\nPHOTO;X-A=b;ENCODING=b:QUJD",
        ]
        for (index, edge) in edges.enumerated() {
            let text = "BEGIN:VCARD\r\nVERSION:\(version)\r\n\(edge)\r\nEND:VCARD\r\n"
            Self.expectSameReading(Array(text.utf8), source: "edge-\(version)-\(index + 1).vcf")
            Self.expectSameReading(Array(text.replacingOccurrences(of: "\r\n", with: "\n").utf8), source: "edge-lf-\(version)-\(index + 1).vcf")
        }
    }

    @Test func aPlainCardIsDeferredAndAnEditBuildsIt() throws {
        let text = "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Ada Lovelace\r\nEMAIL;TYPE=work:ada@example.com\r\nEND:VCARD\r\n"
        var options = VCardReadOptions.lenient
        options.deferredVersions = [.v4_0]
        var card = try #require(try VCardReader.read(text, options: options).cards.first)
        #expect(card.isDeferred)
        #expect(card.isUnedited)
        #expect(VCardWriter().string(for: card) == text)
        #expect(card.first("EMAIL")?.rawValue == "ada@example.com")

        card.properties[1].rawValue = "Ada King"
        #expect(!card.isDeferred)
        #expect(!card.isUnedited)
        #expect(VCardWriter().string(for: card)
            == "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Ada King\r\nEMAIL;TYPE=work:ada@example.com\r\nEND:VCARD\r\n")
    }

    /// Converting a deferred card copies the lines conversion leaves alone and builds only the
    /// others: here `VERSION` (replaced), the `TEL` with `TYPE=pref`, `N` and `SORT-STRING` (merged).
    @Test func convertingADeferredCardBuildsOnlyTheLinesConversionChanges() throws {
        let text = """
            BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada Lovelace\r\nN:Lovelace;Ada;;;\r\nTEL;TYPE=cell,pref:+44 1\r\n\
            EMAIL;TYPE=work:ada@example.com\r\nSORT-STRING:Lovelace\r\nNOTE:Analytical Engine\r\nEND:VCARD\r\n
            """
        var options = VCardReadOptions.lenient
        options.deferredVersions = [.v3_0, .v4_0]
        let card = try #require(try VCardReader.read(text, options: options).cards.first)
        // The card's VERSION line is skipped, not built: the conversion writes one of its own.
        let lines = Array(IteratorSequence(try #require(card.deferredProperties?.linesForConversion(to: .v4_0))))
        #expect(lines.map { $0.property?.name ?? "copied" } == ["copied", "N", "TEL", "copied", "SORT-STRING", "copied"])
        #expect(VCardWriter(target: .v4_0).string(for: card) == """
            BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Ada Lovelace\r\nN;SORT-AS=Lovelace:Lovelace;Ada;;;\r\nTEL;TYPE=cell;PREF=1:+44 1\r\n\
            EMAIL;TYPE=work:ada@example.com\r\nNOTE:Analytical Engine\r\nEND:VCARD\r\n
            """)
        #expect(card.isDeferred, "writing it converted does not build the card")

        // Without a SORT-STRING or LABEL to move into them, N and ADR are copied; a card with a
        // LABEL builds its ADR lines (the label may join one) and the LABEL.
        let plain = try #require(try VCardReader.read("""
            BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada\r\nN:Lovelace;Ada;;;\r\nADR;TYPE=home:;;1 Main St;Town;;;\r\nEND:VCARD\r\n
            """, options: options).cards.first)
        let plainLines = Array(IteratorSequence(try #require(plain.deferredProperties?.linesForConversion(to: .v4_0))))
        #expect(plainLines.map { $0.property?.name ?? "copied" } == ["copied", "copied", "copied"])
        let labelled = try #require(try VCardReader.read("""
            BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada\r\nN:Lovelace;Ada;;;\r\nADR;TYPE=home:;;1 Main St;Town;;;\r\n\
            LABEL;TYPE=home:1 Main St\\nTown\r\nEND:VCARD\r\n
            """, options: options).cards.first)
        let labelledLines = Array(IteratorSequence(try #require(labelled.deferredProperties?.linesForConversion(to: .v4_0))))
        #expect(labelledLines.map { $0.property?.name ?? "copied" } == ["copied", "copied", "ADR", "LABEL"])
        #expect(VCardWriter(target: .v4_0).string(for: labelled).contains("ADR;TYPE=home;LABEL=1 Main St^nTown:;;1 Main St;Town;;;\r\n"))
    }

    @Test func cardsOfOtherVersionsAndUnusualCardsAreBuiltRightAway() throws {
        var options = VCardReadOptions.lenient
        options.deferredVersions = [.v4_0]
        let text = """
            BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Three\r\nN:Three;;;;\r\nEND:VCARD\r\n\
            BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Caret\r\nNOTE;X-P=a^nb:c\r\nEND:VCARD\r\n\
            BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Plain\r\nEND:VCARD\r\n
            """
        let cards = try VCardReader.read(text, options: options).cards
        #expect(cards.map(\.isDeferred) == [false, false, true])
    }

    /// A quoted parameter value with RFC 6868 escapes or UTF-8 text (an address label such as
    /// `LABEL="Calle de Alcalá, 45^nMadrid"`) keeps a card deferred when nothing reads that value
    /// in place: it reads, hashes and converts as the built card, and its line is built when the
    /// card is converted. Where a value is read in place or checked (`TYPE`, `PREF`, `VALUE`,
    /// `SORT-AS`, `LANGUAGE`, an unregistered name), the card is built right away.
    @Test func decodedParameterValuesKeepACardDeferredWhereNothingReadsThem() throws {
        let deferredBodies = [
            "ADR;TYPE=home;LABEL=\"Calle de Alcalá, 45^nBuilding 3^n28014 Madrid^nEspaña\":;;Calle de Alcalá, 45;Madrid;;28014;España",
            "NOTE;X-Q=\"caret^n and ^^ and ^'\":x\r\nNOTE;X-R=\"日本語\";X-S=\"é\":y",
            "ADR;LABEL=\"a^nb\";PREF=1;TYPE=work:;;a;b;;;\r\nitem1.ADR;LABEL=\"Zoë\":;;x;;;;\r\nitem1.X-ABLABEL:home",
        ]
        let builtBodies = [
            "EMAIL;TYPE=\"wörk\":a@b", "TEL;PREF=\"^n\":1", "NOTE;VALUE=\"t^next\":x", "N;SORT-AS=\"Müller\":a;b;;;",
            "NOTE;LANGUAGE=\"dé\":x", "NOTE;FANCY=\"é\":x",
        ]
        for version in ["3.0", "4.0"] {
            for (index, body) in (deferredBodies + builtBodies).enumerated() {
                let text = "BEGIN:VCARD\r\nVERSION:\(version)\r\nFN:x\r\n\(body)\r\nEND:VCARD\r\n"
                let deferred = Self.expectSameReading(Array(text.utf8), source: "decoded-\(version)-\(index + 1).vcf")
                #expect(deferred == (index < deferredBodies.count ? 1 : 0), "\(version): \(body)")
            }
            // Bytes that are not UTF-8 in a quoted value: the full reader decodes them.
            let invalid = Array("BEGIN:VCARD\r\nVERSION:\(version)\r\nFN:x\r\nNOTE;X-BAD=\"".utf8) + [0xFF, 0xC3]
                + Array("\":x\r\nEND:VCARD\r\n".utf8)
            #expect(Self.expectSameReading(invalid, source: "decoded-\(version)-invalid.vcf") == 0)
        }
    }

    /// Copies of a deferred card read from many threads at once all get the same properties (the
    /// first to ask builds them, under a lock; the sanitizer runs check the sharing).
    @Test func copiesOfADeferredCardReadFromManyThreadsGetTheSameProperties() async throws {
        let text = "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Ada\r\nNOTE:shared\r\nEND:VCARD\r\n"
        var options = VCardReadOptions.lenient
        options.deferredVersions = [.v4_0]
        let card = try #require(try VCardReader.read(text, options: options).cards.first)
        let names = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<8 { group.addTask { card.properties.map(\.name) } }
            var all: [[String]] = []
            for await names in group { all.append(names) }
            return all
        }
        #expect(names.count == 8)
        #expect(names.allSatisfy { $0 == ["VERSION", "FN", "NOTE"] })
    }
}
