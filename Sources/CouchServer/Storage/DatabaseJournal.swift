#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation
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
        let bytes: UnsafeBufferPointer<UInt8>
        do {
            bytes = try FileIO.mapWhole(descriptor, path: path)
        } catch {
            close(descriptor)
            throw error
        }
        defer { FileIO.unmap(bytes) }
        var lines: [Line] = []
        var recovery = JournalRecovery(setAsideFile: nil, setAsideBytes: 0, skippedLineOffsets: [])
        var start = 0
        var goodLength = 0
        let parsedLines = readLines(bytes)
        for (end, parsed) in parsedLines {
            let newline: Int? = end < bytes.count ? end : nil
            if let object = parsed {
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

    /// Every line of `bytes` (up to each line feed, or the end) with its end and what it holds
    /// when it is a JSON object (`nil`: damaged, or cut short), read on every core.
    ///
    /// A document line (`{"t":"doc",…,"bytes":N,"body":{…}}`, as ``Database`` writes it) is
    /// read without building its body, which opening does not need (it is read back from the
    /// file when asked for): the members before the body are parsed and the body is checked to
    /// be whole JSON (``JSONParser/validate(_:depth:options:)``), so a line is kept or refused
    /// exactly as parsing it whole would. Its ``Line/value`` then has no `body` member. Building
    /// every body (most of a contacts database's bytes) was most of the time of opening one.
    static func readLines(_ bytes: UnsafeBufferPointer<UInt8>) -> [(end: Int, object: JSONObject?)] {
        var ranges: [Range<Int>] = []
        if let base = bytes.baseAddress {
            var start = 0
            while start < bytes.count {
                let found = memchr(base + start, 0x0A, bytes.count - start)
                let end = found.map { UnsafeRawPointer($0) - UnsafeRawPointer(base) } ?? bytes.count
                ranges.append(start..<end)
                start = end + 1
            }
        }
        let lineRanges = ranges
        let parts = max(1, min(ProcessInfo.processInfo.activeProcessorCount, ranges.count / 256))
        let results = UnsafeMutableBufferPointer<JSONObject?>.allocate(capacity: ranges.count)
        results.initialize(repeating: nil)
        defer { results.deinitialize(); results.deallocate() }
        // Each worker writes only its own part of the buffer, which outlives concurrentPerform.
        nonisolated(unsafe) let shared = results
        nonisolated(unsafe) let text = bytes
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let per = (lineRanges.count + parts - 1) / parts
            for index in (part * per)..<min((part + 1) * per, lineRanges.count) {
                let line = UnsafeBufferPointer(rebasing: text[lineRanges[index]])
                shared[index] = documentLineWithoutBody(line) ?? (try? JSONParser.parse(line))?.objectValue
            }
        }
        return ranges.indices.map { (ranges[$0].upperBound, results[$0]) }
    }

    /// How a document line starts, and the member that holds its body (made once, not per line).
    private static let documentLineOpening = Array(#"{"t":"doc","#.utf8)
    private static let bodySeparator = Array(#","body":"#.utf8)

    /// The members of document line `line` before its body, when the line is one as ``Database``
    /// writes it and its body is whole JSON; `nil` for any other line (then parsed whole).
    static func documentLineWithoutBody(_ line: UnsafeBufferPointer<UInt8>) -> JSONObject? {
        let opening = documentLineOpening
        let separator = bodySeparator
        guard line.count > opening.count + separator.count, line.last == UInt8(ascii: "}"),
              line.starts(with: opening) else { return nil }
        // The first `,"body":` is the member itself: inside a JSON string every `"` follows a
        // backslash, never a comma.
        var at = opening.count
        let limit = line.count - separator.count
        while at <= limit {
            if line[at] == UInt8(ascii: ","), line[at + 1] == UInt8(ascii: "\""),
               UnsafeBufferPointer(rebasing: line[at..<(at + separator.count)]).elementsEqual(separator) { break }
            at += 1
        }
        guard at <= limit else { return nil }
        var head = Array(line[..<at])
        head.append(UInt8(ascii: "}"))
        guard let members = (try? JSONParser.parse(head))?.objectValue,
              (try? JSONParser.validate(UnsafeBufferPointer(rebasing: line[(at + separator.count)..<(line.count - 1)]), depth: 1)) != nil
        else { return nil }
        return members
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
