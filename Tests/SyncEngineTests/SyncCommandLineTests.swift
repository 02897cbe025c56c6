import ContactStore
import CouchClient
import Foundation
import Testing
import TestSupport

/// `cardsync sync`, `remote` and `status` through the built binary: output, exit statuses, the
/// embedded endpoint, and that no password ends up anywhere.
@Suite(.serialized) struct SyncCommandLineTests {
    func run(_ arguments: [String], _ environment: [String: String] = [:]) throws -> CLIRunner.Result {
        try CLIRunner.run(arguments, environment: environment)
    }

    func expectSchemaValid(_ result: CLIRunner.Result, _ command: String) throws {
        #expect(result.standardOutput.contains("\"command\" : \"\(command)\""), "\(result.standardOutput)\(result.standardError)")
        guard SchemaValidator.isAvailable else { return }
        let problems = try SchemaValidator.problems(validating: result.outputBytes, against: "cli-output.schema.json")
        #expect(problems.isEmpty, "\(command): \(problems)")
    }

    @Test func remoteSyncAndStatusWithAPasswordThatIsNeverWrittenOrPrinted() throws {
        let root = try TestPaths.makeTemporaryDirectory("cli-sync")
        let server = try ServeProcess(data: root.appendingPathComponent("server"))
        defer { server.stop() }
        let password = "kill-test"
        let a = root.appendingPathComponent("a")
        #expect(try run(["init", a.path]).status == 0)
        try fill(a, count: 6)
        let url = "http://admin@127.0.0.1:\(server.port)/people"

        let set = try run(["remote", a.path, "set", url, "--format", "json"])
        #expect(set.status == 0, "\(set.standardError)")
        try expectSchemaValid(set, "remote")
        let shown = try run(["remote", a.path, "show"])
        #expect(shown.standardOutput.contains("http://admin@127.0.0.1:\(server.port)/people"))

        // Without the password: refused with the credentials status and a hint.
        let refused = try run(["sync", a.path])
        #expect(refused.status == 77, "\(refused.standardError)")
        #expect(refused.standardError.contains("CARDSYNC_PASSWORD"))

        let environment = ["CARDSYNC_PASSWORD": password]
        let plan = try run(["sync", a.path, "--dry-run"], environment)
        #expect(plan.status == 0, "\(plan.standardError)")
        #expect(plan.standardOutput.contains("Would sync") && plan.standardOutput.contains("+ Person C3"))
        let synced = try run(["sync", a.path, "--format", "json"], environment)
        #expect(synced.status == 0, "\(synced.standardError)")
        try expectSchemaValid(synced, "sync")
        #expect(synced.standardOutput.contains("\"created\" : ") == false)
        #expect(synced.standardOutput.contains("\"createdDatabase\" : true"))

        try a.write(card("c1", "Person C1", note: "edited"), to: "c1.vcf")
        let status = try run(["status", a.path, "--format", "json"])
        #expect(status.status == 0, "\(status.standardError)")
        try expectSchemaValid(status, "status")
        #expect(status.standardOutput.contains("\"change\" : \"update\""))
        let text = try run(["status", a.path])
        #expect(text.standardOutput.contains("pending local changes: 1") && text.standardOutput.contains("~ Person C1"))

        let passwordFile = root.appendingPathComponent("password")
        try Data((password + "\n").utf8).write(to: passwordFile)
        let again = try run(["sync", a.path, "--password-file", passwordFile.path, "--cookie-auth"])
        #expect(again.status == 0, "\(again.standardError)")
        #expect(again.standardOutput.contains("pushed: 0 added, 1 updated, 0 deleted"))

        // The journal's lines (sync events included) follow their schema.
        if SchemaValidator.isAvailable {
            let lines = try String(contentsOf: a.appendingPathComponent(".cardsync/journal.jsonl"), encoding: .utf8).split(separator: "\n")
            #expect(lines.contains { $0.contains("\"op\":\"sync\"") } && lines.contains { $0.contains("\"op\":\"checkpoint\"") })
            for line in lines.prefix(40) {
                let problems = try SchemaValidator.problems(validating: Data(line.utf8), against: "journal-event.schema.json")
                #expect(problems.isEmpty, "\(line): \(problems)")
            }
        }
        let log = try run(["log", a.path, "--sync", "--format", "json", "--limit", "5"])
        try expectSchemaValid(log, "log")

        // No password in any output, the journal or the settings.
        var everything = [set, shown, refused, plan, synced, status, text, again, log].map { $0.standardOutput + $0.standardError }.joined()
        let meta = a.appendingPathComponent(".cardsync")
        for name in try FileManager.default.contentsOfDirectory(atPath: meta.path) {
            everything += String(decoding: (try? Data(contentsOf: meta.appendingPathComponent(name))) ?? Data(), as: UTF8.self)
        }
        #expect(!everything.contains(password))
        #expect(!everything.contains("YWRtaW46a2lsbC10ZXN0"))  // admin:kill-test in base64 (an auth header)

        let removed = try run(["remote", a.path, "remove"])
        #expect(removed.status == 0 && !FileManager.default.fileExists(atPath: meta.appendingPathComponent("remote.json").path))
    }

