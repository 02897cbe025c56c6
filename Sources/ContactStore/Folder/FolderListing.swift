/// A book folder's entries as one directory walk found them, and, when asked for, what one stat
/// of each contact file found (made on every core right after the walk).
///
/// Opening a book walks its folder while the index summary is decoded on another core, and
/// stamps the contact files in the same pass: an opening scan of an unchanged book then only
/// compares those stamps with the summary's.
struct FolderListing: Sendable {
    /// The names of the entries that are UTF-8, in the folder's order (`.` and `..` left out).
    var names: [String]
    /// The names that are not UTF-8, decoded with replacement characters (for messages).
    var undecodable: [String]
    /// The contact files among ``names``, in their order, with their stamps; `nil` when the walk
    /// did not stat them, or when what it found may no longer hold (the folder was written since).
    var stamped: [StampedFile]?

    /// A contact file and what a stat of it found: `nil` when it is gone or not a regular file.
    struct StampedFile: Sendable {
        let name: String
        let stamp: FileStamp?
    }

    /// Walks `directory`; with `stamping`, also stats each contact file in it.
    static func read(_ directory: String, stamping: Bool) throws(ContactStoreError) -> FolderListing {
        let (names, undecodable) = try POSIX.listDirectory(directory)
        var listing = FolderListing(names: names, undecodable: undecodable, stamped: nil)
        if stamping { listing.stamped = stamp(names.filter(SafeFileName.isContactFile), in: directory) }
        return listing
    }

    /// One stat of each of `files` in `directory`, on every core (`nil` when the folder cannot be opened).
    static func stamp(_ files: [String], in directory: String) -> [StampedFile]? {
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryDescriptor >= 0 else { return nil }
        defer { POSIX.closeFile(directoryDescriptor) }
        let parts = stride(from: 0, to: files.count, by: 4096).map { $0..<min($0 + 4096, files.count) }
        // Only the stamps (plain values) come back from the workers; each name is then retained
        // once, into its StampedFile (the copies of names were a tenth of an unchanged scan).
        let stamps = Parallel.map(parts, minimumPerWorker: 1) { range in
            range.map { POSIX.stamp(in: directoryDescriptor, name: files[$0]) }
        }.flatMap { $0 }
        return files.indices.map { StampedFile(name: files[$0], stamp: stamps[$0]) }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
