import Foundation
import Testing
import TestSupport

/// `cardsync diff`, `duplicates`, `merge` and the undo of a merge by `restore`, through the built binary.
@Suite struct DiffCommandTests {
    static let old = """
    BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada\r\nFN:Ada Lovelace\r\nEMAIL;TYPE=INTERNET:ada@example.com\r\nTITLE:Analyst\r\nEND:VCARD\r
    BEGIN:VCARD\r\nVERSION:4.0\r\nUID:alan\r\nFN:Alan Turing\r\nEND:VCARD\r

    """
    /// Ada edited (and written as 4.0, in lower case), Alan removed, Grace added.
    static let new = """
    begin:vcard\r\nversion:4.0\r\nfn:Ada Lovelace\r\nuid:ada\r\nemail:ada@example.com\r\ntitle:Countess\r\nend:vcard\r
    BEGIN:VCARD\r\nVERSION:4.0\r\nUID:grace\r\nFN:Grace Hopper\r\nEND:VCARD\r

    """

    func files(_ label: String) throws -> (old: String, new: String) {
        let root = try TestPaths.makeTemporaryDirectory(label)
        try Data(Self.old.utf8).write(to: root.appendingPathComponent("old.vcf"))
        try Data(Self.new.utf8).write(to: root.appendingPathComponent("new.vcf"))
        return (root.appendingPathComponent("old.vcf").path, root.appendingPathComponent("new.vcf").path)
    }

    func expectValid(_ result: CLIRunner.Result) throws {
        guard SchemaValidator.isAvailable else { return }
        let problems = try SchemaValidator.problems(validating: result.outputBytes, against: "cli-output.schema.json")
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test func diffShowsChangesByNameAndExitsOneLikeDiff() throws {
        let (old, new) = try files("diff-text")
        let result = try CLIRunner.run(["diff", old, new])
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardOutput.contains("~ Ada Lovelace  matched by uid\n    ~ TITLE: Analyst → Countess\n"))
        #expect(result.standardOutput.contains("- Alan Turing"))
        #expect(result.standardOutput.contains("+ Grace Hopper"))
        #expect(result.standardOutput.hasSuffix("1 added, 1 removed, 1 changed, 0 unchanged\n"))
        #expect(!result.standardOutput.contains("\u{1B}["), "no colour when standard output is not a terminal")
    }

    @Test func diffOfASetWithItselfExitsZero() throws {
        let (old, _) = try files("diff-same")
        let result = try CLIRunner.run(["diff", old, old])
        #expect(result.status == 0)
        #expect(result.standardOutput == "0 added, 0 removed, 0 changed, 2 unchanged\n")
    }

    @Test func diffTroubleExitsTwoOrMore() throws {
        let (old, _) = try files("diff-missing")
        let result = try CLIRunner.run(["diff", old, old + ".missing"])
        #expect(result.status >= 2)
        #expect(result.standardError.contains("no such file or folder"))
        let remote = try CLIRunner.run(["diff", "http://admin:secret-pa55@127.0.0.1:5984/Contacts", old])
        #expect(remote.status == 78, "a URL that names no valid database is a configuration error")
        #expect(remote.standardError.contains("is not a CouchDB database name"))
        #expect(!remote.standardError.contains("secret-pa55"))
    }

    @Test func diffJSONPutsTheSummaryBeforeTheDetailsAndValidates() throws {
        let (old, new) = try files("diff-json")
        let result = try CLIRunner.run(["diff", old, new, "--format", "json", "--ignore", "TITLE"])
        #expect(result.status == 1)
        try expectValid(result)
        let text = result.standardOutput
        let summary = try #require(text.range(of: "\"summary\""))
        let contacts = try #require(text.range(of: "\"contacts\""))
        #expect(summary.lowerBound < contacts.lowerBound)
        let document = try #require(try JSONSerialization.jsonObject(with: result.outputBytes) as? [String: Any])
        let counts = try #require(document["summary"] as? [String: Int])
        #expect(counts == ["added": 1, "removed": 1, "changed": 0, "unchanged": 1])
    }

