#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard output or a file, written through a buffer. A file is written to a temporary file in
/// the same folder and renamed over the target only by ``commit()``, so an existing file is never
/// left half-written.
final class ByteSink {
    private let handle: UnsafeMutablePointer<FILE>
    private let path: String?
    /// What error messages call the target: its path, or standard output.
    private let targetName: String
    private let temporaryPath: String?
    private var buffer: [UInt8] = []
    private var committed = false
    /// Whether `handle` was opened here on a device or pipe (closed when done).
    private var isOpenedDevice = false
    /// Bytes kept back from each flush so that ``removeTrailingSeparator(_:)`` can still reach them.
    private let holdBack = 16
    /// For a file target: how many bytes were handed to the system, and up to where its write-back
    /// to disk was started (see ``startWriteBack()``).
    private var handedOff = 0
    private var writeBackStart = 0

    /// Opens `path` for writing (`-` or `nil` is standard output). A path that is not a regular
    /// file (`/dev/null`, a pipe, a terminal) is written directly: renaming a file over it would
    /// replace the device or pipe itself.
    init(path: String?) throws(CommandFailure) {
        buffer.reserveCapacity(1 << 20)
        targetName = path.flatMap { $0 == "-" ? nil : $0 } ?? "standard output"
        var status = stat()
        if let path, path != "-", stat(path, &status) == 0, (status.st_mode & S_IFMT) != S_IFREG {
            guard (status.st_mode & S_IFMT) != S_IFDIR else { throw CommandFailure.io("\(path): is a folder; name a file to write") }
            guard let file = fopen(path, "wb") else {
                throw CommandFailure.io("\(path): cannot write: \(String(cString: strerror(errno)))", path: path)
            }
            handle = file
            self.path = nil
            temporaryPath = nil
            isOpenedDevice = true
        } else if let path, path != "-" {
            let temporary = path + ".cardsync-\(getpid())-tmp"
            guard let file = fopen(temporary, "wb") else {
                throw CommandFailure.io("\(path): cannot write: \(String(cString: strerror(errno)))")
            }
            handle = file
            self.path = path
            temporaryPath = temporary
        } else {
            guard let file = fdopen(1, "wb") else { throw CommandFailure.io("cannot write to standard output") }
            handle = file
            self.path = nil
            temporaryPath = nil
        }
    }

    deinit {
        if isOpenedDevice { fclose(handle) }
        if !committed, let temporaryPath {
            fclose(handle)
            unlink(temporaryPath)
        }
    }

    /// Appends bytes, flushing when the buffer passes 1 MB.
    func write(_ bytes: some Collection<UInt8>) throws(CommandFailure) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 20 { try flush(keepingLast: holdBack) }
    }

    /// Appends bytes; a large block (a batch of converted cards) is written from where it is,
    /// not copied into the buffer first.
    func write(_ bytes: [UInt8]) throws(CommandFailure) {
        // A smaller block is buffered like any other collection (the slice takes that overload).
        guard bytes.count >= 1 << 16 else { return try write(bytes[...]) }
        try flush()
        let direct = bytes.count - holdBack
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, direct, handle) }
        if written != direct { throw writeFailure() }
        handedOff += direct
        buffer.append(contentsOf: bytes[direct...])
        try startWriteBack()
    }

    /// For a file target, once 8 MB more were written: starts writing what was handed to the
    /// system out to disk, without waiting for it (`sync_file_range` with
    /// `SYNC_FILE_RANGE_WRITE`). The disk then works while the cards are converted, and the
    /// `fsync` of ``commit()`` waits only for the last part instead of the whole file (for
    /// 100,000 cards, 150 MB: about 50 ms at the end of a 0.65 s run). Where the call is not
    /// available, the `fsync` does it all, as before.
    private func startWriteBack() throws(CommandFailure) {
        guard temporaryPath != nil, let syncFileRange = Self.syncFileRange, handedOff - writeBackStart >= 8 << 20 else { return }
        // What stdio still holds goes to the system first; a write it refuses fails here, at once.
        guard fflush(handle) == 0 else { throw writeFailure() }
        _ = syncFileRange(fileno(handle), Int64(writeBackStart), Int64(handedOff - writeBackStart), 2 /* SYNC_FILE_RANGE_WRITE */)
        writeBackStart = handedOff
    }

    /// Linux's `sync_file_range(2)`, which the Glibc module does not declare; `nil` elsewhere.
    private static let syncFileRange: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32)? = {
        #if os(Linux)
        guard let symbol = dlsym(nil, "sync_file_range") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32).self)
        #else
        return nil
        #endif
    }()

    /// Appends a string as UTF-8.
    func write(_ text: String) throws(CommandFailure) {
        try write(text.utf8)
    }

    /// Removes `separator` from the end of what is buffered, if it is there (the last card's
    /// comma in a JSON array). The buffer always holds the last write, so this never needs to
    /// reach back into what was flushed.
    func removeTrailingSeparator(_ separator: String) throws(CommandFailure) {
        let bytes = Array(separator.utf8)
        precondition(bytes.count <= holdBack)
        if buffer.count >= bytes.count && Array(buffer.suffix(bytes.count)) == bytes {
            buffer.removeLast(bytes.count)
        }
    }

    /// Writes the buffer out, all but its last `kept` bytes.
    func flush(keepingLast kept: Int = 0) throws(CommandFailure) {
        guard buffer.count > kept else { return }
        let count = buffer.count - kept
        let written = buffer.withUnsafeBytes { fwrite($0.baseAddress, 1, count, handle) }
        buffer.removeFirst(count)
        if written != count { throw writeFailure() }
        handedOff += count
        try startWriteBack()
    }

    /// The failure of a write that just failed, naming the target and the system's reason.
    private func writeFailure() -> CommandFailure {
        CommandFailure.io("\(targetName): write failed: \(String(cString: strerror(errno)))")
    }

    /// Flushes, syncs a file to disk and moves it into place. A write the system refuses only
    /// now (the last buffered bytes on a full disk, a failed sync) fails here, and the file is
    /// then not moved into place: what was there before stays.
    func commit() throws(CommandFailure) {
        try flush()
        if let path, let temporaryPath {
            var failure: CommandFailure?
            if fflush(handle) != 0 || fsync(fileno(handle)) != 0 { failure = writeFailure() }
            if fclose(handle) != 0 && failure == nil { failure = writeFailure() }
            committed = true
            if let failure {
                unlink(temporaryPath)
                throw failure
            }
            if rename(temporaryPath, path) != 0 {
                unlink(temporaryPath)
                throw CommandFailure.io("\(path): cannot move the written file into place: \(String(cString: strerror(errno)))")
            }
        } else {
            committed = true
            if fflush(handle) != 0 { throw writeFailure() }
        }
    }
}
