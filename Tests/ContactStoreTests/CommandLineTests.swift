import Foundation
import SampleGenerator
import Testing
import TestSupport

/// The address book commands, through the built `cardsync` binary.
struct CommandLineTests {
    func run(_ arguments: [String], input: String? = nil) throws -> CLIRunner.Result {
        try CLIRunner.run(arguments, input: input.map { Data($0.utf8) })
    }

    func expectValidJSON(_ result: CLIRunner.Result, command: String) throws {
        #expect(result.standardOutput.contains("\"command\" : \"\(command)\""))
        guard SchemaValidator.isAvailable else { return }
        let problems = try SchemaValidator.problems(validating: result.outputBytes, against: "cli-output.schema.json")
        #expect(problems.isEmpty, "\(command): \(problems)")
    }

    @Test func initImportListShowLogRestoreCheck() throws {
        let root = try TestPaths.makeTemporaryDirectory("cli")
        let book = root.appendingPathComponent("book").path
        try root.write(cardText(uid: "kept", name: "Kept Existing"), to: "kept.vcf")
        try FileManager.default.createDirectory(atPath: book, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: root.appendingPathComponent("kept.vcf").path, toPath: book + "/kept.vcf")

        let initialized = try run(["init", book, "--format", "json"])
        #expect(initialized.status == 0, "\(initialized.standardError)")
        try expectValidJSON(initialized, command: "init")
        #expect(try run(["init", book]).status == 1)

        let input = cardText(uid: "ada", name: "Ada Lovelace", email: "ada@example.com")
            + cardText(uid: "ada-copy", name: "Ada Lovelace", email: "ada@example.com", version: "3.0")
            + cardText(uid: nil, name: "Charles Babbage")
        let imported = try run(["import", "-", "--into", book, "--format", "json"], input: input)
        #expect(imported.status == 0, "\(imported.standardError)")
        try expectValidJSON(imported, command: "import")
        #expect(imported.standardError.contains("-:8: note: duplicate skipped"))
        let again = try run(["import", "-", "--into", book], input: input)
        #expect(again.standardOutput.contains("Imported 0 contacts"))

        let list = try run(["list", book])
        #expect(list.standardOutput.split(separator: "\n").count == 3)
        #expect(list.standardOutput.hasPrefix("Ada Lovelace\tada@example.com\t\tada\tada.vcf"))
        try expectValidJSON(try run(["list", book, "--format", "json"]), command: "list")

        let shown = try run(["show", book, "babbage"])
        #expect(shown.standardOutput.contains("FN:Charles Babbage"))
        try expectValidJSON(try run(["show", book, "ada", "--format", "json"]), command: "show")
        #expect(try run(["show", book, "nobody"]).status == 1)

        try FileManager.default.removeItem(atPath: book + "/ada.vcf")
        let log = try run(["log", book])
        #expect(log.standardOutput.hasPrefix("#4 "))
        #expect(log.standardOutput.split(separator: "\n").first?.contains("delete   Ada Lovelace <ada>") == true)
        #expect(log.standardError.contains("recorded changes made outside cardsync: 0 added, 0 edited, 0 renamed, 1 deleted"))
        try expectValidJSON(try run(["log", book, "ada", "--format", "json"]), command: "log")

        let restored = try run(["restore", book, "ada", "--format", "json"])
        #expect(restored.status == 0, "\(restored.standardError)")
        try expectValidJSON(restored, command: "restore")
        #expect(FileManager.default.fileExists(atPath: book + "/ada.vcf"))
        #expect(try run(["restore", book, "ada"]).status == 1)

        let check = try run(["check", book, "--format", "json"])
        #expect(check.status == 0, "\(check.standardOutput)")
        try expectValidJSON(check, command: "check")
        let scan = try run(["scan", book, "--format", "json"])
        try expectValidJSON(scan, command: "scan")
        let compact = try run(["compact", book, "--keep", "1", "--format", "json"])
        #expect(compact.status == 0)
        try expectValidJSON(compact, command: "compact")
        #expect(try run(["check", book]).standardOutput.hasPrefix("OK: 3 contacts"))
    }

    @Test func dedupeAndExport() throws {
        let root = try TestPaths.makeTemporaryDirectory("cli-dedupe")
        let book = root.appendingPathComponent("book")
        try FileManager.default.createDirectory(at: book, withIntermediateDirectories: true)
        try book.write(cardText(uid: "a1", name: "Same"), to: "a1.vcf")
        try book.write(cardText(uid: "a2", name: "Same", version: "3.0"), to: "a2.vcf")
        #expect(try run(["init", book.path]).status == 0)
        let report = try run(["dedupe", book.path])
        #expect(report.standardOutput.contains("1 duplicate in 1 group"))
        let applied = try run(["dedupe", book.path, "--apply", "--format", "json"])
        try expectValidJSON(applied, command: "dedupe")
        #expect(book.contactFiles == ["a1.vcf"])
        let exported = try run(["export", book.path, "--to", "jcard", "-o", "-"])
        #expect(exported.standardOutput.hasPrefix("[\n[\"vcard\""))
        let split = try run(["export", book.path, "--to", "vcard3", "--split", root.appendingPathComponent("out").path])
        #expect(split.status == 0, "\(split.standardError)")
        #expect(try root.read("out/a1.vcf").contains("VERSION:3.0"))
        #expect(try run(["export", book.path, "--to", "vcard4"]).status == 64)
    }

    @Test func errorsNameTheFolderAndWhatToDo() throws {
        let root = try TestPaths.makeTemporaryDirectory("cli-errors")
        let notBook = try run(["list", root.path])
        #expect(notBook.status == 66)
        #expect(notBook.standardError.contains("cardsync init"))
        #expect(try run(["import", root.appendingPathComponent("missing.vcf").path, "--into", root.path]).status == 66)
    }
}
