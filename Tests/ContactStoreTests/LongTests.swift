import ContactStore
import Foundation
import SampleGenerator
import Testing
import TestSupport

/// The issue's acceptance runs at full size. They take minutes, so they run only with
/// `CARDSYNC_LONG_TESTS=1 swift test --filter LongTests`.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["CARDSYNC_LONG_TESTS"] == "1"))
struct LongTests {
    static let count = Int(ProcessInfo.processInfo.environment["CARDSYNC_LONG_COUNT"] ?? "") ?? 100_000

    /// 5% exact and 5% formatting-only duplicates import as exactly the distinct contacts.
    @Test func hundredThousandCardsImportAsTheDistinctContacts() throws {
        let root = try TestPaths.makeTemporaryDirectory("long-import")
        defer { try? FileManager.default.removeItem(at: root) }
        let input = root.appendingPathComponent("book.vcf")
        var bytes: [UInt8] = []
        let labels = AddressBookGenerator(options: GeneratorOptions(count: Self.count, seed: 42, duplicateRate: 0.1)).write(to: &bytes)
        try Data(bytes).write(to: input)
        let book = root.appendingPathComponent("book").path
        #expect(try CLIRunner.run(["init", book]).status == 0)
        let result = try CLIRunner.run(["import", input.path, "--into", book, "--format", "json"])
        #expect(result.status == 0, "\(result.standardError.prefix(2000))")
        let report = try JSONSerialization.jsonObject(with: result.outputBytes) as! [String: Any]
        #expect(report["added"] as? Int == labels.distinct)
        #expect((report["duplicates"] as? [Any])?.count == labels.exact + labels.reformatted)
        #expect(URL(fileURLWithPath: book).contactFiles.count == labels.distinct)
        #expect(try CLIRunner.run(["check", book]).status == 0)
    }

    /// kill -9 at 20 random moments of an import; every reopen works, check passes, and running
    /// the import again ends where an uninterrupted import ends.
    @Test func killedImportsRecoverAndFinish() throws {
        let root = try TestPaths.makeTemporaryDirectory("long-kill")
        defer { try? FileManager.default.removeItem(at: root) }
        let input = root.appendingPathComponent("book.vcf")
        var bytes: [UInt8] = []
        let labels = AddressBookGenerator(options: GeneratorOptions(count: Self.count, seed: 7, duplicateRate: 0.1)).write(to: &bytes)
        try Data(bytes).write(to: input)
        let book = root.appendingPathComponent("book").path
        #expect(try CLIRunner.run(["init", book]).status == 0)
        var generator = SystemRandomNumberGenerator()
        for round in 0..<20 {
            let process = Process()
            process.executableURL = CLIRunner.executable
            process.arguments = ["import", input.path, "--into", book]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 200_000...3_000_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let check = try CLIRunner.run(["check", book])
            #expect(check.status == 0, "round \(round): \(check.standardOutput.prefix(2000)) \(check.standardError.prefix(2000))")
            let visible = try FileManager.default.contentsOfDirectory(atPath: book).filter { $0.contains("cardsync-tmp") && !$0.hasPrefix(".") }
            #expect(visible.isEmpty)
        }
        let finished = try CLIRunner.run(["import", input.path, "--into", book])
        #expect(finished.status == 0)
        #expect(try CLIRunner.run(["check", book]).status == 0)
        // The same state as an uninterrupted import: the same contacts with the same content.
        let reference = root.appendingPathComponent("reference").path
        #expect(try CLIRunner.run(["init", reference]).status == 0)
        #expect(try CLIRunner.run(["import", input.path, "--into", reference]).status == 0)
        #expect(try contents(book) == contents(reference))
        #expect(URL(fileURLWithPath: book).contactFiles.count == URL(fileURLWithPath: reference).contactFiles.count)
        _ = labels
    }

    /// UID, name, e-mail addresses and numbers of every contact (file names may differ: UUIDs).
    private func contents(_ book: String) throws -> [String] {
        let output = try CLIRunner.run(["list", book, "--format", "json"]).outputBytes
        let contacts = (try JSONSerialization.jsonObject(with: output) as! [String: Any])["contacts"] as! [[String: Any]]
        return contacts.map { "\($0["uid"]!)|\($0["name"]!)|\($0["emails"]!)|\($0["phones"]!)" }.sorted()
    }
}

#if canImport(Glibc)
import Glibc
#endif
