import Dispatch
import Foundation

/// A book folder's entries as one directory walk found them, and, when asked for, what one stat
/// of each contact file found (made on the other cores while the walk goes on).
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

    /// Walks `directory`; with `stamping`, also stats each contact file in it. The stats do not
    /// wait for the walk: each block of names it lists is stamped on another core while it lists
    /// the next (the walk alone was a third of an unchanged scan's time, on one core).
    /// `blockSize` is how many names a block holds.
    static func read(_ directory: String, stamping: Bool, blockSize: Int = 4096) throws(ContactStoreError) -> FolderListing {
        let descriptor = stamping ? open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1
        guard descriptor >= 0 else {
            let (names, undecodable) = try POSIX.listDirectory(directory)
            return FolderListing(names: names, undecodable: undecodable, stamped: nil)
        }
        let stamps = StampPipeline(directory: descriptor)
        // Closing waits for the blocks being stamped, so the folder is closed after their stats,
        // whether the walk ends or fails.
        defer {
            stamps.close()
            POSIX.closeFile(descriptor)
        }
        for _ in 1..<System.processorCount {
            DispatchQueue.global().async { stamps.stampBlocks() }
        }
        let (names, undecodable) = try POSIX.listDirectory(directory, inBlocksOf: max(1, blockSize)) { stamps.add($0) }
        stamps.finishAdding()
        stamps.stampBlocks()
        stamps.close()
        return FolderListing(names: names, undecodable: undecodable, stamped: stamps.stampedFiles())
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

/// The stats of a folder's contact files, made block by block as a walk lists the folder's names:
/// the walking thread adds blocks; any thread that calls ``stampBlocks()`` takes the next block
/// not taken yet. A block is taken only before ``close()``, which waits for the blocks taken, so a
/// helper that starts late (its pool busy) stats nothing once the folder may be closed.
private final class StampPipeline: @unchecked Sendable {
    private let directory: Int32
    // Everything below is guarded by `condition`.
    private let condition = NSCondition()
    private var blocks: [[String]] = []
    private var stamped: [[FolderListing.StampedFile]] = []
    private var nextBlock = 0
    private var blocksBeingStamped = 0
    private var adding = true
    private var closed = false

    init(directory: Int32) {
        self.directory = directory
    }

    /// Queues the names of a block to be stamped.
    func add(_ names: [String]) {
        condition.lock()
        blocks.append(names)
        stamped.append([])
        condition.signal()
        condition.unlock()
    }

    /// No block will be added any more.
    func finishAdding() {
        condition.lock()
        adding = false
        condition.broadcast()
        condition.unlock()
    }

    /// Stamps the next block not taken until there is none and none will be added.
    func stampBlocks() {
        while let (position, names) = takeBlock() {
            let files = names.filter(SafeFileName.isContactFile).map {
                FolderListing.StampedFile(name: $0, stamp: POSIX.stamp(in: directory, name: $0))
            }
            condition.lock()
            stamped[position] = files
            blocksBeingStamped -= 1
            condition.broadcast()
            condition.unlock()
        }
    }

    private func takeBlock() -> (Int, [String])? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if closed { return nil }
            if nextBlock < blocks.count {
                nextBlock += 1
                blocksBeingStamped += 1
                return (nextBlock - 1, blocks[nextBlock - 1])
            }
            if !adding { return nil }
            condition.wait()
        }
    }

    /// Waits for the blocks taken, then lets no other be taken.
    func close() {
        condition.lock()
        defer { condition.unlock() }
        while blocksBeingStamped > 0 { condition.wait() }
        closed = true
        condition.broadcast()
    }

    /// The stamps of the contact files in the walk's order, once closed (complete when every
    /// block was added and stamped). Made once: the array of every file is copied from the
    /// blocks, which for a large folder is most of a millisecond.
    func stampedFiles() -> [FolderListing.StampedFile] {
        condition.lock()
        defer { condition.unlock() }
        return stamped.flatMap { $0 }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
