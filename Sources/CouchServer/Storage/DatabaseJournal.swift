#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import JSONText

/// What opening a journal had to set aside.
///
/// A torn last line (a write cut short by a crash before it was acknowledged) is moved to a
/// `journal.torn-*.jsonl` file beside the journal and cut from it; a damaged line in the middle
/// is skipped and reported on every open. Nothing is dropped silently.
public struct JournalRecovery: Sendable, Hashable {
    /// The file that received a torn last line, if there was one.
    public var setAsideFile: String?
    /// How many bytes were moved to ``setAsideFile``.
    public var setAsideBytes: Int
    /// Byte offsets of damaged lines that were skipped.
    public var skippedLineOffsets: [Int]

    /// Whether the journal opened clean.
    public var isClean: Bool { setAsideFile == nil && skippedLineOffsets.isEmpty }
}

/// One database's append-only journal: a file of JSON lines, one per revision written.
/// Not `Sendable`: its owner, the ``Database`` actor, is the only one to touch it.
///
/// Each append is a single positioned write of whole lines followed by `fsync`; an answer is
/// sent only after that returns, so an acknowledged write survives `kill -9` and power loss.
final class DatabaseJournal {
    /// One line read back at open: its parsed form and its place in the file.
    struct Line {
        var value: JSONObject
        var offset: Int
        /// Length without the line end.
        var length: Int
    }

    let path: String
    private let descriptor: Int32
    /// Bytes in the file: the offset of the next append.
    private(set) var length: Int

    private init(path: String, descriptor: Int32, length: Int) {
        self.path = path
        self.descriptor = descriptor
        self.length = length
    }

    deinit {
        close(descriptor)
    }

    /// Creates a journal whose first line is `header`.
    static func create(at path: String, header: JSONObject) throws(CouchError) -> DatabaseJournal {
        let descriptor = try FileIO.open(path, create: true)
        var bytes = header.serialized()
        bytes.append(0x0A)
        do {
            try FileIO.write(descriptor, bytes, at: 0, path: path)
            try FileIO.sync(descriptor, path: path)
        } catch {
            close(descriptor)
            throw error
        }
        return DatabaseJournal(path: path, descriptor: descriptor, length: bytes.count)
    }

    /// Opens a journal and reads every line; a torn last line is set aside and reported.
    static func open(at path: String) throws(CouchError) -> (DatabaseJournal, [Line], JournalRecovery) {
        let descriptor = try FileIO.open(path)
        let bytes: [UInt8]
        do {
            bytes = try FileIO.readAll(descriptor, path: path)
        } catch {
            close(descriptor)
            throw error
        }
        var lines: [Line] = []
        var recovery = JournalRecovery(setAsideFile: nil, setAsideBytes: 0, skippedLineOffsets: [])
        var start = 0
        var goodLength = 0
        while start < bytes.count {
            let newline = bytes[start...].firstIndex(of: 0x0A)
            let end = newline ?? bytes.count
            let parsed = try? JSONParser.parse(bytes[start..<end])
            if let object = parsed?.objectValue {
                if newline == nil {
                    // Complete JSON without its line end: the write got all but the last byte.
                    // Keep it and finish the line.
                    lines.append(Line(value: object, offset: start, length: end - start))
                    goodLength = bytes.count
                    start = bytes.count
                    break
                }
                lines.append(Line(value: object, offset: start, length: end - start))
                goodLength = end + 1
            } else if newline == nil {
                break
            } else {
                recovery.skippedLineOffsets.append(start)
                goodLength = end + 1
            }
            start = end + 1
        }
        let journal = DatabaseJournal(path: path, descriptor: descriptor, length: goodLength)
        if goodLength < bytes.count {
            let torn = Array(bytes[goodLength...])
            let stamp = Int(time(nil))
            let asidePath = path.replacingSuffix(".jsonl", with: "") + ".torn-\(stamp)-\(goodLength).jsonl"
            let directory = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
            try FileIO.writeFileAtomically(torn, to: asidePath, directory: directory)
            try FileIO.truncate(descriptor, to: goodLength, path: path)
            try FileIO.sync(descriptor, path: path)
            recovery.setAsideFile = asidePath
            recovery.setAsideBytes = torn.count
        } else if goodLength > 0, bytes.last != 0x0A {
            try journal.appendDurably([0x0A])
        }
        return (journal, lines, recovery)
    }

    /// Appends whole lines and waits for them to reach the disk. On failure the file is cut
    /// back to its previous length and the error is thrown: nothing half-written stays.
    func appendDurably(_ bytes: [UInt8]) throws(CouchError) {
        do {
            try FileIO.write(descriptor, bytes, at: length, path: path)
            try FileIO.sync(descriptor, path: path)
        } catch {
            try? FileIO.truncate(descriptor, to: length, path: path)
            throw error
        }
        length += bytes.count
    }

    /// Reads a stored body back.
    func read(_ location: BodyLocation) throws(CouchError) -> [UInt8] {
        try FileIO.read(descriptor, at: location.offset, length: location.length, path: path)
    }
}

extension String {
    func replacingSuffix(_ suffix: String, with replacement: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) + replacement : self + replacement
    }
}
