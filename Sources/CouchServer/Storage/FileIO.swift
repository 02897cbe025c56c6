#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin wrappers over POSIX file calls: positioned reads and writes, fsync, directory sync.
/// Every failure becomes a ``CouchError`` with code ``CouchError/Code/storageFailure``.
enum FileIO {
    static func failure(_ action: String, _ path: String) -> CouchError {
        let message = String(cString: strerror(errno))
        return CouchError(.storageFailure, reason: "\(action) \(path): \(message)")
    }

    /// Opens `path` for reading and writing, creating it when asked.
    static func open(_ path: String, create: Bool = false) throws(CouchError) -> Int32 {
        let flags = O_RDWR | O_CLOEXEC | (create ? O_CREAT | O_EXCL : 0)
        let descriptor = Glibc.open(path, flags, 0o644)
        if descriptor < 0 { throw failure("cannot open", path) }
        return descriptor
    }

    /// Writes all of `bytes` at `offset`.
    static func write(_ descriptor: Int32, _ bytes: [UInt8], at offset: Int, path: String) throws(CouchError) {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                pwrite(descriptor, buffer.baseAddress! + written, buffer.count - written, off_t(offset + written))
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw failure("cannot write", path)
            }
            written += result
        }
    }

    /// Reads `length` bytes at `offset`.
    static func read(_ descriptor: Int32, at offset: Int, length: Int, path: String) throws(CouchError) -> [UInt8] {
        // Read straight into the array's storage (filling it with zeros first cost a tenth of
        // opening a large database).
        var readFailure: CouchError?
        let bytes = [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
            var done = 0
            while done < length {
                let result = pread(descriptor, buffer.baseAddress! + done, length - done, off_t(offset + done))
                if result < 0 {
                    if errno == EINTR { continue }
                    readFailure = failure("cannot read", path)
                    break
                }
                if result == 0 {
                    readFailure = CouchError(.storageFailure, reason: "unexpected end of \(path)")
                    break
                }
                done += result
            }
            initialized = done
        }
        if let readFailure { throw readFailure }
        return bytes
    }

    /// Reads the whole file.
    static func readAll(_ descriptor: Int32, path: String) throws(CouchError) -> [UInt8] {
        var status = stat()
        if fstat(descriptor, &status) != 0 { throw failure("cannot stat", path) }
        return try read(descriptor, at: 0, length: Int(status.st_size), path: path)
    }

    /// The whole file mapped read-only, its pages read in at once: for reading a large file
    /// through once on every core without copying it into memory first. Hand it to
    /// ``unmap(_:)`` when done. The caller must be the file's only writer (it holds the data
    /// folder's lock): a file cut shorter while mapped would fault on the lost pages.
    static func mapWhole(_ descriptor: Int32, path: String) throws(CouchError) -> UnsafeBufferPointer<UInt8> {
        var status = stat()
        if fstat(descriptor, &status) != 0 { throw failure("cannot stat", path) }
        let length = Int(status.st_size)
        guard length > 0 else { return UnsafeBufferPointer(start: nil, count: 0) }
        let address = mmap(nil, length, PROT_READ, MAP_PRIVATE | MAP_POPULATE, descriptor, 0)
        guard let address, address != MAP_FAILED else { throw failure("cannot map", path) }
        return UnsafeBufferPointer(start: address.assumingMemoryBound(to: UInt8.self), count: length)
    }

    /// Unmaps what ``mapWhole(_:path:)`` mapped.
    static func unmap(_ bytes: UnsafeBufferPointer<UInt8>) {
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
    }

    /// Flushes the file's data to the disk.
    static func sync(_ descriptor: Int32, path: String) throws(CouchError) {
        if fsync(descriptor) != 0 { throw failure("cannot fsync", path) }
    }

    /// Cuts the file to `length` bytes.
    static func truncate(_ descriptor: Int32, to length: Int, path: String) throws(CouchError) {
        if ftruncate(descriptor, off_t(length)) != 0 { throw failure("cannot truncate", path) }
    }

    /// Flushes a directory, so that files created, renamed or removed in it stay so after a crash.
    static func syncDirectory(_ path: String) throws(CouchError) {
        let descriptor = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if descriptor < 0 { throw failure("cannot open directory", path) }
        defer { close(descriptor) }
        if fsync(descriptor) != 0 { throw failure("cannot fsync directory", path) }
    }

    /// Writes a whole new file durably: temporary file, fsync, rename, directory fsync.
    static func writeFileAtomically(_ bytes: [UInt8], to path: String, directory: String) throws(CouchError) {
        let temporary = path + ".tmp"
        unlink(temporary)
        let descriptor = try open(temporary, create: true)
        do {
            try write(descriptor, bytes, at: 0, path: temporary)
            try sync(descriptor, path: temporary)
        } catch {
            close(descriptor)
            throw error
        }
        close(descriptor)
        if rename(temporary, path) != 0 { throw failure("cannot rename", temporary) }
        try syncDirectory(directory)
    }
}
