@testable import ContactStore
import Foundation
import Testing
import TestSupport

/// New contact files are created whole and never over an existing file, whether they are written
/// unnamed and then linked (Linux) or created under their name (file systems that cannot link an
/// unnamed file).
@Suite struct NewFileCreationTests {
    @Test(arguments: [true, false])
    func newFilesAreCreatedWholeAndAnExistingFileIsLeftAlone(unnamed: Bool) throws {
        let folder = try TestPaths.makeTemporaryDirectory("create")
        try folder.write("already here", to: "taken.vcf")
        let items: [(name: String, bytes: [UInt8])] = (0..<200).map { ("new-\($0).vcf", Array("card \($0)\r\n".utf8)) }
            + [("taken.vcf", Array("would replace".utf8)), ("empty.vcf", [])]
        let results = POSIX.createNewFiles(items, in: folder.path, unnamed: unnamed, name: { $0.name }, bytes: { $0.bytes })
        #expect(results.count == items.count)
        for (item, result) in zip(items, results) where item.name != "taken.vcf" {
            #expect(result == 0, "\(item.name)")
            #expect(FileManager.default.contents(atPath: folder.appendingPathComponent(item.name).path) == Data(item.bytes))
        }
        #expect(results[200] == EEXIST)
        #expect(try folder.read("taken.vcf") == "already here")
        // Nothing else is left in the folder: no temporary name, no half-written file.
        let entries = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(Set(entries) == Set(items.map(\.name)))
    }

    @Test(arguments: [true, false])
    func aFolderThatCannotBeWrittenFailsEachFileWithItsError(unnamed: Bool) throws {
        let folder = try TestPaths.makeTemporaryDirectory("create").appendingPathComponent("missing")
        let results = POSIX.createNewFiles([("a.vcf", [UInt8(1)])], in: folder.path, unnamed: unnamed, name: { $0.0 }, bytes: { $0.1 })
        #expect(results == [ENOENT])
    }
}
