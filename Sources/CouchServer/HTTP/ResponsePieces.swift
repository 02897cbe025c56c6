#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Hummingbird
import NIOCore

/// A response body of known length made of bytes in memory and attachment files, written in
/// 64 KiB pieces as the client takes them: an attachment of any size is sent without holding
/// it in memory.
struct ResponsePieces: Sendable {
    enum Piece: Sendable {
        case bytes([UInt8])
        /// A file sent as stored.
        case file(path: String, length: Int)
        /// `length` bytes of a file from `offset` (a `Range` request).
        case fileSlice(path: String, offset: Int, length: Int)
        /// A gzip file sent decompressed; `length` is the decompressed length.
        case inflatedFile(path: String, length: Int)

        var length: Int {
            switch self {
            case .bytes(let bytes): bytes.count
            case .file(_, let length), .inflatedFile(_, let length), .fileSlice(_, _, let length): length
            }
        }
    }

    var contentType: String
    var pieces: [Piece] = []

    var length: Int { pieces.reduce(0) { $0 + $1.length } }

    mutating func append(_ text: String) {
        append(Array(text.utf8))
    }

    mutating func append(_ bytes: [UInt8]) {
        if case .bytes(let previous)? = pieces.last {
            pieces[pieces.count - 1] = .bytes(previous + bytes)
        } else {
            pieces.append(.bytes(bytes))
        }
    }

    mutating func append(_ piece: Piece) {
        if case .bytes(let bytes) = piece { append(bytes) } else { pieces.append(piece) }
    }

    mutating func append(contentsOf other: ResponsePieces) {
        for piece in other.pieces { append(piece) }
    }

    static let chunkSize = 64 * 1024

    /// Writes every piece in order.
    func write(to writer: inout any ResponseBodyWriter) async throws {
        for piece in pieces {
            switch piece {
            case .bytes(let bytes):
                try await writer.write(ByteBuffer(bytes: bytes))
            case .file(let path, _):
                let descriptor = try Self.open(path)
                defer { close(descriptor) }
                while let chunk = try Self.readChunk(descriptor, path: path) {
                    try await writer.write(ByteBuffer(bytes: chunk))
                }
            case .fileSlice(let path, let offset, let length):
                let descriptor = try Self.open(path)
                defer { close(descriptor) }
                var sent = 0
                while sent < length {
                    let count = min(Self.chunkSize, length - sent)
                    let chunk = try FileIO.read(descriptor, at: offset + sent, length: count, path: path)
                    try await writer.write(ByteBuffer(bytes: chunk))
                    sent += count
                }
            case .inflatedFile(let path, _):
                let descriptor = try Self.open(path)
                defer { close(descriptor) }
                let gzip = try GzipStream(.decompress)
                while let chunk = try Self.readChunk(descriptor, path: path) {
                    let produced = try gzip.update(chunk)
                    if !produced.isEmpty { try await writer.write(ByteBuffer(bytes: produced)) }
                }
            }
        }
    }

    private static func open(_ path: String) throws(CouchError) -> Int32 {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 { throw FileIO.failure("cannot open", path) }
        return descriptor
    }

    private static func readChunk(_ descriptor: Int32, path: String) throws(CouchError) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, chunkSize) }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileIO.failure("cannot read", path)
            }
            if count == 0 { return nil }
            chunk.removeLast(chunkSize - count)
            return chunk
        }
    }
}
