#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import Foundation
public import Logging
import VCardKit

/// An address book: a folder of `.vcf` files (one contact per file, the vdir layout that
/// vdirsyncer and khard use) and a hidden `.cardsync/` folder with the journal of every version.
///
/// Open a book for the length of a closure; every change is journaled and durable before the
/// call that made it returns, and the book is closed (index saved, lock released) afterwards:
///
/// ```swift
/// try AddressBook.create(at: folder)
/// let report = try await AddressBook.withOpen(at: folder) { book in
///     try await book.importContacts(from: [.file("export.vcf")])
/// }
/// print("\(report.added) added, \(report.duplicates.count) duplicates skipped")
/// ```
///
/// Opening scans the folder (unless ``OpenOptions/scans`` is false), so changes made by other
/// programs are recorded first; ``openingScan`` holds what that scan found.
public actor AddressBook {
    /// How to open a book.
    public struct OpenOptions: Sendable {
        /// Scan the folder for changes made by other programs when opening (the default).
        public var scans: Bool
        /// Write a generated UID into files whose cards have none (only when scanning).
        public var addsMissingUIDs: Bool
        /// How long to wait for another process that has the book open.
        public var lockTimeout: Duration
        /// The clock that dates journal events and bounds the time of outside edits.
        public var clock: WallClock
        /// Called as the opening scan reads files (see ``AddressBook/scan(addingMissingUIDs:progress:)``).
        public var scanProgress: (@Sendable (BookProgress) -> Void)?

        /// Creates options.
        public init(scans: Bool = true, addsMissingUIDs: Bool = false, lockTimeout: Duration = .seconds(10),
                    clock: WallClock = .system, scanProgress: (@Sendable (BookProgress) -> Void)? = nil) {
            self.scans = scans
            self.addsMissingUIDs = addsMissingUIDs
            self.lockTimeout = lockTimeout
            self.clock = clock
            self.scanProgress = scanProgress
        }
    }

    /// The book's folder (absolute, without a trailing slash).
    public nonisolated let directory: String
    /// The `.cardsync` folder inside it.
    nonisolated let metaDirectory: String
    /// The clock that dates the book's journal events (``OpenOptions/clock``).
    public nonisolated let clock: WallClock
    let journal: Journal
    var index: BookIndex
    let logger: Logger
    private let lockDescriptor: Int32
    var indexChanged: Bool
    private var isClosed = false
    /// What opening found and did before the first call: a torn journal line set aside, stale
    /// temporary files removed, the index rebuilt. For people; empty when nothing happened.
    public private(set) var openingNotes: [String]
    /// What the scan made when opening found, or `nil` when opened without scanning.
    public internal(set) var openingScan: ScanReport?

    static let journalName = "journal.jsonl"
    static let snapshotName = "index.bin"
    static let settingsName = "settings.json"
    static let lockName = "lock"

    var journalPath: String { metaDirectory + "/" + Self.journalName }
    nonisolated var snapshotPath: String { metaDirectory + "/" + Self.snapshotName }

    /// The command that repairs a damaged journal, for messages.
    nonisolated var repairHint: String { "cardsync check \(directory) --repair" }

    // MARK: - Creating

    /// Makes `url` an address book: creates the folder if needed, and `.cardsync/` (mode 0700)
    /// with an empty journal and the settings (mode 0600). `.vcf` files already in the folder
    /// become the book's contacts the first time it is opened, without being rewritten.
    ///
    /// ```swift
    /// try AddressBook.create(at: URL(fileURLWithPath: "contacts"))
    /// ```
    /// - Throws: ``ContactStoreError/Code/alreadyAnAddressBook`` when `.cardsync/` exists;
    ///   ``ContactStoreError/Code/io`` when the folders cannot be made.
    public static func create(at url: URL) throws(ContactStoreError) {
        let directory = Self.normalize(url)
        let meta = directory + "/.cardsync"
        if POSIX.exists(meta + "/" + settingsName) {
            throw ContactStoreError(code: .alreadyAnAddressBook,
                                    message: "is already an address book; open it with any other command (for example `cardsync list \(directory)`)",
                                    path: directory)
        }
        if POSIX.exists(directory) && !POSIX.isDirectory(directory) {
            throw ContactStoreError(code: .invalidInput, message: "is a file, not a folder; give a folder to hold the contacts", path: directory)
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw ContactStoreError(code: .io, message: "cannot create the folder: \(error.localizedDescription)", path: directory)
        }
        try POSIX.makeDirectory(meta, mode: 0o700)
        chmod(meta, 0o700)
        let journal = meta + "/" + journalName
        if !POSIX.exists(journal) { try POSIX.createFile(journal, [], mode: 0o600) }
        let settings = "{\"createdBy\":\"cardsync\",\"layout\":\"vdir\",\"schemaVersion\":1}\n"
        try POSIX.writeAtomically(Array(settings.utf8), directory: meta, name: settingsName, replacing: true)
    }

    // MARK: - Opening and closing

    /// Opens the book at `url`, runs `body` with it, and closes it (even when `body` throws).
    ///
    /// ```swift
    /// let contacts = try await AddressBook.withOpen(at: folder) { book in await book.contactSummaries() }
    /// ```
    /// - Parameters:
    ///   - url: the book's folder.
    ///   - options: whether to scan the folder first, and how long to wait for the lock.
    ///   - logger: where the book logs what it does (debug level); never bootstrapped here.
    /// - Throws: ``ContactStoreError`` — `notAnAddressBook`, `locked`, `journalDamaged`, `io` —
    ///   or whatever `body` throws.
    public static func withOpen<Result: Sendable>(
        at url: URL, options: OpenOptions = OpenOptions(), logger: Logger = Logger(label: "cardsync.contactstore"),
        _ body: (AddressBook) async throws -> Result
    ) async throws -> Result {
        let book = try await AddressBook(opening: url, options: options, logger: logger)
        let result: Result
        do {
            if options.scans {
                try await book.performOpeningScan(addingMissingUIDs: options.addsMissingUIDs, progress: options.scanProgress)
            }
            result = try await body(book)
        } catch {
            try? await book.close()
            throw error
        }
        try await book.close()
        return result
    }

    private init(opening url: URL, options: OpenOptions, logger: Logger) async throws(ContactStoreError) {
        let directory = Self.normalize(url)
        let meta = directory + "/.cardsync"
        guard POSIX.isDirectory(meta), POSIX.exists(meta + "/" + Self.settingsName) else {
            if !POSIX.exists(directory) {
                throw ContactStoreError(code: .missingInput, message: "no such folder; create an address book with `cardsync init \(directory)`",
                                        path: directory)
            }
            throw ContactStoreError(code: .notAnAddressBook,
                                    message: "is not an address book (no .cardsync folder); make it one with `cardsync init \(directory)`",
                                    path: directory)
        }
        self.directory = directory
        self.metaDirectory = meta
        self.clock = options.clock
        self.logger = logger
        self.lockDescriptor = try Self.lock(meta + "/" + Self.lockName, timeout: options.lockTimeout, directory: directory)
        var notes: [String] = []
        let journalPath = meta + "/" + Self.journalName
        do {
            if let note = try Self.setAsideTornTail(journalPath) { notes.append(note) }
            let (index, rebuilt) = try Self.loadIndex(journalPath: journalPath, snapshotPath: meta + "/" + Self.snapshotName,
                                                      repairHint: "cardsync check \(directory) --repair")
            if rebuilt && index.lastSequence > 0 { notes.append("the index was rebuilt from the journal (\(index.journalLines) lines)") }
            self.index = index
            self.indexChanged = rebuilt
            let clock = options.clock
            self.journal = try Journal(path: journalPath, lastSequence: index.lastSequence, lineCount: index.journalLines,
                                       now: { clock.now() })
            notes.append(contentsOf: Self.removeTemporaryFiles(in: directory))
        } catch {
            flock(lockDescriptor, LOCK_UN)
            POSIX.closeFile(lockDescriptor)
            throw error
        }
        self.openingNotes = notes
        logger.debug("opened address book", metadata: ["directory": "\(directory)", "contacts": "\(index.liveCount)"])
    }

    /// Makes everything durable, saves the index when it changed, and releases the lock.
    func close() async throws(ContactStoreError) {
        guard !isClosed else { return }
        isClosed = true
        defer {
            flock(lockDescriptor, LOCK_UN)
            POSIX.closeFile(lockDescriptor)
        }
        try await journal.close()
        if indexChanged { try saveSnapshot() }
    }

    /// Writes the index snapshot atomically.
    func saveSnapshot() throws(ContactStoreError) {
        let temporary = metaDirectory + "/" + POSIX.temporaryName(for: Self.snapshotName)
        _ = unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io(temporary, "cannot write the index", errno: errno) }
        var failure: ContactStoreError?
        IndexSnapshot.encode(index) { piece in
            guard failure == nil else { return }
            do throws(ContactStoreError) { try POSIX.writeAll(fd, piece, path: temporary) } catch { failure = error }
        }
        if failure == nil && fsync(fd) != 0 { failure = .io(temporary, "cannot sync the index", errno: errno) }
        POSIX.closeFile(fd)
        if let failure {
            _ = unlink(temporary)
            throw failure
        }
        try POSIX.commit(temporary: temporary, to: snapshotPath, replacing: true)
        indexChanged = false
    }

    static func normalize(_ url: URL) -> String {
        var path = url.standardizedFileURL.path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }

    private static func lock(_ path: String, timeout: Duration, directory: String) throws(ContactStoreError) -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io(path, "cannot open the lock file", errno: errno) }
        let deadline = ContinuousClock.now + timeout
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, ContinuousClock.now < deadline else {
                POSIX.closeFile(fd)
                throw ContactStoreError(code: .locked,
                                        message: "another cardsync process has this address book open; try again when it has finished",
                                        path: directory)
            }
            usleep(20_000)
        }
        return fd
    }

    /// A torn or damaged last line (a write cut short by a crash) is moved to
    /// `journal.jsonl.corrupt` and cut from the journal, which stays usable.
    private static func setAsideTornTail(_ path: String) throws(ContactStoreError) -> String? {
        guard let last = try JournalFile.lastLine(path) else { return nil }
        var problem: String?
        if !last.terminated {
            problem = "it is incomplete (no line end)"
        } else if !last.bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) {
            do {
                _ = try JournalLine.decode(last.bytes, includingCard: false)
            } catch {
                if error.isNewerFormat { throw ContactStoreError(code: .unsupportedJournal, message: error.reason, path: path) }
                problem = error.reason
            }
        }
        guard let problem else { return nil }
        let corruptPath = path + ".corrupt"
        let fd = open(corruptPath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io(corruptPath, "cannot set the damaged journal line aside", errno: errno) }
        var saved = last.bytes
        saved.append(0x0A)
        do {
            try POSIX.writeAll(fd, saved, path: corruptPath)
            fsync(fd)
            POSIX.closeFile(fd)
        } catch {
            POSIX.closeFile(fd)
            throw error
        }
        guard truncate(path, off_t(last.offset)) == 0 else { throw .io(path, "cannot cut the damaged last line", errno: errno) }
        try POSIX.sync(path)
        return "\(path): the last journal line (byte \(last.offset)) was damaged — \(problem) — probably by an interrupted write; it was moved to \(corruptPath) and the journal continues without it"
    }

    /// The index from the snapshot plus the journal lines after it, or rebuilt from the whole
    /// journal when the snapshot is missing, damaged or stale.
    static func loadIndex(journalPath: String, snapshotPath: String, repairHint: String) throws(ContactStoreError) -> (BookIndex, rebuilt: Bool) {
        if let bytes = try? POSIX.readFile(snapshotPath).bytes, var index = IndexSnapshot.decode(bytes),
           snapshotMatches(index, journalPath: journalPath) {
            var lines = index.journalLines
            var end = index.journalSize
            var applied = 0
            try JournalFile.read(journalPath, from: index.journalSize, firstLineNumber: index.journalLines + 1,
                                 previousSequence: index.lastSequence, repairHint: repairHint) { line throws(ContactStoreError) in
                index.apply(line.event, offset: line.offset)
                lines = line.number
                applied += 1
                end = line.offset
            }
            if applied > 0 {
                index.journalLines = lines
                index.journalSize = (POSIX.stamp(journalPath)?.size ?? end)
            }
            return (index, applied > 0)
        }
        var index = BookIndex()
        var lines = 0
        try JournalFile.read(journalPath, repairHint: repairHint) { line throws(ContactStoreError) in
            index.apply(line.event, offset: line.offset)
            lines = line.number
        }
        index.journalLines = lines
        index.journalSize = POSIX.stamp(journalPath)?.size ?? 0
        return (index, true)
    }

    private static func snapshotMatches(_ index: BookIndex, journalPath: String) -> Bool {
        guard let size = POSIX.stamp(journalPath)?.size, size >= index.journalSize else { return false }
        if index.journalSize == 0 { return index.lastSequence == 0 }
        guard let last = try? JournalFile.lastLine(journalPath, endingAt: index.journalSize), last.terminated,
              let event = try? JournalLine.decode(last.bytes, includingCard: false)
        else { return false }
        return event.sequence == index.lastSequence
    }

    /// Removes temporary files left by an interrupted write (the lock guarantees no one is writing them).
    private static func removeTemporaryFiles(in directory: String) -> [String] {
        guard let listing = try? POSIX.listDirectory(directory) else { return [] }
        var removed = 0
        for name in listing.names where name.hasPrefix(".") && name.hasSuffix(POSIX.temporarySuffix) {
            if unlink(directory + "/" + name) == 0 { removed += 1 }
        }
        return removed == 0 ? [] : ["removed \(removed) temporary file\(removed == 1 ? "" : "s") left by an interrupted write"]
    }

    // MARK: - Shared helpers

    /// Appends events, applies them to the index, and makes them durable.
    @discardableResult
    func record(_ events: [JournalEvent], synchronize: Bool = true) async throws(ContactStoreError) -> [JournalEvent] {
        guard !events.isEmpty else { return [] }
        let written = try await journal.append(events)
        for (event, offset) in written { index.apply(event, offset: offset) }
        index.journalSize = await journal.size
        index.journalLines = await journal.lineCount
        indexChanged = true
        if synchronize { try await journal.synchronize() }
        return written.map(\.event)
    }

    /// The card bytes stored in the journal for `hash`.
    func storedCard(_ hash: ContentHash) throws(ContactStoreError) -> [UInt8]? {
        guard let offset = index.cardOffsets[hash] else { return nil }
        return try readEvent(at: offset).card
    }

    /// The full event (card text included) of the journal line at `offset`.
    func readEvent(at offset: Int64) throws(ContactStoreError) -> JournalEvent {
        let path = journalPath
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(path, "cannot open the journal", errno: errno) }
        defer { POSIX.closeFile(fd) }
        var line: [UInt8] = []
        var position = offset
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(position)) }
            guard count > 0 else { break }
            if let newline = chunk[0..<count].firstIndex(of: 0x0A) {
                line.append(contentsOf: chunk[0..<newline])
                break
            }
            line.append(contentsOf: chunk[0..<count])
            position += Int64(count)
        }
        do {
            return try JournalLine.decode(line, includingCard: true)
        } catch {
            throw ContactStoreError(code: .journalDamaged, message: "the journal line at byte \(offset) is damaged (\(error.reason)); run `\(repairHint)`",
                                    path: path)
        }
    }

    /// A fresh file name for a contact: `uid.vcf` when safe and free, otherwise a new UUID.
    func freshFileName(for uid: String, taken: Set<String> = []) -> String {
        if let name = SafeFileName.name(forUID: uid), index.uidsByFile[name] == nil, !taken.contains(name),
           !POSIX.exists(directory + "/" + name) {
            return name
        }
        while true {
            let name = UUID().uuidString.lowercased() + ".vcf"
            if index.uidsByFile[name] == nil, !taken.contains(name), !POSIX.exists(directory + "/" + name) { return name }
        }
    }

    /// Records the stamp of a file cardsync itself just wrote.
    func stampWrittenFile(_ name: String) {
        if let stamp = POSIX.stamp(directory + "/" + name) { index.stamps[name] = stamp }
    }

    // MARK: - Simple queries

    /// The number of live contacts.
    public var contactCount: Int { index.liveCount }

    /// The record of the contact with `uid` (deleted contacts included).
    public func record(for uid: String) -> ContactRecord? { index.records[uid] }

    /// The records of the live contacts, sorted by file name.
    public func liveRecords() -> [ContactRecord] {
        index.liveRecords.sorted { ($0.file, $0.uid) < ($1.file, $1.uid) }
    }

    /// The last sequence number in the journal.
    public var lastSequence: Int { index.lastSequence }
}
