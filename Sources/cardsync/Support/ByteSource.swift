#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file or standard input, read in chunks so that memory stays bounded.
struct ByteSource: ~Copyable {
    /// The name diagnostics use: the path as given, or `-`.
    let name: String
    private let handle: UnsafeMutablePointer<FILE>
    private let ownsHandle: Bool

    /// Opens `path` (`-` is standard input).
    init(path: String) throws(CommandFailure) {
        name = path
        if path == "-" {
            guard let file = fdopen(0, "rb") else { throw CommandFailure.io("cannot read standard input") }
            handle = file
            ownsHandle = false
        } else {
            guard let file = fopen(path, "rb") else {
                let reason = String(cString: strerror(errno))
                throw errno == ENOENT
                    ? CommandFailure.missingInput("\(path): no such file")
                    : CommandFailure.io("\(path): cannot open: \(reason)")
            }
            handle = file
            ownsHandle = true
        }
    }

    /// The size of a regular file, `nil` for standard input, pipes and devices.
    var size: Int? {
        var info = stat()
        guard fstat(fileno(handle), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    deinit {
        if ownsHandle { fclose(handle) }
    }

    /// Reads up to `size` bytes into `buffer` (replacing its contents); an empty buffer means the end.
    func read(into buffer: inout [UInt8], size: Int = 1 << 20) throws(CommandFailure) {
        buffer = try [UInt8](unsafeUninitializedCapacity: size) { (storage, count) throws(CommandFailure) in
            count = try read(into: storage)
        }
    }

    /// Reads up to `room.count` bytes into `room`; returns how many (0 at the end).
    func read(into room: UnsafeMutableBufferPointer<UInt8>) throws(CommandFailure) -> Int {
        let count = fread(room.baseAddress, 1, room.count, handle)
        if count < room.count && ferror(handle) != 0 {
            throw CommandFailure.io("\(name): read failed: \(String(cString: strerror(errno)))")
        }
        return count
    }

    /// Streams the whole input through `body`, one chunk at a time.
    func forEachChunk(_ body: ([UInt8]) throws(CommandFailure) -> Void) throws(CommandFailure) {
        var buffer: [UInt8] = []
        while true {
            try read(into: &buffer)
            if buffer.isEmpty { return }
            try body(buffer)
        }
    }
}
