@testable import ContactStore
import Foundation
import Testing
import TestSupport

/// A book folder's walk: its names, and a stat of each contact file made while the walk goes on.
@Suite struct FolderListingTests {
    /// A folder of `count` contact files of different sizes, with other entries between them.
    private func folder(contactFiles count: Int) throws -> (URL, [String: Int]) {
        let folder = try TestPaths.makeTemporaryDirectory("listing")
        var sizes: [String: Int] = [:]
        for number in 0..<count {
            let name = "contact-\(number).vcf"
            let text = String(repeating: "x", count: number + 1)
            try folder.write(text, to: name)
            sizes[name] = number + 1
            if number % 7 == 0 { try folder.write("not a contact", to: "notes-\(number).txt") }
            if number % 11 == 0 { try folder.write("hidden", to: ".hidden-\(number).vcf") }
        }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("sub.vcf"), withIntermediateDirectories: false)
        return (folder, sizes)
    }

    @Test(arguments: [1, 3, 64, 4096])
    func everyContactFileIsStampedOnceInTheWalksOrderWhateverTheBlockSize(blockSize: Int) throws {
        let (folder, sizes) = try folder(contactFiles: 200)
        let listing = try FolderListing.read(folder.path, stamping: true, blockSize: blockSize)
        let stamped = try #require(listing.stamped)
        // The contact files, in the order the walk listed them.
        #expect(stamped.map(\.name) == listing.names.filter(SafeFileName.isContactFile))
        #expect(Set(stamped.map(\.name)) == Set(sizes.keys).union(["sub.vcf"]))
        for file in stamped {
            if file.name == "sub.vcf" {
                // A folder with a contact file's name is not a regular file.
                #expect(file.stamp == nil)
            } else {
                #expect(file.stamp?.size == Int64(sizes[file.name]!), "\(file.name)")
            }
        }
        #expect(listing.names.count == 200 + 29 + 19 + 1)
    }

    @Test func aWalkWithoutStampsListsTheNamesOnly() throws {
        let (folder, _) = try folder(contactFiles: 10)
        let listing = try FolderListing.read(folder.path, stamping: false, blockSize: 2)
        #expect(listing.stamped == nil)
        #expect(listing.names.count == 10 + 2 + 1 + 1)
    }

    @Test func aMissingFolderIsAnErrorThatNamesIt() throws {
        let folder = try TestPaths.makeTemporaryDirectory("listing").appendingPathComponent("gone")
        let error = #expect(throws: ContactStoreError.self) { try FolderListing.read(folder.path, stamping: true, blockSize: 2) }
        #expect(error.map { "\($0)" }?.contains(folder.path) == true)
    }
}
