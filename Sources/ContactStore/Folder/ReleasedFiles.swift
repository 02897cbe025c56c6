import Foundation

/// Frees the files a pull replaces or removes in the folder on a thread of their own, so that
/// the sync goes on while the file system lets go of them.
///
/// Renaming a new version over a file, or removing one, frees the old file's blocks inside that
/// call; on a file system mounted with `discard` each free waits for the device (about 0.1 ms a
/// file on this project's machine, 100 ms for a pull of a thousand changed contacts). So before
/// a pull renames over a file it links the file into `.cardsync/released/` (``keep(_:)``), and
/// a removed file is moved there (``release(_:)``): the folder changes exactly as before, and
/// the old file, still linked there, is not freed. ``freeInBackground()`` then removes the links
/// on a helper thread while the journal is written and the checkpoint saved; ``waitUntilFreed()``
/// waits for it when the book closes.
///
/// The links hold nothing the book needs: the journal keeps every version. Links a killed run
/// left are removed when the book is next opened (``freeLeftovers()``). Where a link or move
/// cannot be made (a file system without hard links, a folder on another device), the file is
/// replaced or removed in place, as it always was.
final class ReleasedFiles: @unchecked Sendable {
    /// `.cardsync/released`.
    let folder: String
    private let prefix = String(UUID().uuidString.prefix(8)).lowercased()
    // Everything below is guarded by `condition`.
    private let condition = NSCondition()
    private var counter = 0
    private var setAside = 0
    private var folderMade: Bool?
    private var kept: [String] = []
    private var isFreeing = false
    private var pauseBeforeFreeing: Duration?

    /// The name of the folder inside `.cardsync/`.
    static let folderName = "released"

    init(metaDirectory: String) {
        folder = metaDirectory + "/" + Self.folderName
    }

    /// Links the file at `path` into the released folder, so that replacing it frees nothing;
    /// `false` (nothing done) when it is not there or cannot be linked.
    @discardableResult
    func keep(_ path: String) -> Bool {
        guard let target = nextName() else { return false }
        guard link(path, target) == 0 else { return false }
        append(target)
        return true
    }

    /// Moves the file at `path` into the released folder (the folder loses it as by `unlink`),
    /// or removes it in place when it cannot be moved: `0`, or the `errno` of the removal.
    func release(_ path: String) -> Int32 {
        if let target = nextName() {
            if rename(path, target) == 0 {
                append(target)
                return 0
            }
            if errno == ENOENT { return ENOENT }
        }
        return unlink(path) == 0 ? 0 : errno
    }

    /// Frees what was kept or released, on a helper thread; returns at once.
    func freeInBackground() {
        condition.lock()
        defer { condition.unlock() }
        guard !kept.isEmpty, !isFreeing else { return }
        isFreeing = true
        Thread.detachNewThread { [self] in freeAll() }
    }

    /// Frees, on a helper thread, the links a run that was killed left in the released folder.
    /// The folder is listed here (one read of an empty folder, the usual case); a thread is
    /// started only when something is there.
    func freeLeftovers() {
        guard let names = try? POSIX.listDirectory(folder).names, !names.isEmpty else { return }
        condition.lock()
        kept.append(contentsOf: names.map { folder + "/" + $0 })
        condition.unlock()
        freeInBackground()
    }

    /// Waits until everything kept or released so far is freed.
    func waitUntilFreed() {
        condition.lock()
        defer { condition.unlock() }
        while isFreeing { condition.wait() }
    }

    /// Makes the helper thread wait `pause` before it frees anything (tests: what waits for it).
    func pauseBeforeFreeing(_ pause: Duration) {
        condition.lock()
        pauseBeforeFreeing = pause
        condition.unlock()
    }

    private func freeAll() {
        condition.lock()
        let pause = pauseBeforeFreeing
        condition.unlock()
        if let pause { Thread.sleep(forTimeInterval: Double(pause.components.seconds) + Double(pause.components.attoseconds) / 1e18) }
        while true {
            condition.lock()
            let batch = kept
            kept = []
            if batch.isEmpty {
                isFreeing = false
                condition.broadcast()
                condition.unlock()
                return
            }
            condition.unlock()
            for path in batch { unlink(path) }
        }
    }

    /// A new name in the released folder (made when first needed); `nil` when the folder cannot be made.
    private func nextName() -> String? {
        condition.lock()
        defer { condition.unlock() }
        if folderMade == nil { folderMade = mkdir(folder, 0o700) == 0 || errno == EEXIST }
        guard folderMade == true else { return nil }
        counter += 1
        return folder + "/" + prefix + "-" + String(counter)
    }

    /// How many files were kept or released by this book (not those left by a killed run).
    var setAsideCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return setAside
    }

    private func append(_ path: String) {
        condition.lock()
        kept.append(path)
        setAside += 1
        condition.unlock()
    }
}
