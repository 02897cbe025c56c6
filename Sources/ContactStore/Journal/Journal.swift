#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The append-only journal of an address book, `.cardsync/journal.jsonl`: one ``JournalEvent``
/// per line. The actor owns the file descriptor, so appends are serialized.
///
/// Events are durable once ``synchronize()`` returns: commands append a batch, synchronize, and
/// only then report success. Sequence numbers and timestamps are assigned here.
///
/// ```swift
/// let written = try await journal.append([event])
/// try await journal.synchronize()
/// ```
public actor Journal {
    /// The journal file.
    public nonisolated let path: String
    private var descriptor: Int32
    /// The sequence number of the last event written.
    public private(set) var lastSequence: Int
    /// The size of the file: the offset the next line is written at.
    public private(set) var size: Int64
    /// The number of lines in the file.
    public private(set) var lineCount: Int
    private var needsSync = false
    private let now: @Sendable () -> Int64
    /// The bytes of the batch being written, kept between appends: a pull or an import appends
    /// a batch of a megabyte or more at a time, and an array of that size allocated anew each
    /// time comes from fresh pages that the kernel must zero and map, one fault a page.
    private var batchBytes: [UInt8] = []
    /// Above this, the batch's buffer is let go after the write rather than kept (a batch of
    /// very large cards is not held for the rest of the run).
    private static let keptBatchCapacity = 8 << 20

    /// Opens `path` for appending (creating it with mode 0600 if needed).
    /// - Parameters:
    ///   - lastSequence: the last sequence number in the file, found by reading it.
    ///   - lineCount: the number of lines in the file.
    ///   - now: the clock, in milliseconds since 1970 (tests pass a fixed one).
    init(path: String, lastSequence: Int, lineCount: Int, now: @escaping @Sendable () -> Int64 = UTCTimestamp.now) throws(ContactStoreError) {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io(path, "cannot open the journal for writing", errno: errno) }
        var info = stat()
        fstat(fd, &info)
        self.path = path
        self.descriptor = fd
        self.lastSequence = lastSequence
        self.lineCount = lineCount
        self.size = Int64(info.st_size)
        self.now = now
    }

    deinit {
        if descriptor >= 0 { POSIX.closeFile(descriptor) }
    }

    /// Appends events in one write, giving each the next sequence number and the current time.
    ///
    /// The events are not yet durable: call ``synchronize()`` before reporting success.
    /// - Parameter events: taken, not copied (a pull hands over two events per contact).
    /// - Returns: the events as written, and the byte offset of each line.
    public func append(_ events: consuming [JournalEvent]) throws(ContactStoreError) -> (events: [JournalEvent], offsets: [Int64]) {
        guard !events.isEmpty else { return ([], []) }
        guard descriptor >= 0 else { throw ContactStoreError(code: .io, message: "the journal is closed", path: path) }
        let time = now()
        var numbered = consume events
        var sequence = lastSequence
        for index in numbered.indices {
            sequence += 1
            numbered[index].sequence = sequence
            numbered[index].timestamp = time
            numbered[index].schemaVersion = JournalEvent.currentSchemaVersion
        }
        // The lines are encoded on every core (an import's batch of a thousand cards with their
        // text), then written in order in one write.
        let lines = Parallel.map(numbered, minimumPerWorker: 64) { JournalLine.encode($0) }
        var bytes = batchBytes
        batchBytes = []
        bytes.removeAll(keepingCapacity: true)
        bytes.reserveCapacity(lines.reduce(0) { $0 + $1.count })
        var offsets: [Int64] = []
        offsets.reserveCapacity(lines.count)
        for line in lines {
            offsets.append(size + Int64(bytes.count))
            bytes.append(contentsOf: line)
        }
        defer { if bytes.capacity <= Self.keptBatchCapacity { batchBytes = bytes } }
        try POSIX.writeAll(descriptor, bytes, path: path)
        lastSequence = sequence
        size += Int64(bytes.count)
        lineCount += lines.count
        needsSync = true
        return (numbered, offsets)
    }

    /// Makes every appended event durable (`fsync`).
    public func synchronize() throws(ContactStoreError) {
        guard needsSync, descriptor >= 0 else { return }
        guard fsync(descriptor) == 0 else { throw .io(path, "cannot sync the journal", errno: errno) }
        needsSync = false
    }

    /// Closes the file after synchronizing; later appends fail.
    func close() throws(ContactStoreError) {
        try synchronize()
        if descriptor >= 0 { POSIX.closeFile(descriptor) }
        descriptor = -1
    }

    /// Reopens the file after it was replaced (by compaction).
    func reopen(lastSequence: Int, lineCount: Int) throws(ContactStoreError) {
        if descriptor >= 0 { POSIX.closeFile(descriptor) }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io(path, "cannot open the journal for writing", errno: errno) }
        var info = stat()
        fstat(fd, &info)
        descriptor = fd
        self.lastSequence = lastSequence
        self.lineCount = lineCount
        size = Int64(info.st_size)
        needsSync = false
    }
}
