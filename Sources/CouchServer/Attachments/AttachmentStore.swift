#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Crypto
import ExtrasBase64

/// The attachment files of one database: `<database>/attachments/<digest>`, one file per stored
/// content, named by its `md5-` digest (base64 with `/` written `_` and `+` written `-`).
///
/// A file is written under a temporary name, fsynced, then renamed and the folder fsynced,
/// always before the journal line of the revision that refers to it: after a crash a revision
/// never points at a missing file. Files no revision refers to are removed by
/// ``collectGarbage(keeping:)`` (`_compact`) and leftovers of interrupted writes at open.
struct AttachmentStore: Sendable {
    /// The folder holding the files.
    let directory: String

    static let folderName = "attachments"
    private static let temporaryPrefix = "tmp-"

    init(databaseDirectory: String) {
        self.directory = databaseDirectory + "/" + Self.folderName
    }

    /// Creates the folder when missing and removes temporary files an interrupted write left.
    func prepare() throws(CouchError) {
        if mkdir(directory, 0o755) != 0, errno != EEXIST { throw FileIO.failure("cannot create", directory) }
        for name in fileNames() where name.hasPrefix(Self.temporaryPrefix) {
            unlink(directory + "/" + name)
        }
    }

    /// The file of the attachment with `digest` (`md5-…`).
    func path(forDigest digest: String) -> String {
        let name = digest.dropFirst("md5-".count).map { character -> Character in
            switch character {
            case "/": "_"
            case "+": "-"
            default: character
            }
        }
        return directory + "/" + String(name)
    }

    /// A new temporary file for an attachment being received.
    func makeTemporaryPath() -> String {
        directory + "/" + Self.temporaryPrefix + Database.randomHex()
    }

    /// Moves a received attachment to its place: after this returns the file is durable under
    /// its digest. The same content stored before is kept and the new copy dropped.
    func commit(_ staged: StagedAttachment) throws(CouchError) {
        let target = path(forDigest: staged.digest)
        if access(target, F_OK) == 0 {
            unlink(staged.temporaryPath)
            return
        }
        if rename(staged.temporaryPath, target) != 0 { throw FileIO.failure("cannot rename", staged.temporaryPath) }
        try FileIO.syncDirectory(directory)
    }

    /// Removes the temporary files of attachments an edit did not commit (a refused edit);
    /// committed ones were renamed away and are left alone.
    func discardUncommitted(_ staged: some Sequence<StagedAttachment>) {
        for attachment in staged { unlink(attachment.temporaryPath) }
    }

    /// The stored bytes of an attachment (its encoded form when it is stored gzipped).
    func read(digest: String) throws(CouchError) -> [UInt8] {
        let path = path(forDigest: digest)
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 { throw FileIO.failure("cannot open", path) }
        defer { close(descriptor) }
        return try FileIO.readAll(descriptor, path: path)
    }

    /// Bytes in all stored attachment files.
    func totalSize() -> Int {
        var total = 0
        for name in fileNames() where !name.hasPrefix(Self.temporaryPrefix) {
            var status = stat()
            if stat(directory + "/" + name, &status) == 0 { total += Int(status.st_size) }
        }
        return total
    }

    /// Removes the files whose digest is not in `referenced`; returns how many bytes were freed.
    @discardableResult
    func collectGarbage(keeping referenced: Set<String>) throws(CouchError) -> Int {
        let kept = Set(referenced.map { path(forDigest: $0) })
        var freed = 0
        for name in fileNames() where !name.hasPrefix(Self.temporaryPrefix) {
            let path = directory + "/" + name
            guard !kept.contains(path) else { continue }
            var status = stat()
            if stat(path, &status) == 0 { freed += Int(status.st_size) }
            if unlink(path) != 0 { throw FileIO.failure("cannot remove", path) }
        }
        if freed > 0 { try FileIO.syncDirectory(directory) }
        return freed
    }

    private func fileNames() -> [String] {
        guard let folder = opendir(directory) else { return [] }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { buffer in
                String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }
}

/// An attachment received and fsynced under a temporary name, waiting for the revision that
/// refers to it: ``AttachmentStore/commit(_:)`` gives it its place.
public struct StagedAttachment: Sendable, Hashable {
    /// The temporary file.
    var temporaryPath: String
    /// `md5-` and the base64 MD5 of the stored bytes, as CouchDB writes digests.
    var digest: String
    /// Length of the attachment as the client sent it.
    var length: Int
    /// Length of the stored bytes; equal to ``length`` unless ``isGzip``.
    var encodedLength: Int
    /// Whether the stored bytes are the gzip form.
    var isGzip: Bool
}

/// Writes an attachment as it arrives: to a temporary file of ``AttachmentStore``, through gzip
/// for compressible types, computing the MD5 of the stored bytes on the way. Memory stays
/// bounded whatever the attachment's size. Not `Sendable`: one request owns it.
final class AttachmentWriter {
    private let path: String
    private let descriptor: Int32
    private let gzip: GzipStream?
    private var hasher = Insecure.MD5()
    private var length = 0
    private var encodedLength = 0
    private var isFinished = false

    /// Opens a temporary file in `store`; `compress` stores the gzip form.
    init(store: AttachmentStore, compress: Bool) throws(CouchError) {
        path = store.makeTemporaryPath()
        gzip = compress ? try GzipStream(.compress) : nil
        descriptor = try FileIO.open(path, create: true)
    }

    deinit {
        close(descriptor)
        if !isFinished { unlink(path) }
    }

    /// Adds bytes of the attachment.
    func append(_ bytes: UnsafeRawBufferPointer) throws(CouchError) {
        length += bytes.count
        if let gzip {
            try gzip.update(bytes) { (encoded: [UInt8]) throws(CouchError) in try store(encoded) }
        } else {
            try store(Array(bytes))
        }
    }

    /// Adds bytes of the attachment.
    func append(_ bytes: [UInt8]) throws(CouchError) {
        var failure: CouchError?
        bytes.withUnsafeBytes { buffer in
            do throws(CouchError) { try append(buffer) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Ends the attachment: the file is complete and fsynced.
    func finish() throws(CouchError) -> StagedAttachment {
        if let gzip {
            try gzip.finish { (encoded: [UInt8]) throws(CouchError) in try store(encoded) }
        }
        try FileIO.sync(descriptor, path: path)
        isFinished = true
        let digest = "md5-" + Base64.encodeToString(bytes: Array(hasher.finalize()))
        return StagedAttachment(temporaryPath: path, digest: digest, length: length, encodedLength: encodedLength,
                                isGzip: gzip != nil)
    }

    private func store(_ encoded: [UInt8]) throws(CouchError) {
        hasher.update(data: encoded)
        try FileIO.write(descriptor, encoded, at: encodedLength, path: path)
        encodedLength += encoded.count
    }

    /// Stores `bytes` whole: for inline (base64) attachments, which are in memory already.
    static func stage(_ bytes: [UInt8], in store: AttachmentStore, compress: Bool) throws(CouchError) -> StagedAttachment {
        let writer = try AttachmentWriter(store: store, compress: compress)
        try writer.append(bytes)
        return try writer.finish()
    }
}
