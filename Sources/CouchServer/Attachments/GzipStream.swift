import CZlib

/// gzip compression or decompression over zlib, fed in pieces, so that an attachment of any
/// size passes through a bounded buffer.
///
/// CouchDB stores attachments of compressible types in gzip form made by zlib at level 8 with
/// zlib's own gzip header; made the same way here, the stored bytes, and so the `md5-` digests
/// clients see, are byte for byte CouchDB's. Not `Sendable`: one owner feeds it.
final class GzipStream {
    enum Direction {
        case compress
        case decompress
    }

    /// The level CouchDB uses (`attachment_compression_level`, default 8).
    static let compressionLevel: Int32 = 8

    private let direction: Direction
    private var stream = z_stream()
    private var isFinished = false
    private var output = [UInt8](repeating: 0, count: 64 * 1024)

    /// - Throws: ``CouchError`` `storage_failure` when zlib cannot start.
    init(_ direction: Direction) throws(CouchError) {
        self.direction = direction
        let status: Int32
        switch direction {
        case .compress:
            // 15 + 16: a 32 KiB window written with a gzip header and trailer.
            status = cardsync_deflateInit2(&stream, Self.compressionLevel, 15 + 16, 8, Z_DEFAULT_STRATEGY)
        case .decompress:
            status = cardsync_inflateInit2(&stream, 15 + 16)
        }
        guard status == Z_OK else { throw CouchError(.storageFailure, reason: "zlib could not start (\(status))") }
    }

    deinit {
        switch direction {
        case .compress: deflateEnd(&stream)
        case .decompress: inflateEnd(&stream)
        }
    }

    /// Passes `input` through and hands the bytes produced so far to `consume`.
    ///
    /// - Throws: ``CouchError`` `bad_request` when compressed input is not valid gzip, or what
    ///   `consume` throws.
    func update(_ input: UnsafeRawBufferPointer, _ consume: ([UInt8]) throws(CouchError) -> Void) throws(CouchError) {
        try run(input, finish: false, consume)
    }

    /// Ends the stream (the gzip trailer when compressing) and hands over the last bytes.
    func finish(_ consume: ([UInt8]) throws(CouchError) -> Void) throws(CouchError) {
        try run(UnsafeRawBufferPointer(start: nil, count: 0), finish: true, consume)
    }

    /// Passes `bytes` through; returns what came out so far.
    func update(_ bytes: [UInt8]) throws(CouchError) -> [UInt8] {
        var output: [UInt8] = []
        var failure: CouchError?
        bytes.withUnsafeBytes { buffer in
            do throws(CouchError) {
                try update(buffer) { (produced: [UInt8]) throws(CouchError) in output.append(contentsOf: produced) }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return output
    }

    /// `bytes` decompressed whole (for attachments inlined in JSON, which is in memory anyway).
    static func decompress(_ bytes: [UInt8]) throws(CouchError) -> [UInt8] {
        let gzip = try GzipStream(.decompress)
        var output = try gzip.update(bytes)
        try gzip.finish { (produced: [UInt8]) throws(CouchError) in output.append(contentsOf: produced) }
        return output
    }

    private func run(_ input: UnsafeRawBufferPointer, finish: Bool,
                     _ consume: ([UInt8]) throws(CouchError) -> Void) throws(CouchError) {
        guard !isFinished else { return }
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: UInt8.self))
        stream.avail_in = UInt32(input.count)
        while true {
            let capacity = output.count
            let (status, produced) = output.withUnsafeMutableBufferPointer { buffer in
                stream.next_out = buffer.baseAddress
                stream.avail_out = UInt32(capacity)
                let status: Int32
                switch direction {
                case .compress: status = deflate(&stream, finish ? Z_FINISH : Z_NO_FLUSH)
                case .decompress: status = inflate(&stream, Z_NO_FLUSH)
                }
                return (status, capacity - Int(stream.avail_out))
            }
            if produced > 0 { try consume(Array(output[..<produced])) }
            switch status {
            case Z_STREAM_END:
                isFinished = true
                return
            case Z_OK:
                if stream.avail_in == 0, stream.avail_out > 0, !finish { return }
            case Z_BUF_ERROR where direction == .decompress:
                // Nothing more can be done with the input given so far.
                if finish { throw CouchError(.badRequest, reason: "gzip data ends too soon") }
                return
            case Z_BUF_ERROR:
                if !finish { return }
            default:
                throw CouchError(.badRequest, reason: "damaged gzip data (zlib \(status))")
            }
            if finish, direction == .decompress, stream.avail_in == 0, produced == 0 {
                throw CouchError(.badRequest, reason: "gzip data ends too soon")
            }
        }
    }
}