    @Test func anUnreadableCardIsListedTheRestComparedAndTheExitStatusIsTwo() throws {
        let (old, new) = try files("diff-unreadable")
        // A third card that never ends: reported with its file and line, not compared.
        let broken = new + ".broken.vcf"
        try Data((Self.new + "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:lost\r\nFN:Half A. Card\r\n").utf8).write(to: URL(fileURLWithPath: broken))
        let result = try CLIRunner.run(["diff", old, broken])
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.contains("\(broken):13: error: card has no END:VCARD"), "\(result.standardError)")
        #expect(result.standardError.contains("incomplete"))
        #expect(result.standardOutput.contains("~ Ada Lovelace") && result.standardOutput.contains("+ Grace Hopper"))
        #expect(result.standardOutput.hasSuffix("1 added, 1 removed, 1 changed, 0 unchanged\n"))
    }

    @Test func jCardAndXCardFilesCompareByMeaningWithVCardText() throws {
        let (old, new) = try files("diff-formats")
        for format in ["jcard", "xcard"] {
            let converted = "\(new).\(format)"
            let conversion = try CLIRunner.run(["convert", new, "--to", format, "-o", converted])
            #expect(conversion.status == 0, "\(conversion.standardError)")
            let same = try CLIRunner.run(["diff", new, converted])
            #expect(same.status == 0, "\(format): \(same.standardOutput)\(same.standardError)")
            #expect(same.standardOutput == "0 added, 0 removed, 0 changed, 2 unchanged\n", "\(format)")
            let changed = try CLIRunner.run(["diff", old, converted])
            #expect(changed.status == 1, "\(format)")
            #expect(changed.standardOutput.contains("~ Ada Lovelace  matched by uid\n    ~ TITLE: Analyst → Countess\n"), "\(format): \(changed.standardOutput)")
            #expect(changed.standardOutput.hasSuffix("1 added, 1 removed, 1 changed, 0 unchanged\n"), "\(format)")
        }
    }

    @Test func aGeneratedPairDiffsToExactlyItsLabels() throws {
        let root = try TestPaths.makeTemporaryDirectory("diff-pair")
        let prefix = root.appendingPathComponent("pair").path
        let generated = try CLIRunner.run(["generate", "--diff-pair", prefix, "--count", "400", "--seed", "11", "--change-rate", "0.04"])
        #expect(generated.status == 0, "\(generated.standardError)")
        let labels = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: prefix + ".labels.json"))) as? [String: Any])
        func uids(_ key: String) -> Set<String> {
            let entries = labels[key] as? [Any] ?? []
            return Set(entries.compactMap { entry in entry as? String ?? (entry as? [String: Any])?["uid"] as? String ?? (entry as? [String: Any])?["new"] as? String })
        }
        let result = try CLIRunner.run(["diff", prefix + ".old.vcf", prefix + ".new.vcf", "--format", "json"])
        #expect(result.status == 1, "\(result.standardError)")
        try expectValid(result)
        let document = try #require(try JSONSerialization.jsonObject(with: result.outputBytes) as? [String: Any])
        let summary = try #require(document["summary"] as? [String: Int])
        let added = uids("added"), removed = uids("removed"), edited = uids("edited")
        #expect(!added.isEmpty && !removed.isEmpty && !edited.isEmpty && !uids("reformatted").isEmpty && !uids("uidChanged").isEmpty)
        #expect(summary["added"] == added.count && summary["removed"] == removed.count && summary["changed"] == edited.count, "\(summary)")
        #expect(summary["unchanged"] == (labels["newCount"] as? Int ?? 0) - added.count - edited.count)
        let contacts = try #require(document["contacts"] as? [[String: Any]])
        func reported(_ status: String, _ key: String) -> Set<String> {
            Set(contacts.filter { $0["status"] as? String == status }.compactMap { $0[key] as? String })
        }
        #expect(reported("added", "newUID") == added)
        #expect(reported("removed", "oldUID") == removed)
        #expect(reported("changed", "newUID").union(reported("changed", "oldUID")).isSuperset(of: edited))
    }

    @Test func exactDiffCountsDifferencesOfForm() throws {
        let (old, new) = try files("diff-exact")
        let result = try CLIRunner.run(["diff", old, new, "--ignore", "TITLE", "--exact"])
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("1 added, 1 removed, 1 changed, 0 unchanged"))
    }

    @Test func duplicatesMergeAndRestoreGiveBackTheFiles() throws {
        let root = try TestPaths.makeTemporaryDirectory("duplicates-cli")
        let book = root.appendingPathComponent("book")
        try FileManager.default.createDirectory(at: book, withIntermediateDirectories: true)
        let files = [
            "ada.vcf": "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:ada\r\nFN:Ada Lovelace\r\nEMAIL:ada@example.com\r\nEND:VCARD\r\n",
            "ada-2.vcf": "BEGIN:VCARD\nVERSION:3.0\nUID:ada-2\nFN:LOVELACE Ada\nEMAIL:ADA@example.com\nTEL:+44 20 7946 0018\nEND:VCARD\n",
            "other-ada.vcf": "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:other-ada\r\nFN:Ada Lovelace\r\nEMAIL:ada.l@example.org\r\nEND:VCARD\r\n",
        ]
        for (name, text) in files { try Data(text.utf8).write(to: book.appendingPathComponent(name)) }
        #expect(try CLIRunner.run(["init", book.path]).status == 0)

        let found = try CLIRunner.run(["duplicates", book.path, "--format", "json"])
        #expect(found.status == 0, "\(found.standardError)")
        try expectValid(found)
        let text = try CLIRunner.run(["duplicates", book.path]).standardOutput
        #expect(text.contains("strong 0.97: LOVELACE Ada | Ada Lovelace"))
        #expect(!text.contains("other-ada"), "a shared name alone is no reason")

        let dryRun = try CLIRunner.run(["merge", book.path, "ada", "ada-2", "--dry-run", "--format", "json"])
        #expect(dryRun.status == 0, "\(dryRun.standardError)")
        try expectValid(dryRun)
        #expect(try String(contentsOf: book.appendingPathComponent("ada-2.vcf"), encoding: .utf8) == files["ada-2.vcf"])

        let merged = try CLIRunner.run(["merge", book.path, "ada", "ada-2"])
        #expect(merged.status == 0, "\(merged.standardError)")
        #expect(merged.standardOutput.contains("+ TEL: +442079460018"))
        #expect(!FileManager.default.fileExists(atPath: book.appendingPathComponent("ada-2.vcf").path))

        let restored = try CLIRunner.run(["restore", book.path, "ada", "--format", "json"])
        #expect(restored.status == 0, "\(restored.standardError)")
        try expectValid(restored)
        for (name, text) in files {
            #expect(try Data(contentsOf: book.appendingPathComponent(name)) == Data(text.utf8), "\(name)")
        }
    }

    @Test func duplicatesMergeMergesOnlyConfidentClusters() throws {
        let root = try TestPaths.makeTemporaryDirectory("duplicates-merge")
        let book = root.appendingPathComponent("book")
        try FileManager.default.createDirectory(at: book, withIntermediateDirectories: true)
        let files = [
            "grace.vcf": "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:grace\r\nFN:Grace Hopper\r\nTEL:+1 312 555 0142\r\nEND:VCARD\r\n",
            "grace-2.vcf": "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:grace-2\r\nFN:Hopper Grace\r\nTEL:(312) 555-0142\r\nNOTE:Navy\r\nEND:VCARD\r\n",
            "alan.vcf": "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:alan\r\nFN:Alan Turing\r\nEMAIL:alan@example.org\r\nEND:VCARD\r\n",
            "alan-2.vcf": "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:alan-2\r\nFN:Alan Turnig\r\nEMAIL:alan@example.org\r\nEND:VCARD\r\n",
        ]
        for (name, text) in files { try Data(text.utf8).write(to: book.appendingPathComponent(name)) }
        #expect(try CLIRunner.run(["init", book.path]).status == 0)

        let result = try CLIRunner.run(["duplicates", book.path, "--merge", "--format", "json"])
        #expect(result.status == 0, "\(result.standardError)")
        try expectValid(result)
        let document = try #require(try JSONSerialization.jsonObject(with: result.outputBytes) as? [String: Any])
        let clusters = try #require(document["clusters"] as? [[String: Any]])
        #expect(Set(clusters.compactMap { $0["confidence"] as? String }) == ["strong", "fuzzy"])
        let merged = try #require(document["merged"] as? [[String: Any]])
        #expect(merged.count == 1, "only the strong cluster is merged")
        #expect(FileManager.default.fileExists(atPath: book.appendingPathComponent("alan-2.vcf").path))
        let kept = try #require(merged.first?["kept"] as? String)
        #expect(try CLIRunner.run(["restore", book.path, kept]).status == 0)
        for (name, text) in files {
            #expect(try Data(contentsOf: book.appendingPathComponent(name)) == Data(text.utf8), "\(name)")
        }
    }
}
