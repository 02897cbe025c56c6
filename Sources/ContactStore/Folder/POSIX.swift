import JSONText
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What identifies a version of a file without reading it: size, modification and change times,
/// inode. Equal stamps mean the file is (almost certainly) unchanged; see ``FileStamp/isRacy``.
struct FileStamp: Sendable, Hashable {
    var size: Int64
    var modified: Int64
    var changed: Int64
    var inode: UInt64

    /// A stamp taken too soon after the file was modified cannot tell a later edit within the
    /// same clock tick; such a stamp is not trusted by the next scan (git's "racily clean" rule).
    /// `now` is a time before the file was read.
    ///
    /// Too soon: within 100 ms when the file system keeps times finer than a second (ext4, XFS,
    /// btrfs, tmpfs keep nanoseconds, stamped from the kernel's clock tick of at most 10 ms, so
    /// an edit after the read has a later time), within two seconds when both times are whole
    /// seconds (a file system that keeps seconds or coarser, like FAT's two).
    func isRacy(now: Int64) -> Bool {
        let keepsFineTimes = modified % 1_000_000_000 != 0 || changed % 1_000_000_000 != 0
        return now - max(modified, changed) < (keepsFineTimes ? 100_000_000 : 2_000_000_000)
    }
}

/// How ``POSIX/createNewFiles(_:in:method:name:bytes:)`` puts a new file in place.
enum NewFileMethod: Sendable, CaseIterable {
    /// Written unnamed (`O_TMPFILE`), then linked from its descriptor (`AT_EMPTY_PATH`) or, where
    /// the kernel refuses that, through `/proc/self/fd`; created under its name where the file
    /// system has no unnamed files.
    case unnamed
    /// As ``unnamed``, always linked through `/proc/self/fd`.
    case unnamedLinkedThroughProc
    /// Created under its name (`O_EXCL`) and written there.
    case named

    /// The fastest method this system offers.
    static var preferred: NewFileMethod { POSIX.canLinkUnnamedFiles ? .unnamed : .named }
}

/// What creating one new file came to.
enum NewFileOutcome: Sendable, Hashable {
    /// Created and written whole; the file's stamp as it was then.
    case created(FileStamp)
    /// Not created (or removed again): the `errno` of the failure.
    case failed(errno: Int32)

    /// `0` when the file was created, otherwise the `errno` of the failure.
    var errorNumber: Int32 {
        if case .failed(let number) = self { return number }
        return 0
    }

    /// The stamp of the file created, or `nil`.
    var stamp: FileStamp? {
        if case .created(let stamp) = self { return stamp }
        return nil
    }
}

/// Thin, throwing wrappers over the POSIX calls the store needs.
enum POSIX {
    /// `strerror` as a string.
    static func describe(_ number: Int32) -> String {
        String(cString: strerror(number))
    }

    /// Closes a file descriptor.
    static func closeFile(_ fd: Int32) {
        close(fd)
    }