    @Test func withoutARemoteTheEmbeddedEndpointIsUsedAndSaysSo() throws {
        let root = try TestPaths.makeTemporaryDirectory("cli-embedded")
        let environment = ["CARDSYNC_SERVER_DATA": root.appendingPathComponent("embedded").path]
        let a = root.appendingPathComponent("a")
        let b = root.appendingPathComponent("b")
        #expect(try run(["init", a.path]).status == 0)
        #expect(try run(["init", b.path]).status == 0)
        try fill(a, count: 4)
        let first = try run(["sync", a.path], environment)
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardError.contains("embedded endpoint"))
        #expect(first.standardOutput.contains("pushed: 4 added"))
        let second = try run(["sync", b.path], environment)
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.standardOutput.contains("pulled: 4 added"))
        #expect(b.contactFiles == a.contactFiles)
        // A running `cardsync serve` on the same data folder is used instead of starting another.
        let server = try ServeProcess(data: root.appendingPathComponent("embedded"), admin: nil)
        defer { server.stop() }
        try fill(a, count: 5)
        let third = try run(["sync", a.path], environment)
        #expect(third.status == 0, "\(third.standardError)")
        #expect(third.standardError.contains("the running cardsync serve"))
        #expect(third.standardOutput.contains("pushed: 1 added"))
    }

    @Test func aDeletedServerDatabaseIsRefusedAndTheCommandTheMessageNamesRefillsIt() async throws {
        let root = try TestPaths.makeTemporaryDirectory("cli-refill")
        let server = try ServeProcess(data: root.appendingPathComponent("server"))
        defer { server.stop() }
        let environment = ["CARDSYNC_PASSWORD": "kill-test"]
        let a = root.appendingPathComponent("a")
        #expect(try run(["init", a.path]).status == 0)
        try fill(a, count: 6)
        #expect(try run(["remote", a.path, "set", "http://admin@127.0.0.1:\(server.port)/people"]).status == 0)
        let first = try run(["sync", a.path], environment)
        #expect(first.status == 0, "\(first.standardError)")
        let before = try a.contents()

        try await withCouchClient(url: URL(string: server.url)!) { client in try await client.database("people").delete() }
        let refused = try run(["sync", a.path], environment)
        #expect(refused.status == 65, "\(refused.standardError)")
        #expect(try a.contents() == before)
        // The message names the command that puts the contacts back; run it as written.
        let message = refused.standardError
        let command = try #require(message.range(of: "`cardsync sync ").map { start in
            message[start.upperBound...].prefix { $0 != "`" }
        }, "\(message)")
        let refill = try run(["sync"] + command.split(separator: " ").map(String.init), environment)
        #expect(refill.status == 0, "\(refill.standardError)")
        #expect(refill.standardOutput.contains("pushed: 6 added, 0 updated, 0 deleted"), "\(refill.standardOutput)")
        #expect(try a.contents() == before)

        // Nothing lost: a fresh book gets every contact from the server, and the next sync has nothing to do.
        let b = root.appendingPathComponent("b")
        #expect(try run(["init", b.path]).status == 0)
        let pulled = try run(["sync", b.path, "--remote", "http://admin@127.0.0.1:\(server.port)/people"], environment)
        #expect(pulled.status == 0, "\(pulled.standardError)")
        #expect(try b.contents().values.sorted() == before.values.sorted())
        let again = try run(["sync", a.path], environment)
        #expect(again.standardOutput.contains("pulled: 0 added, 0 updated, 0 deleted")
                && again.standardOutput.contains("pushed: 0 added, 0 updated, 0 deleted"), "\(again.standardOutput)")
    }

    @Test func aBrokenCardIsASyncErrorWithItsFileAndLineAndTheExitStatusSaysSo() throws {
        let root = try TestPaths.makeTemporaryDirectory("cli-broken")
        let environment = ["CARDSYNC_SERVER_DATA": root.appendingPathComponent("embedded").path]
        let a = root.appendingPathComponent("a")
        #expect(try run(["init", a.path]).status == 0)
        try fill(a, count: 3)
        try a.write("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Broken\r\nthis is not a property\r\n", to: "broken.vcf")

        let json = try run(["sync", a.path, "--format", "json"], environment)
        #expect(json.status == 75, "\(json.standardError)")
        try expectSchemaValid(json, "sync")
        let output = try #require(try JSONSerialization.jsonObject(with: json.outputBytes) as? [String: Any])
        let errors = try #require(output["errors"] as? [[String: Any]])
        #expect(errors.count == 1)
        #expect(errors.first?["file"] as? String == "broken.vcf" && errors.first?["line"] as? Int == 1, "\(errors)")
        #expect(errors.first?["code"] as? String == "invalid-file")
        #expect(((output["summary"] as? [String: Any])?["errors"] as? Int) == 1)
        // The rest synced.
        #expect((output["pushed"] as? [Any])?.count == 3)

        let text = try run(["sync", a.path], environment)
        #expect(text.status == 75, "\(text.standardError)")
        #expect(text.standardOutput.contains("errors: 1"))
        #expect(text.standardOutput.contains("\(a.path)/broken.vcf:1: card has no END:VCARD"), "\(text.standardOutput)")
    }

    @Test func duplicatesInTheSummaryAreNamedNotListedAsUIDs() throws {
        let root = try TestPaths.makeTemporaryDirectory("cli-duplicates")
        let environment = ["CARDSYNC_SERVER_DATA": root.appendingPathComponent("embedded").path]
        let a = root.appendingPathComponent("a")
        let b = root.appendingPathComponent("b")
        #expect(try run(["init", a.path]).status == 0)
        #expect(try run(["init", b.path]).status == 0)
        try a.write(card("same-in-a", "Same Person", email: "same@example.com"), to: "one.vcf")
        #expect(try run(["sync", a.path], environment).status == 0)
        try b.write(card("same-in-b", "Same Person", email: "same@example.com"), to: "two.vcf")
        let synced = try run(["sync", b.path], environment)
        #expect(synced.status == 0, "\(synced.standardError)")
        let lines = synced.standardOutput.split(separator: "\n")
        let index = try #require(lines.firstIndex { $0.contains("duplicates: 1 group(s)") }, "\(synced.standardOutput)")
        // Identical content means one name: the UIDs only tell the two apart.
        #expect(lines[index + 1] == "    Same Person (UID same-in-b = UID same-in-a)" || lines[index + 1] == "    Same Person (UID same-in-a = UID same-in-b)",
                "\(synced.standardOutput)")
    }

    /// Issue 20: an edit made two hours ago (by its file) but synced after a fresh edit elsewhere
    /// loses under `newest`; the dry run shows both versions' times and the pick, in text and
    /// in JSON, and `sync --help` states the rule.
    @Test func aDryRunShowsBothVersionsTimesAndWhichTheNewestPolicyPicks() throws {
        let root = try TestPaths.makeTemporaryDirectory("cli-edit-times")
        let environment = ["CARDSYNC_SERVER_DATA": root.appendingPathComponent("embedded").path]
        let a = root.appendingPathComponent("a")
        let b = root.appendingPathComponent("b")
        #expect(try run(["init", a.path]).status == 0)
        #expect(try run(["init", b.path]).status == 0)
        try a.write(card("ada", "Ada Lovelace", email: "ada@example.com"), to: "ada.vcf")
        #expect(try run(["sync", a.path], environment).status == 0)
        #expect(try run(["sync", b.path], environment).status == 0)
        // A's edit, its file dated two hours ago (`touch -d '2 hours ago'`); then B's, synced first.
        try a.write(card("ada", "Ada Lovelace", email: "ada@example.com", note: "from A"), to: "ada.vcf")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -7200)],
                                              ofItemAtPath: a.appendingPathComponent("ada.vcf").path)
        try b.write(card("ada", "Ada Lovelace", email: "ada@example.com", note: "from B"), to: "ada.vcf")
        #expect(try run(["sync", b.path], environment).status == 0)

        let text = try run(["sync", a.path, "--dry-run"], environment)
        #expect(text.status == 0, "\(text.standardError)")
        let lines = text.standardOutput.split(separator: "\n").map(String.init)
        let index = try #require(lines.firstIndex { $0.contains("Ada Lovelace: the server's version would win (edited on the server more recently)") },
                                 "\(text.standardOutput)")
        let times = lines[index + 1]
        #expect(times.hasPrefix("      here: edited 20") && times.contains("; on the server: edited 20"), "\(times)")

        let json = try run(["sync", a.path, "--dry-run", "--format", "json"], environment)
        #expect(json.status == 0, "\(json.standardError)")
        try expectSchemaValid(json, "sync")
        let output = try #require(try JSONSerialization.jsonObject(with: json.outputBytes) as? [String: Any])
        let conflict = try #require((output["conflicts"] as? [[String: Any]])?.first, "\(json.standardOutput)")
        let local = try #require(conflict["local"] as? [String: Any])
        let remote = try #require(conflict["remote"] as? [String: Any])
        #expect(conflict["winner"] as? String == "remote")
        #expect(local["deleted"] as? Bool == false && remote["deleted"] as? Bool == false)
        let localTime = try #require(local["edited"] as? String)
        let remoteTime = try #require(remote["edited"] as? String)
        #expect(localTime < remoteTime && times.contains(localTime) && times.contains(remoteTime))

        let synced = try run(["sync", a.path], environment)
        #expect(synced.status == 0 && synced.standardOutput.contains("conflicts: 1"), "\(synced.standardOutput)")
        #expect(try a.read("ada.vcf").contains("from B"))
        #expect(try run(["sync", b.path], environment).status == 0)
        #expect(try b.read("ada.vcf").contains("from B"))

        let help = try run(["sync", "--help"])
        let words = help.standardOutput.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
        #expect(words.contains("an edit wins over a deletion"), "\(help.standardOutput)")
        #expect(words.contains("else the edit made last"), "\(help.standardOutput)")
    }

    @Test func exitStatusesSayWhatWentWrong() throws {
        let root = try TestPaths.makeTemporaryDirectory("cli-exit")
        let a = root.appendingPathComponent("a")
        #expect(try run(["init", a.path]).status == 0)
        let noDatabase = try run(["sync", a.path, "--remote", "http://127.0.0.1:9"])
        #expect(noDatabase.status == 78 && noDatabase.standardError.contains("names no database"))
        let unreachable = try run(["sync", a.path, "--remote", "http://127.0.0.1:9/contacts", "--attempts", "1"])
        #expect(unreachable.status == 69, "\(unreachable.standardError)")
        #expect(unreachable.standardError.contains("cannot reach"))
        let notABook = try run(["sync", root.appendingPathComponent("missing").path, "--remote", "http://127.0.0.1:9/contacts"])
        #expect(notABook.status != 0 && notABook.standardError.contains("cardsync init"))
    }
}
