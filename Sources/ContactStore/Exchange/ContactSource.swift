#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where imported contacts come from: a file (vCard of any version, jCard or xCard, detected from
/// its first bytes), standard input, or bytes in memory.
///
/// ```swift
/// try await book.importContacts(from: [.file("export.vcf"), .standardInput])
/// ```
public struct ContactSource: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case file(String)
        case standardInput
        case bytes([UInt8])
    }

    let kind: Kind
    /// The name used in reports: the path, `-` for standard input, or the given name.
    public let name: String

    /// A file.
    public static func file(_ path: String) -> ContactSource { ContactSource(kind: .file(path), name: path) }
    /// Standard input (`-`).
    public static var standardInput: ContactSource { ContactSource(kind: .standardInput, name: "-") }
    /// Bytes held in memory, reported under `name`.
    public static func bytes(_ bytes: [UInt8], name: String) -> ContactSource { ContactSource(kind: .bytes(bytes), name: name) }

    public var description: String { name }

    /// Opens the source for reading in chunks.
    func makeReader() throws(ContactStoreError) -> ChunkReader {
        switch kind {
        case .bytes(let bytes):
            return ChunkReader(descriptor: -1, ownsDescriptor: false, memory: bytes, name: name)
        case .standardInput:
            return ChunkReader(descriptor: 0, ownsDescriptor: false, memory: nil, name: name)
        case .file(let path):
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                let number = errno
                throw ContactStoreError(code: number == ENOENT ? .missingInput : .io,
                                        message: number == ENOENT ? "no such file" : "cannot open: \(POSIX.describe(number))", path: path)
            }
            return ChunkReader(descriptor: fd, ownsDescriptor: true, memory: nil, name: name)
        }
    }
}

/// Reads a source in chunks of 1 MiB, so that memory stays bounded by a chunk and a batch of cards.
final class ChunkReader {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private let memory: [UInt8]?
    private var memoryPosition = 0
    private let name: String
    private var buffer = [UInt8](repeating: 0, count: 1 << 20)
    /// The bytes read so far.
    private(set) var bytesRead = 0

    init(descriptor: Int32, ownsDescriptor: Bool, memory: [UInt8]?, name: String) {
        self.descriptor = descriptor
        self.ownsDescriptor = ownsDescriptor
        self.memory = memory
        self.name = name
    }

    deinit {
        if ownsDescriptor { POSIX.closeFile(descriptor) }
    }

    /// The next chunk, or `nil` at the end.
    func next() throws(ContactStoreError) -> ArraySlice<UInt8>? {
        if let memory {
            guard memoryPosition < memory.count else { return nil }
            let end = min(memoryPosition + (1 << 20), memory.count)
            defer { memoryPosition = end; bytesRead = end }
            return memory[memoryPosition..<end]
        }
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .io(name, "cannot read", errno: errno)
            }
            if count == 0 { return nil }
            bytesRead += count
            return buffer[0..<count]
        }
    }

    /// The size of the source, when it is a regular file or bytes in memory.
    var totalSize: Int? {
        if let memory { return memory.count }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }
}
