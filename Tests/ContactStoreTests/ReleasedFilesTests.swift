@testable import ContactStore
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files a pull replaces or removes are set aside in `.cardsync/released/` and freed on a
/// helper thread: the folder changes exactly as before, every old file is freed by the time the
/// book is closed, and what a killed run left there is freed at the next opening.
@Suite struct ReleasedFilesTests {
    static let releasedFolder = ".cardsync/" + ReleasedFiles.folderName

    /// How many names a folder holds (`nil` when it does not exist).
    static func entries(_ folder: URL) -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.count
    }

    /// The number of links of the file open at `descriptor`: 0 once it is freed.
    static func links(_ descriptor: Int32) -> Int {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? Int(info.st_nlink) : -1
    }

    @Test func aPullSetsAsideTheFilesItReplacesAndRemovesAndFreesThemBeforeTheBookCloses() async throws {
        let book = try makeBook("released-pull")
        try book.write(cardText(uid: "ada", name: "Ada Lovelace"), to: "ada.vcf")
        try book.write(cardText(uid: "bob", name: "Bob Jones"), to: "bob.vcf")
        try await AddressBook.withOpen(at: book) { _ in }
        // The old files, held open to see when they are freed.
        let oldAda = open(book.appendingPathComponent("ada.vcf").path, O_RDONLY)
        let oldBob = open(book.appendingPathComponent("bob.vcf").path, O_RDONLY)
        defer { close(oldAda); close(oldBob) }
        #expect(Self.links(oldAda) == 1 && Self.links(oldBob) == 1)

        try await AddressBook.withOpen(at: book) { opened in
            // Slowed, so that only waiting for the helper thread at closing finds them freed.
            opened.releasedFiles.pauseBeforeFreeing(.milliseconds(300))
            _ = try await opened.applyRemote([try remoteVersion(uid: "ada", name: "Ada Lovelace", email: "ada@example.org", revision: "2-b"),
                                              .deletion(uid: "bob", revision: "2-c")], remote: "test")
            #expect(opened.releasedFiles.setAsideCount == 2, "Ada's replaced file and Bob's removed one")
        }

        #expect(book.contactFiles == ["ada.vcf"])
        #expect(try book.read("ada.vcf").contains("EMAIL:ada@example.org"))
        #expect(Self.entries(book.appendingPathComponent(Self.releasedFolder)) == 0,
                "the pull set the old files aside there, and they were freed before the book closed")
        #expect(Self.links(oldAda) == 0 && Self.links(oldBob) == 0, "both old files are freed")
    }

    @Test func filesAKilledPullLeftAsideAreFreedWhenTheBookNextOpens() async throws {
        let book = try makeBook("released-leftovers")
        try book.write(cardText(uid: "ada", name: "Ada Lovelace"), to: "ada.vcf")
        try await AddressBook.withOpen(at: book) { _ in }
        // Killed after setting Ada's file aside (before or after its rename) and after moving a
        // removed file there.
        let released = book.appendingPathComponent(Self.releasedFolder)
        try FileManager.default.createDirectory(at: released, withIntermediateDirectories: true)
        #expect(link(book.appendingPathComponent("ada.vcf").path, released.appendingPathComponent("1a2b3c4d-1").path) == 0)
        try Data("BEGIN:VCARD\r\nEND:VCARD\r\n".utf8).write(to: released.appendingPathComponent("1a2b3c4d-2"))

        let scan = try await AddressBook.withOpen(at: book) { await $0.openingScan }

        #expect(scan?.isUnchanged == true, "nothing set aside is taken for a contact")
        #expect(Self.entries(released) == 0)
        #expect(try book.read("ada.vcf") == cardText(uid: "ada", name: "Ada Lovelace"), "the folder's file is untouched")
    }

    @Test func whereNothingCanBeSetAsideFilesAreReplacedAndRemovedInPlace() throws {
        let folder = try TestPaths.makeTemporaryDirectory("released-in-place")
        // No folder to set files aside in: its parent is missing.
        let released = ReleasedFiles(metaDirectory: folder.appendingPathComponent("missing").path)
        try Data("old".utf8).write(to: folder.appendingPathComponent("a.vcf"))
        try Data("gone".utf8).write(to: folder.appendingPathComponent("b.vcf"))

        #expect(!released.keep(folder.appendingPathComponent("a.vcf").path))
        #expect(released.release(folder.appendingPathComponent("b.vcf").path) == 0)
        #expect(released.release(folder.appendingPathComponent("b.vcf").path) == ENOENT, "a file already gone says so")
        released.freeInBackground()
        released.waitUntilFreed()

        #expect(try String(contentsOf: folder.appendingPathComponent("a.vcf"), encoding: .utf8) == "old")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("b.vcf").path))
    }

    @Test func keptFilesStayInTheFolderUntilFreed() throws {
        let folder = try TestPaths.makeTemporaryDirectory("released-kept")
        let released = ReleasedFiles(metaDirectory: folder.path)
        let file = folder.appendingPathComponent("a.vcf")
        try Data("old".utf8).write(to: file)
        let descriptor = open(file.path, O_RDONLY)
        defer { close(descriptor) }

        #expect(released.keep(file.path))
        #expect(Self.links(descriptor) == 2, "linked aside, still in the folder")
        #expect(!released.keep(folder.appendingPathComponent("missing.vcf").path))
        released.pauseBeforeFreeing(.milliseconds(300))
        released.freeInBackground()
        released.waitUntilFreed()

        #expect(Self.links(descriptor) == 1)
        #expect(try String(contentsOf: file, encoding: .utf8) == "old")
        #expect(Self.entries(URL(fileURLWithPath: released.folder)) == 0)
    }
}
