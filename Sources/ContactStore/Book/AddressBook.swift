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
        /// Called once, as soon as opening has read the index and while the folder is still
        /// being walked, with what the book knows by then (``IndexOpening``): work that needs it
        /// but not the folder — a sync's first requests to its server — can go on from there
        /// instead of waiting for the scan. Not called when opening fails before.
        public var indexOpened: (@Sendable (IndexOpening) -> Void)?
        /// The most journal lines (and file entries) an index delta may cover before the base
        /// snapshot is rewritten; `nil`: ``IndexDelta/limit(liveCount:)``. For tests.
        var indexDeltaLimit: Int?
        /// Leave the index in memory when the book is closed instead of freeing it (for a
        /// command-line process that exits right after; one book's index at a time is kept).
        public var keepsIndexUntilExit = false
        /// Save the index snapshot on one core, a part at a time: the least memory at the save
        /// (which comes when the index is largest, at the end of an import or a first pull).
        /// Otherwise its last two parts are made at once, one on each core: about 40% less
        /// time, for about 5 MB more at its peak at 100,000 contacts (the other core's
        /// allocations do not reuse what the summary, made just before, freed).
        public var savesIndexOnOneCore = false

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

    /// What a book knows once opening has read its index, before its folder is scanned
    /// (``OpenOptions/indexOpened``).
    public struct IndexOpening: Sendable {
        /// The last checkpoint recorded with each remote, by remote key (``AddressBook/checkpoint(remote:)``).
        public let checkpoints: [String: String]
    }

    /// The book's folder (absolute, without a trailing slash).
    public nonisolated let directory: String
    /// The `.cardsync` folder inside it.
    nonisolated let metaDirectory: String
    /// The clock that dates the book's journal events (``OpenOptions/clock``).
    public nonisolated let clock: WallClock
    /// The files a pull replaced or removed, freed on a helper thread (``ReleasedFiles``).
    nonisolated let releasedFiles: ReleasedFiles
    let journal: Journal
    /// The whole index once it is loaded (``isIndexLoaded``); empty while the book runs on
    /// ``summary`` alone. Not an optional: reading a large struct out of one (`== nil`, `!`)
    /// copied it, retaining every table, on each of the many accesses a sync makes per contact.
    private var loadedIndex = BookIndex()
    /// Whether ``loadedIndex`` holds the whole index.
    private(set) var isIndexLoaded = false
    /// The snapshot whose body is decoded when the whole index is first needed, with the
    /// checkpoint events appended to the journal since it was saved.
    private var deferredIndex: DeferredIndex?
    /// The snapshot on disk that an index delta can be saved against (its summary and that
    /// summary's checksum); `nil` when there is none, or it was replaced in this run.
    private var snapshotBase: SnapshotBase?
    /// See ``OpenOptions/indexDeltaLimit``.
    private let indexDeltaLimit: Int?
    /// See ``OpenOptions/keepsIndexUntilExit``.
    private let keepsIndexUntilExit: Bool
    /// See ``OpenOptions/savesIndexOnOneCore``.
    private let savesIndexOnOneCore: Bool
    /// Whether the whole index was loaded from ``summary`` (which then stays as it was when
    /// loaded): saving brings that summary up to date from what the index marks as touched
    /// instead of summarizing every record and file again.
    private(set) var summaryTracksIndex = false
    /// The files whose entries differed from the snapshot's when the index was loaded (those of
    /// the delta it was opened with).
    private var filesChangedBeforeLoading: Set<String> = []
    /// What the book knows without decoding every contact: enough for a run that finds nothing
    /// changed. Current only while ``isIndexLoaded`` is false.
    var summary: IndexSummary
    /// Every contact's record, the files, hashes and sync state: loaded from the snapshot the
    /// first time it is used (opening reads only the ``summary``).
    var index: BookIndex {
        _read {
            loadIndexIfNeeded()
            yield loadedIndex
        }
        _modify {
            loadIndexIfNeeded()
            yield &loadedIndex
        }
    }
    /// The folder's listing made when opening, for the opening scan (one directory walk a run),
    /// with a stat of each contact file when the book was opened to scan.
    var openingListing: FolderListing?
    let logger: Logger
    private let lockDescriptor: Int32
    var indexChanged: Bool
    private var isClosed = false
    /// What opening found and did before the first call: a torn journal line set aside, stale
    /// temporary files removed, the index rebuilt. For people; empty when nothing happened.
    public internal(set) var openingNotes: [String]
    /// What the scan made when opening found, or `nil` when opened without scanning.
    public internal(set) var openingScan: ScanReport?

    static let journalName = "journal.jsonl"
    static let snapshotName = "index.bin"
    /// The second part of a snapshot being saved (``IndexSnapshot/Part``), made beside it under a
    /// temporary name and appended to it.
    static let snapshotPartName = "index.bin.part"
    static let deltaName = "index.delta"
    static let settingsName = "settings.json"
    static let lockName = "lock"

    var journalPath: String { metaDirectory + "/" + Self.journalName }
    nonisolated var snapshotPath: String { metaDirectory + "/" + Self.snapshotName }
    nonisolated var deltaPath: String { metaDirectory + "/" + Self.deltaName }

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
            try await book.finishInterruptedApply()
            try await book.finishInterruptedImport()
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
        self.releasedFiles = ReleasedFiles(metaDirectory: meta)
        self.clock = options.clock
        self.logger = logger
        self.indexDeltaLimit = options.indexDeltaLimit
        self.keepsIndexUntilExit = options.keepsIndexUntilExit
        self.savesIndexOnOneCore = options.savesIndexOnOneCore
        self.lockDescriptor = try Self.lock(meta + "/" + Self.lockName, timeout: options.lockTimeout, directory: directory)
        var notes: [String] = []
        let journalPath = meta + "/" + Self.journalName
        // The folder is walked (and, to scan, each contact file stamped) on other cores while
        // the index is opened here: the two are independent, and each is a large part of a run
        // that finds nothing to do.
        async let listed = try? FolderListing.read(directory, stamping: options.scans)
        do {
            if let note = try Self.setAsideTornTail(journalPath) { notes.append(note) }
            let opened = try Self.openIndex(journalPath: journalPath, snapshotPath: meta + "/" + Self.snapshotName,
                                            deltaPath: meta + "/" + Self.deltaName, repairHint: "cardsync check \(directory) --repair")
            let summary: IndexSummary
            switch opened {
            case .whole(let index, let rebuilt, let behind, let base):
                self.snapshotBase = base
                if rebuilt && index.lastSequence > 0 { notes.append("the index was rebuilt from the journal (\(index.journalLines) lines)") }
                self.loadedIndex = index
                self.isIndexLoaded = true
                self.indexChanged = rebuilt || behind
                var position = IndexSummary()
                position.journalSize = index.journalSize
                position.journalLines = index.journalLines
                position.lastSequence = index.lastSequence
                summary = position
            case .deferred(let deferred, let current):
                self.snapshotBase = SnapshotBase(summary: deferred.saved, checksum: deferred.summaryChecksum)
                self.deferredIndex = deferred
                self.indexChanged = false
                summary = current
            }
            self.summary = summary
            let clock = options.clock
            self.journal = try Journal(path: journalPath, lastSequence: summary.lastSequence, lineCount: summary.journalLines,
                                       now: { clock.now() })
            if let indexOpened = options.indexOpened {
                let checkpoints = if case .whole(let index, _, _, _) = opened { index.checkpoints } else { summary.checkpoints }
                indexOpened(IndexOpening(checkpoints: checkpoints))
            }
            let listing = await listed
            notes.append(contentsOf: Self.removeTemporaryFiles(listing?.names ?? [], in: directory))
            // What a save of the index snapshot killed halfway left (derived data, tens of
            // megabytes in a large book): removed now rather than at the next whole save.
            for name in [Self.snapshotName, Self.snapshotPartName] { _ = unlink(meta + "/" + POSIX.temporaryName(for: name)) }
            // Old files a killed pull had not freed yet (nothing the book needs).
            releasedFiles.freeLeftovers()
            self.openingListing = options.scans ? listing : nil
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
            releasedFiles.waitUntilFreed()
            flock(lockDescriptor, LOCK_UN)
            POSIX.closeFile(lockDescriptor)
        }
        try await journal.close()
        if indexChanged { try saveIndex() }
        if keepsIndexUntilExit {
            ExitParking.park(isIndexLoaded ? loadedIndex : nil, summary)
            loadedIndex = BookIndex()
            isIndexLoaded = false
            summary = IndexSummary()
            summaryTracksIndex = false
        }
    }

    /// Saves the index: as a delta against the snapshot on disk while the journal lines and
    /// file entries since that snapshot stay within the limit (a run that changed a few
    /// contacts writes a few kilobytes), otherwise as a whole new snapshot.
    func saveIndex() throws(ContactStoreError) {
        if let base = snapshotBase {
            let limit = indexDeltaLimit ?? IndexDelta.limit(liveCount: index.liveCount)
            if index.journalLines - base.summary.journalLines <= limit {
                let current = (summaryTracksIndex ? summary.updated(with: index) : nil) ?? IndexSummary(of: index)
                let candidates = summaryTracksIndex ? filesChangedBeforeLoading.union(index.touched.files) : nil
                let delta = IndexDelta(from: base.summary, baseChecksum: base.checksum, to: current, candidates: candidates)
                // Debug builds (the tests) check the shortcuts against the whole computation.
                assert(current == IndexSummary(of: index), "the summary brought up to date differs from the index's")
                assert(delta == IndexDelta(from: base.summary, baseChecksum: base.checksum, to: IndexSummary(of: index)),
                       "the delta from the changed files differs from the whole comparison")
                if delta.fileCount <= limit {
                    var delta = delta
                    delta.overlay = IndexOverlay.encode(index)
                    // Not synced: the delta is a cache of what the journal (synced before it)
                    // says. Should a power loss leave the old delta, none, or a damaged one, its
                    // checksum or journal position tells, and the opening replays the journal
                    // lines after the snapshot instead. Syncing it cost a sync that pulled 100
                    // contacts 1–6 ms (two syncs, waiting behind the freeing of the old files).
                    try POSIX.writeAtomically(IndexSnapshot.encodeDelta(delta), directory: metaDirectory, name: Self.deltaName,
                                              replacing: true, durable: false)
                    indexChanged = false
                    return
                }
            }
        }
        try saveSnapshot()
    }

    /// Replaces the whole index with one rebuilt from the journal: the summary the book opened
    /// with no longer follows it, and the snapshot on disk is no base to save a delta against.
    func replaceIndex(with rebuilt: BookIndex) {
        loadIndexIfNeeded()
        loadedIndex = rebuilt
        summaryTracksIndex = false
        snapshotBase = nil
        indexChanged = true
    }

    /// Writes the whole index snapshot atomically and removes the delta (which named the old one).
    func saveSnapshot() throws(ContactStoreError) {
        let temporary = metaDirectory + "/" + POSIX.temporaryName(for: Self.snapshotName)
        // The snapshot's last part (``IndexSnapshot/Part``) is made beside it while the one before
        // is made on the other core, then appended to it.
        let secondPart = metaDirectory + "/" + POSIX.temporaryName(for: Self.snapshotPartName)
        _ = unlink(temporary)
        _ = unlink(secondPart)
        // The summary the book opened with, brought up to date from what changed: not made again
        // from every contact (checked against that in debug builds).
        let current = summaryTracksIndex ? summary.updated(with: index) : nil
        assert(current == nil || current == IndexSummary(of: index), "the summary brought up to date differs from the index's")
        var failure: ContactStoreError?
        if savesIndexOnOneCore {
            failure = Self.writeSnapshotParts(IndexSnapshot.Part.allCases, of: index, summary: current, to: temporary, creating: true)
        } else {
            let index = self.index
            // The summary first, alone (its memory is let go before the tables are made); then the
            // last two parts at once, the last beside the snapshot, appended to it after.
            failure = Self.writeSnapshotParts([.summary], of: index, summary: current, to: temporary, creating: true)
            if failure == nil {
                let failures = Parallel.map([([IndexSnapshot.Part.contacts], temporary, false), ([.rest], secondPart, true)],
                                            minimumPerWorker: 1) { parts, path, creating in
                    Self.writeSnapshotParts(parts, of: index, summary: current, to: path, creating: creating)
                }
                failure = failures.compactMap { $0 }.first
            }
            if failure == nil {
                do throws(ContactStoreError) { try POSIX.append(secondPart, to: temporary) } catch { failure = error }
            }
            _ = unlink(secondPart)
        }
        if failure == nil {
            do throws(ContactStoreError) { try POSIX.sync(temporary) } catch { failure = error }
        }
        if let failure {
            _ = unlink(temporary)
            throw failure
        }
        try POSIX.commit(temporary: temporary, to: snapshotPath, replacing: true)
        // A delta left behind names the old snapshot's checksum and is ignored; removed all the same.
        _ = unlink(deltaPath)
        snapshotBase = nil
        summaryTracksIndex = false
        indexChanged = false
    }

    /// Writes `parts` of the snapshot of `index`, in order, to `path` (a new file when
    /// `creating`, else after what it holds), unsynced; the error, if any.
    private static func writeSnapshotParts(_ parts: [IndexSnapshot.Part], of index: BookIndex, summary: IndexSummary?,
                                           to path: String, creating: Bool) -> ContactStoreError? {
        let fd = open(path, creating ? O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC : O_WRONLY | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return .io(path, "cannot write the index", errno: errno) }
        defer { POSIX.closeFile(fd) }
        var failure: ContactStoreError?
        for part in parts {
            IndexSnapshot.encode(index, summary: summary, part: part) { piece in
                guard failure == nil else { return }
                do throws(ContactStoreError) { try POSIX.writeAll(fd, piece, path: path) } catch { failure = error }
            }
        }
        return failure
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

    /// How opening found the index: whole (rebuilt from the journal, or a snapshot with content
    /// events after it), or deferred (a current snapshot, perhaps with checkpoint events after it).
    enum OpenedIndex {
        /// `behind`: the snapshot was current but many checkpoint lines follow it; saved again.
        /// `base`: the snapshot it was decoded from, when it was.
        case whole(BookIndex, rebuilt: Bool, behind: Bool = false, base: SnapshotBase? = nil)
        case deferred(DeferredIndex, summary: IndexSummary)
    }

    /// A snapshot on disk: its summary and the summary's checksum.
    struct SnapshotBase: Sendable {
        var summary: IndexSummary
        var checksum: UInt64
    }

    /// The most checkpoint lines after a snapshot that opening replays onto its summary; with
    /// more, the whole index is loaded and saved again.
    static let deferredTailLimit = 4096

    /// Opens the index: when the snapshot (with its delta, when it has a valid one) is current
    /// and only checkpoint events follow it, its summary alone (the body is decoded on first
    /// use); otherwise as ``loadIndex``.
    static func openIndex(journalPath: String, snapshotPath: String, deltaPath: String,
                          repairHint: String) throws(ContactStoreError) -> OpenedIndex {
        // The summary only: the body is read when the whole index is needed.
        if let start = POSIX.readBytes(snapshotPath, offset: 0, count: 16), let length = IndexSnapshot.summaryLength(start),
           let head = POSIX.readBytes(snapshotPath, offset: 0, count: length), let (saved, _) = IndexSnapshot.decodeSummary(head),
           let (summaryChecksum, _) = IndexSnapshot.summaryChecksum(head),
           snapshotMatches(journalSize: saved.journalSize, lastSequence: saved.lastSequence, journalPath: journalPath) {
            // The delta, when it is whole, names this snapshot and its journal position holds:
            // the summary as it stands there. Otherwise the lines after the snapshot are replayed.
            var covered = saved
            var hasDelta = false
            var deltaFiles: Set<String> = []
            var overlay: [UInt8]?
            if let bytes = try? POSIX.readFile(deltaPath).bytes, let delta = IndexSnapshot.decodeDelta(bytes),
               delta.baseChecksum == summaryChecksum, delta.summary.journalSize >= saved.journalSize,
               delta.summary.journalLines >= saved.journalLines,
               snapshotMatches(journalSize: delta.summary.journalSize, lastSequence: delta.summary.lastSequence, journalPath: journalPath) {
                covered = delta.applied(to: saved)
                hasDelta = true
                deltaFiles = delta.fileNames
                overlay = delta.overlay
            }
            var tail: [(event: JournalEvent, offset: Int64)] = []
            var onlyCheckpoints = true
            var lines = covered.journalLines
            try JournalFile.read(journalPath, from: covered.journalSize, firstLineNumber: covered.journalLines + 1,
                                 previousSequence: covered.lastSequence, repairHint: repairHint) { line throws(ContactStoreError) in
                if line.event.operation != .checkpoint { onlyCheckpoints = false }
                tail.append((line.event, line.offset))
                lines = line.number
            }
            let deferred = DeferredIndex(path: snapshotPath, journalPath: journalPath, saved: saved, summaryChecksum: summaryChecksum,
                                         covered: covered, hasDelta: hasDelta, deltaFiles: deltaFiles, overlay: overlay, tail: tail)
            var summary = covered
            for (event, _) in tail { summary.applyCheckpoint(event) }
            summary.journalLines = lines
            if !tail.isEmpty { summary.journalSize = POSIX.stamp(journalPath)?.size ?? covered.journalSize }
            if onlyCheckpoints && tail.count <= deferredTailLimit { return .deferred(deferred, summary: summary) }
            if let index = deferred.decode(current: summary) {
                let base = SnapshotBase(summary: saved, checksum: summaryChecksum)
                return onlyCheckpoints ? .whole(index, rebuilt: false, behind: true, base: base) : .whole(index, rebuilt: true, base: base)
            }
        }
        let (index, rebuilt) = try loadIndex(journalPath: journalPath, snapshotPath: "", repairHint: repairHint)
        return .whole(index, rebuilt: rebuilt)
    }

    /// Decodes the whole index the first time it is needed (the snapshot was verified when the
    /// book was opened; should its body still not decode, the index is rebuilt from the journal).
    private func loadIndexIfNeeded() {
        guard !isIndexLoaded else { return }
        if let deferred = deferredIndex, let index = deferred.decode(current: summary) {
            loadedIndex = index
            isIndexLoaded = true
            summaryTracksIndex = true
            filesChangedBeforeLoading = deferred.deltaFiles
        } else {
            do {
                var (index, _) = try Self.loadIndex(journalPath: journalPath, snapshotPath: "", repairHint: repairHint)
                index.lastScan = summary.lastScan
                loadedIndex = index
                isIndexLoaded = true
                indexChanged = true
                snapshotBase = nil
            } catch {
                fatalError("\(snapshotPath) could not be decoded and the journal cannot be read (\(error.message)); run `\(repairHint)`")
            }
        }
        deferredIndex = nil
    }

    /// The index from the snapshot plus the journal lines after it, or rebuilt from the whole
    /// journal when the snapshot is missing, damaged or stale.
    static func loadIndex(journalPath: String, snapshotPath: String, repairHint: String) throws(ContactStoreError) -> (BookIndex, rebuilt: Bool) {
        if !snapshotPath.isEmpty, let bytes = try? POSIX.readFile(snapshotPath).bytes, var index = IndexSnapshot.decode(bytes),
           snapshotMatches(journalSize: index.journalSize, lastSequence: index.lastSequence, journalPath: journalPath) {
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
            index.touched = BookIndex.Touched()
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
        index.touched = BookIndex.Touched()
        return (index, true)
    }

    private static func snapshotMatches(journalSize: Int64, lastSequence: Int, journalPath: String) -> Bool {
        guard let size = POSIX.stamp(journalPath)?.size, size >= journalSize else { return false }
        if journalSize == 0 { return lastSequence == 0 }
        guard let last = try? JournalFile.lastLine(journalPath, endingAt: journalSize), last.terminated,
              let event = try? JournalLine.decode(last.bytes, includingCard: false)
        else { return false }
        return event.sequence == lastSequence
    }

    /// Removes temporary files left by an interrupted write (the lock guarantees no one is writing them).
    private static func removeTemporaryFiles(_ names: [String], in directory: String) -> [String] {
        var removed = 0
        for name in names where name.hasPrefix(".") && name.hasSuffix(POSIX.temporarySuffix) {
            if unlink(directory + "/" + name) == 0 { removed += 1 }
        }
        return removed == 0 ? [] : ["removed \(removed) temporary file\(removed == 1 ? "" : "s") left by an interrupted write"]
    }

    // MARK: - Shared helpers

    /// Appends events, applies them to the index, and makes them durable.
    @discardableResult
    func record(_ events: consuming [JournalEvent], synchronize: Bool = true) async throws(ContactStoreError) -> [JournalEvent] {
        guard !events.isEmpty else { return [] }
        if !isIndexLoaded, events.allSatisfy({ $0.operation == .checkpoint }) {
            // Checkpoints only: the summary and the deferred snapshot's tail take them; the
            // snapshot is not rewritten (the next opening replays these lines).
            let written = try await journal.append(events)
            for (event, offset) in zip(written.events, written.offsets) {
                summary.applyCheckpoint(event)
                deferredIndex?.tail.append((event, offset))
            }
            summary.journalSize = await journal.size
            summary.journalLines = await journal.lineCount
            if synchronize { try await journal.synchronize() }
            return written.events
        }
        let written = try await journal.append(consume events)
        for position in written.events.indices { index.apply(written.events[position], offset: written.offsets[position]) }
        index.journalSize = await journal.size
        index.journalLines = await journal.lineCount
        indexChanged = true
        if synchronize { try await journal.synchronize() }
        return written.events
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
    /// - Parameter checkingFolder: whether a name must also be missing from the folder; a caller
    ///   that checks a whole batch of names at once (``namesFreeInFolder(_:taken:)``) skips the
    ///   `stat` per name here.
    func freshFileName(for uid: String, taken: Set<String> = [], checkingFolder: Bool = true) -> String {
        func isFree(_ name: String) -> Bool {
            index.uidsByFile[name] == nil && !taken.contains(name) && !(checkingFolder && POSIX.exists(directory + "/" + name))
        }
        if let name = SafeFileName.name(forUID: uid), isFree(name) { return name }
        while true {
            let name = UUID().uuidString.lowercased() + ".vcf"
            if isFree(name) { return name }
        }
    }

    /// The names a batch of new files is to be written under: each of `files` (a name and the
    /// UID of its contact) as it is when no file of that name is in the folder (all are looked up
    /// at once, on every core), otherwise a fresh name, which is added to `taken`.
    func namesFreeInFolder(_ files: [(name: String, uid: String)], taken: inout Set<String>) -> [String] {
        let inFolder = Parallel.map(files.map { directory + "/" + $0.name }, minimumPerWorker: 256) { POSIX.exists($0) }
        return zip(files, inFolder).map { file, isTaken in
            guard isTaken else { return file.name }
            let fresh = freshFileName(for: file.uid, taken: taken, checkingFolder: true)
            taken.insert(fresh)
            return fresh
        }
    }

    /// Records the stamp of a file cardsync itself just wrote.
    func stampWrittenFile(_ name: String) {
        if let stamp = POSIX.stamp(directory + "/" + name) { index.setStamp(stamp, for: name) }
    }

    /// Records the stamps of files cardsync itself just wrote, `names`: those in `known` (some of
    /// `names`, stamped from the open file as it was created) as they are, the others taken now,
    /// on every core, as ``stampWrittenFile(_:)`` takes them.
    func stampWrittenFiles(_ names: [String], known: [String: FileStamp] = [:]) {
        let folder = directory
        let unknown = known.isEmpty ? names : names.filter { known[$0] == nil }
        let stamps = Parallel.map(unknown, minimumPerWorker: 64) { POSIX.stamp(folder + "/" + $0) }
        for (name, stamp) in zip(unknown, stamps) {
            if let stamp { index.setStamp(stamp, for: name) }
        }
        for (name, stamp) in known { index.setStamp(stamp, for: name) }
    }

    // MARK: - Simple queries

    /// The number of live contacts.
    public var contactCount: Int { isIndexLoaded ? loadedIndex.liveCount : summary.liveCount }

    /// The record of the contact with `uid` (deleted contacts included).
    public func record(for uid: String) -> ContactRecord? { index.records[uid] }

    /// The records of the live contacts, sorted by file name.
    public func liveRecords() -> [ContactRecord] {
        index.liveRecords.sorted { ($0.file, $0.uid) < ($1.file, $1.uid) }
    }

    /// The last sequence number in the journal.
    public var lastSequence: Int { isIndexLoaded ? loadedIndex.lastSequence : summary.lastSequence }

    /// Where the journal lines the book has read and written end.
    var journalEnd: Int64 { isIndexLoaded ? loadedIndex.journalSize : summary.journalSize }
}
