@testable import ContactStore
import Foundation
import Testing
import TestSupport

/// New contact files are created whole and never over an existing file, whether they are written
/// unnamed and then linked (from the descriptor or through `/proc`, on Linux) or created under
/// their name (file systems that cannot link an unnamed file); each comes back with its stamp.
@Suite struct NewFileCreationTests {
    @Test(arguments: NewFileMethod.allCases)
    func newFilesAreCreatedWholeAndAnExistingFileIsLeftAlone(method: NewFileMethod) throws {
        let folder = try TestPaths.makeTemporaryDirectory("create")
        try folder.write("already here", to: "taken.vcf")
        let items: [(name: String, bytes: [UInt8])] = (0..<200).map { ("new-\($0).vcf", Array("card \($0)\r\n".utf8)) }
            + [("taken.vcf", Array("would replace".utf8)), ("empty.vcf", [])]
        let results = POSIX.createNewFiles(items, in: folder.path, method: method, name: { $0.name }, bytes: { $0.bytes })
        #expect(results.count == items.count)
        for (item, result) in zip(items, results) where item.name != "taken.vcf" {
            #expect(result.errorNumber == 0, "\(item.name)")
            #expect(FileManager.default.contents(atPath: folder.appendingPathComponent(item.name).path) == Data(item.bytes))
        }
        #expect(results[200] == .failed(errno: EEXIST))
        #expect(try folder.read("taken.vcf") == "already here")
        // Nothing else is left in the folder: no temporary name, no half-written file.
        let entries = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(Set(entries) == Set(items.map(\.name)))
    }

    @Test(arguments: NewFileMethod.allCases)
    func eachNewFileComesWithTheStampItHasUnderItsName(method: NewFileMethod) throws {
        let folder = try TestPaths.makeTemporaryDirectory("create")
        let items: [(name: String, bytes: [UInt8])] = (0..<100).map { ("new-\($0).vcf", Array(repeating: UInt8(0x41), count: $0)) }
        let results = POSIX.createNewFiles(items, in: folder.path, method: method, name: { $0.name }, bytes: { $0.bytes })
        let stampsAsCreated = results.map(\.stamp)
        let stampsNow = items.map { POSIX.stamp(folder.appendingPathComponent($0.name).path) }
        #expect(stampsAsCreated.allSatisfy { $0 != nil })
        #expect(stampsAsCreated == stampsNow)
        #expect(stampsAsCreated.compactMap { $0?.size } == items.map { Int64($0.bytes.count) })
    }

    @Test(arguments: NewFileMethod.allCases)
    func aFolderThatCannotBeWrittenFailsEachFileWithItsError(method: NewFileMethod) throws {
        let folder = try TestPaths.makeTemporaryDirectory("create").appendingPathComponent("missing")
        let results = POSIX.createNewFiles([("a.vcf", [UInt8(1)]), ("b.vcf", [])], in: folder.path, method: method,
                                           name: { $0.0 }, bytes: { $0.1 })
        #expect(results == [.failed(errno: ENOENT), .failed(errno: ENOENT)])
    }
}
