import Foundation
import Testing
import TestSupport
import VCardKit

/// End-to-end behaviour of the `cardsync` binary: output, standard error and exit status.
@Suite struct CLITests {
    static let fixtures = TestPaths.fixtures("CLITests")

    private func fixture(_ name: String) -> String { Self.fixtures.appendingPathComponent(name).path }

    @Test func printsItsVersion() throws {
        let result = try CLIRunner.run(["--version"])
        #expect(result.status == 0)
        #expect(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3)
    }

    @Test func validateExitsZeroForValidFilesAndCountsCards() throws {
        let result = try CLIRunner.run(["validate", fixture("valid-4.0-lf.vcf"), fixture("valid-3.0.vcf")])
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.contains("2 files, 2 cards: 0 errors"))
    }

    @Test func validateAllowsWarningsUnlessStrict() throws {
        let lenient = try CLIRunner.run(["validate", fixture("lenient-3.0.vcf")])
        #expect(lenient.status == 0)
        #expect(lenient.standardOutput.contains("lenient-3.0.vcf:4:5: warning:"))
        #expect(lenient.standardOutput.contains("[bare-parameter]"))
        #expect(lenient.standardOutput.contains(" 4 | TEL;HOME:+1 555 0100"))
        let strict = try CLIRunner.run(["validate", "--strict", fixture("lenient-3.0.vcf")])
        #expect(strict.status == 65)
        #expect(strict.standardOutput.contains(": error:"))
    }

    @Test func snippetsShowTheRightLinePastTheFirstMegabyteWithAnyLineEnds() throws {
        let directory = try TestPaths.makeTemporaryDirectory("snippets")
        defer { try? FileManager.default.removeItem(at: directory) }
        // 3,000 clean cards (about 1.3 MB, so the read crosses 1 MiB chunks) with CRLF, then two
        // cards with CR-only and LF line ends, each with a warning whose line is shown.
        var text = ""
        for n in 0..<3_000 {
            text += "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:card-\(n)\r\nFN:Person \(n)\r\nN:Person;\(n);;;\r\n"
            text += "NOTE:\(String(repeating: "filler text ", count: 28))\r\nEND:VCARD\r\n"
        }
        let cleanLines = 3_000 * 7
        text += "BEGIN:VCARD\rVERSION:3.0\rFN:Carriage Return\rN:Return;Carriage;;;\rTEL;HOME:+1 555 0100\rEND:VCARD\r"
        let long = String(repeating: "x", count: 600)
        text += "BEGIN:VCARD\nVERSION:3.0\nFN:Line Feed\nN:Feed;Line;;;\nTEL;WORK;\(long):+1 555 0101\nEND:VCARD\n"
        let path = directory.appendingPathComponent("late-warnings.vcf").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let result = try CLIRunner.run(["validate", path])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains(" \(cleanLines + 5) | TEL;HOME:+1 555 0100\n"))
        // A long line is shown cut at 160 characters.
        #expect(result.standardOutput.contains(" \(cleanLines + 11) | TEL;WORK;\(String(repeating: "x", count: 151))\n"))
    }

    @Test func validateReportsInvalidDataWithExitStatus65() throws {
        let result = try CLIRunner.run(["validate", fixture("invalid-missing-end.vcf")])
        #expect(result.status == 65)
        #expect(result.standardOutput.contains("invalid-missing-end.vcf:5:1: error:"))
        #expect(result.standardOutput.contains("[missing-end]"))
    }

    @Test func validateReportsBrokenCardStructureAsErrorsEachWithItsCodeAndLine() throws {
        let result = try CLIRunner.run(["validate", "--format", "json", fixture("invalid-structure.vcf")])
        #expect(result.status == 65)
        let object = try #require(try JSONSerialization.jsonObject(with: result.outputBytes) as? [String: Any])
        let diagnostics = try #require(object["diagnostics"] as? [[String: Any]])
        let errors = diagnostics.filter { $0["severity"] as? String == "error" }.compactMap { diagnostic -> String? in
            guard let code = diagnostic["code"] as? String, let line = diagnostic["line"] as? Int, let column = diagnostic["column"] as? Int else { return nil }
            return "\(code):\(line):\(column)"
        }
        #expect(errors == ["empty-card:1:1", "missing-version-and-fn:3:1", "not-a-content-line:9:1", "unfolded-line-break:15:1"])
        // Every card is still read: the lenient reading keeps what it can.
        #expect((object["summary"] as? [String: Any])?["cards"] as? Int == 4)
    }

    @Test func validateReportsAMissingPathWithExitStatus66() throws {
        let result = try CLIRunner.run(["validate", fixture("valid-3.0.vcf"), "/nonexistent/contacts.vcf"])
        #expect(result.status == 66)
        #expect(result.standardError.contains("/nonexistent/contacts.vcf"))
    }

    @Test func validateSearchesFoldersRecursively() throws {
        let directory = try TestPaths.makeTemporaryDirectory("validate-folder")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("a/b"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture("valid-3.0.vcf"), toPath: directory.appendingPathComponent("a/b/one.vcf").path)
        try FileManager.default.copyItem(atPath: fixture("valid-4.0-lf.vcf"), toPath: directory.appendingPathComponent("two.vcf").path)
        let result = try CLIRunner.run(["validate", directory.path])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("2 files, 2 cards"))
    }

    @Test func validateJSONOutputFollowsTheSchema() throws {
        let result = try CLIRunner.run(["validate", "--format", "json", fixture("lenient-3.0.vcf"), fixture("invalid-missing-end.vcf")])
        #expect(result.status == 65)
        let object = try #require(try JSONSerialization.jsonObject(with: result.outputBytes) as? [String: Any])
        #expect(object["command"] as? String == "validate")
        #expect(object["valid"] as? Bool == false)
        let diagnostics = try #require(object["diagnostics"] as? [[String: Any]])
        #expect(diagnostics.contains { $0["code"] as? String == "missing-end" && $0["line"] as? Int == 5 })
        try #require(SchemaValidator.isAvailable, "python3 with jsonschema is needed to check the output against the schema")
        #expect(try SchemaValidator.problems(validating: result.outputBytes, against: "cli-output.schema.json") == [])
    }

    @Test func convertToItsOwnVersionReproducesTheFileByteForByte() throws {
        let result = try CLIRunner.run(["convert", fixture("valid-4.0-lf.vcf"), "--to", "vcard4"])
        #expect(result.status == 0)
        #expect(result.outputBytes == (try Data(contentsOf: URL(fileURLWithPath: fixture("valid-4.0-lf.vcf")))))
    }

    @Test func convertToItsOwnVersionKeepsTheBlankLinesBetweenCards() throws {
        let result = try CLIRunner.run(["convert", fixture("valid-4.0-blank-lines.vcf"), "--to", "vcard4"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.outputBytes == (try Data(contentsOf: URL(fileURLWithPath: fixture("valid-4.0-blank-lines.vcf")))))
        let canonical = try CLIRunner.run(["convert", fixture("valid-4.0-blank-lines.vcf"), "--to", "vcard4", "--canonical"])
        #expect(canonical.standardOutput == "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Ada Lovelace\r\nEND:VCARD\r\nBEGIN:VCARD\r\nVERSION:4.0\r\nFN:Charles Babbage\r\nEND:VCARD\r\n")
    }

    @Test func convertReadsStandardInputAndConvertsTo4() throws {
        let input = try Data(contentsOf: URL(fileURLWithPath: fixture("valid-3.0.vcf")))
        let result = try CLIRunner.run(["convert", "-", "--to", "vcard4"], input: input)
        #expect(result.status == 0)
        #expect(result.standardOutput == """
        BEGIN:VCARD\r
        VERSION:4.0\r
        N:Turing;Alan;;;\r
        FN:Alan Turing\r
        TEL;TYPE=HOME;PREF=1:+44 1234 567890\r
        PHOTO:data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAE\r
         AAAICRAEAOw==\r
        END:VCARD\r

        """)
    }

    @Test func convertWritesTheOutputFileAtomically() throws {
        let directory = try TestPaths.makeTemporaryDirectory("convert-output")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.vcf")
        let result = try CLIRunner.run(["convert", fixture("valid-4.0-lf.vcf"), "--to", "vcard3", "-o", output.path])
        #expect(result.status == 0)
        #expect(try String(contentsOf: output, encoding: .utf8).hasPrefix("BEGIN:VCARD\r\nVERSION:3.0\r\n"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.vcf"])
    }

    @Test func convertReportsUnreadableCardsOnStandardErrorAndKeepsTheRest() throws {
        let result = try CLIRunner.run(["convert", fixture("invalid-missing-end.vcf"), "--to", "vcard3"])
        #expect(result.status == 65)
        #expect(result.standardOutput.contains("FN:Good card"))
        #expect(!result.standardOutput.contains("Card without end"))
        #expect(result.standardError.contains("invalid-missing-end.vcf:5:1: error:"))
    }

    @Test func convertRejectsAnUnknownTarget() throws {
        let result = try CLIRunner.run(["convert", fixture("valid-3.0.vcf"), "--to", "vcard5"])
        #expect(result.status == 64)
    }

    @Test func convertReportsAMissingInputWithExitStatus66() throws {
        let result = try CLIRunner.run(["convert", "/nonexistent.vcf", "--to", "vcard4"])
        #expect(result.status == 66)
        #expect(result.standardError.contains("/nonexistent.vcf"))
    }
}

/// The four formats through the command line: detection by content, conversion, validation
/// against the schemas.
@Suite struct CLIFormatTests {
    static let fixtures = TestPaths.fixtures("CLITests")

    @Test func convertsVCardToJCardAndXCardAndBackKeepingEveryProperty() throws {
        let directory = try TestPaths.makeTemporaryDirectory("formats")
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = TestPaths.samples.appendingPathComponent("generated/mixed-40.vcf").path
        let json = directory.appendingPathComponent("book.json").path
        let xml = directory.appendingPathComponent("book.xml").path
        #expect(try CLIRunner.run(["convert", input, "--to", "jcard", "-o", json]).status == 0)
        #expect(try CLIRunner.run(["convert", input, "--to", "xcard", "-o", xml]).status == 0)
        let fromJSON = try CLIRunner.run(["convert", json, "--to", "vcard4"])
        let fromXML = try CLIRunner.run(["convert", xml, "--to", "vcard4"])
        #expect(fromJSON.status == 0 && fromXML.status == 0, "\(fromJSON.standardError)\(fromXML.standardError)")
        let original = try VCardReader.read(Array(Data(contentsOf: URL(fileURLWithPath: input)))).cards.map { CanonicalForm.properties(of: $0) }
        let viaJSON = try VCardReader.read(Array(fromJSON.outputBytes)).cards.map { CanonicalForm.properties(of: $0) }
        let viaXML = try VCardReader.read(Array(fromXML.outputBytes)).cards.map { CanonicalForm.properties(of: $0) }
        #expect(viaJSON == original)
        #expect(viaXML == original)
        let validation = try CLIRunner.run(["validate", json, xml])
        #expect(validation.status == 0, "\(validation.standardOutput)")
        #expect(validation.standardOutput.contains("2 files, 80 cards: 0 errors"))
        try #require(SchemaValidator.isAvailable, "python3 with jsonschema is needed for the jCard schema check")
        #expect(try SchemaValidator.problems(validating: Data(contentsOf: URL(fileURLWithPath: json)), against: "jcard.schema.json") == [])
    }

    @Test func validateReportsSchemaViolationsOfXCardAsWarningsAndErrorsUnderStrict() throws {
        let directory = try TestPaths.makeTemporaryDirectory("xcard-schema")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("odd.xml")
        try Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <vcards xmlns="urn:ietf:params:xml:ns:vcard-4.0"><vcard><fn><integer>7</integer></fn></vcard></vcards>
        """.utf8).write(to: file)
        let lenient = try CLIRunner.run(["validate", file.path])
        #expect(lenient.status == 0)
        #expect(lenient.standardOutput.contains("[schema-violation]"))
        let strict = try CLIRunner.run(["validate", "--strict", file.path])
        #expect(strict.status == 65)
    }

    /// A card over the 8 MiB default limit on standard input: reported at its line, skipped, and
    /// the card after it still read (validate) and imported (import); xCard from standard input
    /// is read card by card too.
    @Test func jCardAndXCardFromStandardInputAreReadWithTheCardLimit() throws {
        let directory = try TestPaths.makeTemporaryDirectory("stdin-limits")
        defer { try? FileManager.default.removeItem(at: directory) }
        var json = Data("[\n [\"vcard\",[[\"version\",{},\"text\",\"4.0\"],[\"fn\",{},\"text\",\"A\"]]],\n [\"vcard\",[[\"fn\",{},\"text\",\"".utf8)
        json.append(Data(repeating: UInt8(ascii: "a"), count: 9 << 20))
        json.append(Data("\"]]],\n [\"vcard\",[[\"version\",{},\"text\",\"4.0\"],[\"uid\",{},\"text\",\"after-the-big-card\"],[\"fn\",{},\"text\",\"C\"]]]\n]\n".utf8))
        let validation = try CLIRunner.run(["validate", "-"], input: json)
        #expect(validation.status == 65)
        #expect(validation.standardOutput.contains(":3:1: error: card 2 is larger than 8388608 bytes; it was skipped [limit-exceeded]"), "\(validation.standardOutput)")
        #expect(validation.standardOutput.contains("2 cards"), "\(validation.standardOutput)")
        let book = directory.appendingPathComponent("book").path
        #expect(try CLIRunner.run(["init", book]).status == 0)
        let imported = try CLIRunner.run(["import", "-", "--into", book], input: json)
        #expect(imported.status == 65)
        #expect((imported.standardOutput + imported.standardError).contains("limit-exceeded"))
        let kept = try String(contentsOfFile: book + "/after-the-big-card.vcf", encoding: .utf8)
        #expect(kept.contains("FN:C"))
        let xml = Data("<?xml version=\"1.0\"?>\n<vcards xmlns=\"urn:ietf:params:xml:ns:vcard-4.0\">\n<vcard><fn><text>X</text></fn></vcard>\n<vcard><fn><text>Y</text></fn></vcard>\n</vcards>\n".utf8)
        let converted = try CLIRunner.run(["convert", "-", "--to", "vcard4"], input: xml)
        #expect(converted.status == 0, "\(converted.standardError)")
        #expect(try VCardReader.read(Array(converted.outputBytes)).cards.map(\.formattedName) == ["X", "Y"])
    }

    @Test func validateRejectsAnXCardWithAnExternalEntity() throws {
        let result = try CLIRunner.run(["validate", TestPaths.fixtures("VCardXMLTests").appendingPathComponent("xxe-file.xml").path])
        #expect(result.status == 65)
        #expect(result.standardOutput.contains("[doctype-rejected]"))
        #expect(!result.standardOutput.contains("root:"))
    }
}