    /// Nanoseconds since 1970, from the real-time clock.
    static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    /// The stamp of a regular file (following symbolic links), or `nil` when it is missing or not a regular file.
    static func stamp(_ path: String) -> FileStamp? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return stamp(of: info)
    }

    /// The stamp of the regular file `name` in the folder open as `directory` (no path walk), or
    /// `nil` when it is missing or not a regular file.
    static func stamp(in directory: Int32, name: String) -> FileStamp? {
        var info = stat()
        // withCString hands over a native string's own bytes; passing the String converts it
        // into a new array on every call (a few percent of a scan of 100k files).
        guard name.withCString({ fstatat(directory, $0, &info, 0) }) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return stamp(of: info)
    }

    /// Up to `count` bytes of a file from `offset` (fewer at its end), or `nil` when it cannot be read.
    static func readBytes(_ path: String, offset: Int, count: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // Read straight into the array, neither zeroed first nor copied after (the summary of a
        // large book's snapshot is most of a megabyte, read by every run).
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: max(count, 0)) { buffer, done in
            done = 0
            // `count`, not `buffer.count`: the storage may be larger than asked for.
            while done < count {
                let got = pread(fd, buffer.baseAddress! + done, count - done, off_t(offset + done))
                if got < 0 && errno == EINTR { continue }
                guard got >= 0 else {
                    failed = true
                    return
                }
                if got == 0 { break }
                done += got
            }
        }
        return failed ? nil : bytes
    }

    static func stamp(of info: stat) -> FileStamp {
        #if canImport(Darwin)
        let modified = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
        let changed = Int64(info.st_ctimespec.tv_sec) * 1_000_000_000 + Int64(info.st_ctimespec.tv_nsec)
        #else
        let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        let changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
        #endif
        return FileStamp(size: Int64(info.st_size), modified: modified, changed: changed, inode: UInt64(info.st_ino))
    }

    /// Whether something exists at `path`.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Whether `path` is a directory.
    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The whole content of a file, and its stamp taken from the open descriptor.
    ///
    /// - Parameter maximumBytes: a larger file (also one that grows past it while read) is not
    ///   read: `invalidInput` is thrown before its bytes are held in memory.
    static func readFile(_ path: String, maximumBytes: Int = .max) throws(ContactStoreError) -> (bytes: [UInt8], stamp: FileStamp) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let number = errno
            throw ContactStoreError(code: number == ENOENT ? .missingInput : .io,
                                    message: "cannot open: \(describe(number))", path: path)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io(path, "cannot stat", errno: errno) }
        if Int(info.st_size) > maximumBytes { throw tooLarge(path, maximumBytes) }
        // Read straight into an array of the file's size and one byte more: one `read` fills it
        // and the next one finds the end. (A file that grew since the `fstat` is read on in chunks.)
        let expected = max(Int(info.st_size), 0)
        var failure: Int32 = 0
        var bytes = [UInt8](unsafeUninitializedCapacity: expected + 1) { buffer, initialized in
            initialized = 0
            while initialized < buffer.count {
                let count = read(fd, buffer.baseAddress! + initialized, buffer.count - initialized)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if count == 0 { break }
                initialized += count
            }
        }
        if failure != 0 { throw .io(path, "cannot read", errno: failure) }
        if bytes.count > expected {
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 {
                    if errno == EINTR { continue }
                    throw .io(path, "cannot read", errno: errno)
                }
                if count == 0 { break }
                if bytes.count + count > maximumBytes { throw tooLarge(path, maximumBytes) }
                bytes.append(contentsOf: chunk[0..<count])
            }
        }
        if bytes.count > maximumBytes { throw tooLarge(path, maximumBytes) }
        return (bytes, stamp(of: info))
    }

    private static func tooLarge(_ path: String, _ limit: Int) -> ContactStoreError {
        ContactStoreError(code: .invalidInput, message: "is larger than \(limit) bytes, the limit for a contact file", path: path)
    }

    /// Writes all of `bytes` to `fd`.
    static func writeAll(_ fd: Int32, _ bytes: some Collection<UInt8>, path: String) throws(ContactStoreError) {
        let array = Array(bytes)
        var offset = 0
        while offset < array.count {
            let written = array.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw .io(path, "cannot write", errno: errno)
            }
            offset += written
        }
    }

    /// Appends the whole of the file `source` to the file `destination`, without syncing: in the
    /// kernel (`sendfile`) where it allows it, else read and written a megabyte at a time.
    static func append(_ source: String, to destination: String) throws(ContactStoreError) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw .io(source, "cannot read", errno: errno) }
        defer { closeFile(input) }
        // Not O_APPEND, which sendfile refuses: written from the end.
        let output = open(destination, O_WRONLY | O_CLOEXEC)
        guard output >= 0, lseek(output, 0, SEEK_END) >= 0 else { throw .io(destination, "cannot write", errno: errno) }
        defer { closeFile(output) }
        #if os(Linux)
        while true {
            let copied = sendfile(output, input, nil, 1 << 30)
            if copied > 0 { continue }
            if copied == 0 { return }
            if errno == EINTR { continue }
            // Not allowed here (another kernel or file system): copied below from where it
            // stopped (the input's offset moved with what was copied).
            guard [ENOSYS, EINVAL, EOPNOTSUPP].contains(errno) else { throw .io(destination, "cannot write", errno: errno) }
            break
        }
        #endif
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .io(source, "cannot read", errno: errno)
            }
            if count == 0 { return }
            try writeAll(output, buffer[..<count], path: destination)
        }
    }

    /// Creates `path` (which must not exist) with `bytes` and `mode`, without syncing.
    static func createFile(_ path: String, _ bytes: some Collection<UInt8>, mode: mode_t) throws(ContactStoreError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .io(path, "cannot create", errno: errno) }
        defer { close(fd) }
        try writeAll(fd, bytes, path: path)
    }

    /// Creates the temporary file `path` with `bytes` and `mode`, without syncing; a file left
    /// there by an interrupted write is removed first (only when creating finds one, so the usual
    /// case costs one `open`).
    static func createTemporaryFile(_ path: String, _ bytes: some Collection<UInt8>, mode: mode_t) throws(ContactStoreError) {
        var fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        if fd < 0 && errno == EEXIST {
            unlink(path)
            fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        }
        guard fd >= 0 else { throw .io(path, "cannot create", errno: errno) }
        defer { close(fd) }
        try writeAll(fd, bytes, path: path)
    }

    /// Creates the temporary file (``temporaryName(for:)``) of each of `items` in `directory`,
    /// named for `name(item)` and holding `bytes(item)`, on every core, without syncing: the first
    /// step of writing a batch of files (then one ``syncFileSystem(containing:)``, then each moved
    /// into place).
    /// - Throws: the first failure, once every file was tried.
    static func createTemporaryFiles<Item: Sendable>(_ items: [Item], in directory: String, name: @Sendable (Item) -> String,
                                                     bytes: @Sendable (Item) -> [UInt8]) throws(ContactStoreError) {
        let failures = Parallel.map(items, minimumPerWorker: 64) { item -> ContactStoreError? in
            do throws(ContactStoreError) {
                try createTemporaryFile(directory + "/" + temporaryName(for: name(item)), bytes(item), mode: 0o600)
                return nil
            } catch {
                return error
            }
        }
        if let failure = failures.lazy.compactMap({ $0 }).first { throw failure }
    }

    /// Creates each of `items` as the new file `directory/name(item)` holding `bytes(item)`, on
    /// every core, never replacing a file and without syncing.
    ///
    /// On Linux each file is written unnamed (`O_TMPFILE`) and then linked under its name, which
    /// fails when the name is taken: another program never sees a file half written, and a
    /// process killed meanwhile leaves nothing behind. Where the file system cannot do that, the
    /// file is created under its name (`O_EXCL`) and written there. The folder is opened once and
    /// every name is taken relative to it, so no call walks the folder's path again.
    /// - Parameter method: how the files are put in place; the default is the fastest this
    ///   system offers, with the fallbacks ``NewFileMethod`` describes.
    /// - Returns: for each item, the file's stamp when it was created and written (taken from the
    ///   open file once it is under its name, so that a later change by another program shows),
    ///   or the `errno` of the failure (`EEXIST`: a file of that name exists and was not
    ///   touched). A file whose write failed is removed again, so that none is left half written.
    static func createNewFiles<Item: Sendable>(_ items: [Item], in directory: String, method: NewFileMethod = .preferred,
                                               name: @Sendable (Item) -> String,
                                               bytes: @Sendable (Item) -> [UInt8]) -> [NewFileOutcome] {
        let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return Array(repeating: .failed(errno: errno), count: items.count) }
        defer { close(folder) }
        return Parallel.map(items, minimumPerWorker: 64) { item -> NewFileOutcome in
            let content = bytes(item)
            return name(item).withCString { path -> NewFileOutcome in
                #if os(Linux)
                if method != .named {
                    let fd = openat(folder, ".", unnamedFileFlag | O_WRONLY | O_CLOEXEC, 0o600)
                    if fd >= 0 {
                        defer { close(fd) }
                        let failure = writeFully(fd, content)
                        if failure != 0 { return .failed(errno: failure) }
                        guard linkUnnamed(fd, into: folder, as: path, method: method) == 0 else { return .failed(errno: errno) }
                        return stampOfOpenFile(fd)
                    }
                    // Not supported by this file system: created under its name below.
                    guard [EOPNOTSUPP, EISDIR, EINVAL].contains(errno) else { return .failed(errno: errno) }
                }
                #endif
                let fd = openat(folder, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                guard fd >= 0 else { return .failed(errno: errno) }
                defer { close(fd) }
                let failure = writeFully(fd, content)
                if failure != 0 {
                    unlinkat(folder, path, 0)
                    return .failed(errno: failure)
                }
                return stampOfOpenFile(fd)
            }
        }
    }

    /// The stamp of the open file `fd`, or the `errno` of a failed `fstat`.
    private static func stampOfOpenFile(_ fd: Int32) -> NewFileOutcome {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failed(errno: errno) }
        return .created(stamp(of: info))
    }

    #if os(Linux)
    /// `O_TMPFILE` (not imported into Swift): an unnamed file in the directory opened.
    private static let unnamedFileFlag = Int32(0o20000000) | O_DIRECTORY

    /// `AT_EMPTY_PATH` (not imported into Swift): the descriptor itself is what is linked.
    private static let emptyPathFlag: Int32 = 0x1000

    /// Whether an open descriptor can be linked under a name through `/proc/self/fd`.
    static let canLinkUnnamedFiles = access("/proc/self/fd", F_OK) == 0

    /// Set once linking from a descriptor (`AT_EMPTY_PATH`) was refused: before Linux 6.10 it
    /// needs `CAP_DAC_READ_SEARCH`. It is not asked again in this process.
    private static let descriptorLinkingRefused = Atomic<Bool>(false)

    /// Links the unnamed file `fd` into the folder open as `folder` under `name`: `0`, or `-1`
    /// with `errno` set.
    private static func linkUnnamed(_ fd: Int32, into folder: Int32, as name: UnsafePointer<CChar>, method: NewFileMethod) -> Int32 {
        if method == .unnamed && !descriptorLinkingRefused.load(ordering: .relaxed) {
            if linkat(fd, "", folder, name, emptyPathFlag) == 0 { return 0 }
            // ENOENT is how a kernel says it does not allow this; any other failure is the link's
            // own (EEXIST above all) and is the same through /proc.
            guard errno == ENOENT || errno == EPERM else { return -1 }
            descriptorLinkingRefused.store(true, ordering: .relaxed)
        }
        return linkat(AT_FDCWD, "/proc/self/fd/\(fd)", folder, name, AT_SYMLINK_FOLLOW)
    }
    #else
    static let canLinkUnnamedFiles = false
    #endif

    /// Writes all of `bytes` to `fd`: `0`, or the `errno` of the failure.
    private static func writeFully(_ fd: Int32, _ bytes: [UInt8]) -> Int32 {
        bytes.withUnsafeBytes { buffer -> Int32 in
            var offset = 0
            while offset < buffer.count {
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return 0
        }
    }

    /// Flushes a file or directory to disk.
    static func sync(_ path: String) throws(ContactStoreError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(path, "cannot open to sync", errno: errno) }
        defer { close(fd) }
        if fsync(fd) != 0 && errno != EINVAL { throw .io(path, "cannot sync", errno: errno) }
    }

    /// Flushes every file of the file system that holds `path` (Linux `syncfs`; `sync` elsewhere):
    /// one call makes a whole batch of new files durable instead of one `fsync` per file.
    static func syncFileSystem(containing path: String) throws(ContactStoreError) {
        #if os(Linux)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(path, "cannot open to sync", errno: errno) }
        defer { close(fd) }
        if linuxSyncFileSystem(fd) != 0 { throw .io(path, "cannot sync the file system", errno: errno) }
        #elseif canImport(Darwin)
        Darwin.sync()
        #endif
    }

    /// Writes `bytes` to `directory/name` atomically: a hidden temporary file in the same folder,
    /// synced, then moved into place. With `replacing: false` an existing file is never replaced
    /// (the call fails with `EEXIST`).
    ///
    /// With `durable: false` neither the file nor the folder is synced: a reader sees the old
    /// file or the whole new one, but after a power loss either may be there, or the new one
    /// damaged. Only for files that are checked when read and can be made again (the index).
    static func writeAtomically(_ bytes: some Collection<UInt8>, directory: String, name: String, mode: mode_t = 0o600,
                                replacing: Bool, durable: Bool = true) throws(ContactStoreError) {
        let temporary = directory + "/" + temporaryName(for: name)
        unlink(temporary)
        try createFile(temporary, bytes, mode: mode)
        do {
            if durable { try sync(temporary) }
            try commit(temporary: temporary, to: directory + "/" + name, replacing: replacing)
            if durable { try sync(directory) }
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Moves a written temporary file to its final name; without `replacing`, fails if the name is taken.
    static func commit(temporary: String, to path: String, replacing: Bool) throws(ContactStoreError) {
        if replacing {
            guard rename(temporary, path) == 0 else { throw .io(path, "cannot move into place", errno: errno) }
            return
        }
        guard link(temporary, path) == 0 else {
            let number = errno
            unlink(temporary)
            throw ContactStoreError(code: .io, message: number == EEXIST
                                        ? "already exists; it was not replaced"
                                        : "cannot move into place: \(describe(number))", path: path)
        }
        unlink(temporary)
    }

    /// The hidden name of the temporary file that becomes `name`: `.name.cardsync-tmp`.
    static func temporaryName(for name: String) -> String {
        "." + name + temporarySuffix
    }

    /// What the names of temporary files end with; such files are removed when a book is opened.
    static let temporarySuffix = ".cardsync-tmp"

    /// The entries of a directory (without `.` and `..`), as names; names that are not UTF-8
    /// are returned in `undecodable` as their lossy spelling.
    static func listDirectory(_ path: String) throws(ContactStoreError) -> (names: [String], undecodable: [String]) {
        try listDirectory(path, inBlocksOf: .max) { _ in }
    }

    /// The entries of `path` like ``listDirectory(_:)``; every `blockSize` UTF-8 names, and once
    /// more at the end for the last ones, `block` is handed the names listed since the last call,
    /// while the listing goes on.
    static func listDirectory(_ path: String, inBlocksOf blockSize: Int,
                              _ block: ([String]) -> Void) throws(ContactStoreError) -> (names: [String], undecodable: [String]) {
        guard let directory = opendir(path) else { throw .io(path, "cannot list the folder", errno: errno) }
        defer { closedir(directory) }
        var names: [String] = []
        var undecodable: [String] = []
        var handedOn = 0
        while let entry = readdir(directory) {
            if names.count - handedOn >= blockSize {
                block(Array(names[handedOn...]))
                handedOn = names.count
            }
            // The name in place, up to its NUL: a record can be shorter than `dirent`, so copying
            // the whole `d_name` array read past the end of readdir's buffer (AddressSanitizer).
            let start = UnsafeRawPointer(entry) + MemoryLayout<dirent>.offset(of: \dirent.d_name)!
            let length = strlen(start.assumingMemoryBound(to: CChar.self))
            let name = UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: length)
            if name.first == 0x2E && (length == 1 || (length == 2 && name[1] == 0x2E)) { continue }
            // The String is made from the bytes in place (no array per name first).
            if let text = String(exactUTF8: name) {
                names.append(text)
            } else {
                undecodable.append(String(decoding: name, as: UTF8.self))
            }
        }
        if handedOn < names.count { block(Array(names[handedOn...])) }
        return (names, undecodable)
    }

    /// Creates a directory with `mode`; an existing directory is left as it is.
    static func makeDirectory(_ path: String, mode: mode_t) throws(ContactStoreError) {
        if mkdir(path, mode) != 0 && errno != EEXIST { throw .io(path, "cannot create the folder", errno: errno) }
    }
}

#if os(Linux)
/// glibc's `syncfs(2)`, which the Glibc module does not export (it is a GNU extension).
@_silgen_name("syncfs")
private func linuxSyncFileSystem(_ descriptor: Int32) -> Int32
#endif
