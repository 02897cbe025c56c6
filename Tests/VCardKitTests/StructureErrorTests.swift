import Testing
@testable import VCardKit

/// Cards that are structurally broken are errors, each with its own code and the line where it is
/// broken, while lenient reading still keeps what it can of the card.
@Suite struct StructureErrorTests {
    private func read(_ text: String, options: VCardReadOptions = .lenient) throws -> VCardReadResult {
        try VCardReader.read(text, sourceName: "test.vcf", options: options)
    }

    private func errors(_ result: VCardReadResult) -> [String] {
        result.diagnostics.filter { $0.severity == .error }.map { "\($0.code):\($0.location.line):\($0.location.column)" }
    }

    @Test func aCardWithNoPropertiesIsAnError() throws {
        let result = try read("BEGIN:VCARD\r\nEND:VCARD\r\n")
        #expect(errors(result) == ["empty-card:1:1"])
        #expect(result.diagnostics.count == 1)
        #expect(result.cards.count == 1)
    }

    @Test func aCardOfOnlyBlankLinesIsAnEmptyCardToo() throws {
        let result = try read("BEGIN:VCARD\n\nEND:VCARD\n")
        #expect(errors(result) == ["empty-card:1:1"])
    }

    @Test func aCardWithNeitherVersionNorFNIsAnErrorWhenValidating() throws {
        let text = "BEGIN:VCARD\r\nUID:urn:uuid:0d4a9b7e-8f8c-4f63-9d55-2f4b1f0e4a11\r\nEND:VCARD\r\n"
        let validated = try read(text, options: .validation)
        #expect(errors(validated) == ["missing-version-and-fn:1:1"])
        // Lenient reading keeps such a card: sync tools exchange minimal cards like this one.
        let lenient = try read(text)
        #expect(errors(lenient).isEmpty)
        #expect(lenient.diagnostics.contains { $0.code.rawValue == "missing-version-and-fn" && $0.severity == .warning })
        #expect(lenient.cards.first?.uid == "urn:uuid:0d4a9b7e-8f8c-4f63-9d55-2f4b1f0e4a11")
    }

    @Test(arguments: [
        "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:x\r\nEND:VCARD\r\n",
        "BEGIN:VCARD\r\nFN:Only a name\r\nEND:VCARD\r\n",
    ])
    func aCardWithVersionOrFNIsNoSuchError(_ text: String) throws {
        #expect(!(try read(text, options: .validation)).diagnostics.contains { $0.code.rawValue == "missing-version-and-fn" })
    }

    @Test func aCommentLineIsNotAContentLine() throws {
        let result = try read("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Ada\r\n# exported by a script\r\nEMAIL:ada@example.org\r\nEND:VCARD\r\n")
        #expect(errors(result) == ["not-a-content-line:4:1"])
        let card = try #require(result.cards.first)
        #expect(card.properties.map(\.name) == ["VERSION", "FN", "EMAIL"])
        #expect(card.first("FN")?.textValue == "Ada")
    }

    @Test func aCommentWithAColonIsNotAContentLineEither() throws {
        let result = try read("BEGIN:VCARD\r\nVERSION:4.0\r\n# note: exported\r\nFN:Ada\r\nEND:VCARD\r\n")
        #expect(errors(result) == ["not-a-content-line:3:1"])
        #expect(result.cards.first?.properties.map(\.name) == ["VERSION", "FN"])
    }

    @Test(arguments: [
        ("BEGIN:VCARD\r\nnot a property\r\nVERSION:4.0\r\nFN:A\r\nEND:VCARD\r\n", 2),
        ("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:A\r\n\r\nstray text\r\nEND:VCARD\r\n", 5),
        ("BEGIN:VCARD\r\nVERSION:4.0\r\nTEL;TYPE=work\r\nFN:A\r\nEND:VCARD\r\n", 3),
    ])
    func aLineWithoutAColonThatContinuesNoValueIsNotAContentLine(_ text: String, _ line: Int) throws {
        let result = try read(text)
        #expect(errors(result) == ["not-a-content-line:\(line):1"])
        #expect(result.cards.first?.formattedName == "A")
    }

    @Test func aValueBrokenByAnUnfoldedLineBreakIsAnErrorAndKeepsItsText() throws {
        let text = "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Ada\r\nNOTE:first line\r\nsecond line\r\nthird\\, and last\r\nEMAIL:ada@example.org\r\nEND:VCARD\r\n"
        let result = try read(text)
        #expect(errors(result) == ["unfolded-line-break:5:1", "unfolded-line-break:6:1"])
        let card = try #require(result.cards.first)
        #expect(card.first("NOTE")?.textValue == "first line\nsecond line\nthird, and last")
        #expect(card.first("EMAIL")?.rawValue == "ada@example.org")
        // Unedited, the card is still written back as it was.
        #expect(VCardWriter().string(for: card) == text)
        #expect(VCardWriter(target: .v3_0).string(for: card).contains("\r\nNOTE:first line\\nsecond line\\nthird\\, and last\r\n"))
    }

    @Test func aBrokenVCard21ValueIsJoinedInItsOwnEscaping() throws {
        let result = try read("BEGIN:VCARD\r\nVERSION:2.1\r\nN:Doe;Jo\r\nADR;HOME:;;1 Main St\r\nSuite 5;Town;;12345;\r\nEND:VCARD\r\n")
        #expect(errors(result) == ["unfolded-line-break:5:1"])
        #expect(result.cards.first?.addresses.first?.street == ["1 Main St\nSuite 5"])
        #expect(result.cards.first?.addresses.first?.locality == ["Town"])
    }

    @Test func aBrokenLineAfterAnEncodedValueIsReportedButNotJoined() throws {
        let result = try read("BEGIN:VCARD\r\nVERSION:3.0\r\nN:Doe;Jo;;;\r\nFN:Jo\r\nKEY;ENCODING=b:AAAA\r\n!!!!\r\nEND:VCARD\r\n")
        #expect(errors(result) == ["unfolded-line-break:6:1"])
        #expect(result.cards.first?.first("KEY")?.rawValue == "AAAA")
    }

    @Test func strictReadingStopsAtTheFirstOfThem() throws {
        #expect(throws: VCardError.self) {
            try read("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:A\r\n# comment\r\nEND:VCARD\r\n", options: .strict)
        }
    }
}