/// Every JSON Schema in `Schemas/` is a valid Draft 2020-12 schema with an `$id`, a
/// description, and examples that validate against it.
@Suite struct SchemaFileTests {
    static let schemas = ((try? FileManager.default.contentsOfDirectory(atPath: TestPaths.repositoryRoot.appendingPathComponent("Schemas").path)) ?? [])
        .filter { $0.hasSuffix(".schema.json") }.sorted()

    @Test func theSchemasFolderHasTheJSONSchemas() {
        #expect(Set(Self.schemas).isSuperset(of: ["cli-output.schema.json", "jcard.schema.json", "couch-contact.schema.json"]))
    }

    @Test(arguments: schemas)
    func schemaHasIdDescriptionAndValidExamples(_ name: String) throws {
        let data = try Data(contentsOf: TestPaths.repositoryRoot.appendingPathComponent("Schemas").appendingPathComponent(name))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
        #expect((object["$id"] as? String)?.hasSuffix(name) == true)
        #expect(((object["description"] as? String) ?? "").count > 40)
        let examples = try #require(object["examples"] as? [Any])
        #expect(!examples.isEmpty)
        try #require(SchemaValidator.isAvailable, "python3 with jsonschema is needed")
        for example in examples {
            let document = try JSONSerialization.data(withJSONObject: example, options: [.fragmentsAllowed])
            #expect(try SchemaValidator.problems(validating: document, against: name) == [])
        }
    }
}
