#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading the journal file: every line in order, or the last line, without holding the file in
/// memory.
enum JournalFile {
    /// One line read from the journal.
    struct Line {
        /// The event (without its card text unless asked for; ``JournalEvent/card`` is then empty
        /// but not `nil` when the line carries text).
        var event: JournalEvent
        /// The byte offset where the line starts.
        var offset: Int64
        /// The 1-based line number (counted from `firstLineNumber` when reading from an offset).
        var number: Int
    }

    /// What went wrong with one line, for `check --repair` and reports.
    struct Damage: Sendable {
        var number: Int
        var offset: Int64
        var length: Int
        var reason: String
    }

    /// The largest chunk a read of the journal asks for at once.
    static let chunkBytes = 4 << 20
    /// The smallest (a read of a short tail).
    static let smallestChunkBytes = 64 << 10

    /// Reads every line from `offset` and hands it to `body`, verifying checksums and that
    /// sequence numbers increase.
    ///
    /// - Parameters:
    ///   - collectingDamage: when non-nil, damaged lines are recorded there and skipped instead
    ///     of stopping the read.
    /// - Throws: ``ContactStoreError/Code/journalDamaged`` naming the first damaged line and the
    ///   repair command; ``ContactStoreError/Code/unsupportedJournal`` for lines of a newer format.
    static func read(_ path: String, from offset: Int64 = 0, firstLineNumber: Int = 1, previousSequence: Int = 0,
                     includingCards: Bool = false, repairHint: String, collectingDamage: UnsafeMutablePointer<[Damage]>? = nil,
                     _ body: (Line) throws(ContactStoreError) -> Void) throws(ContactStoreError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return }
            throw .io(path, "cannot open the journal", errno: errno)
        }
        defer { close(fd) }
        var buffer: [UInt8] = []
        var bufferStart = offset
        var position = offset
        var lineNumber = firstLineNumber
        var lastSequence = previousSequence
        // Chunks of up to 4 MiB, but no larger than what is left to read (a book opening reads
        // the few lines after its index snapshot: zeroing 4 MiB for them, page by page, was a
        // twentieth of a run that finds nothing to do). The loop reads on to the end whatever
        // the size, so a file that grows meanwhile is still read whole.
        var info = stat()
        let left = fstat(fd, &info) == 0 ? max(0, Int64(info.st_size) - offset) : Int64(Self.chunkBytes)
        var chunk = [UInt8](repeating: 0, count: Int(min(Int64(Self.chunkBytes), max(left, Int64(Self.smallestChunkBytes)))))
        var finished = false
        while !finished {
            let count = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(position)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .io(path, "cannot read the journal", errno: errno)
            }
            if count == 0 { finished = true } else {
                position += Int64(count)
                buffer.append(contentsOf: chunk[0..<count])
            }
            // The whole lines held: those that end in a line feed, and the last one at the end.
            var lineRanges: [Range<Int>] = []
            var consumed = 0
            buffer.withUnsafeBytes { raw in
                var at = 0
                while at < raw.count {
                    let rest = UnsafeRawBufferPointer(rebasing: raw[at...])
                    let end: Int
                    if let found = memchr(rest.baseAddress!, 0x0A, rest.count) {
                        end = at + (UnsafeRawPointer(found) - rest.baseAddress!)
                    } else if finished {
                        end = raw.count
                    } else {
                        break
                    }
                    lineRanges.append(at..<end)
                    at = end + 1
                }
                consumed = min(at, raw.count)
            }
            // Decoded on every core (most of reading a long journal back), then handed on in order.
            let decoded = buffer.withUnsafeBytes { raw in
                nonisolated(unsafe) let bytes = raw
                return Parallel.map(lineRanges, minimumPerWorker: 64) { range -> Result<JournalEvent, JournalLineError>? in
                    let lineBytes = UnsafeRawBufferPointer(rebasing: bytes[range])
                    guard !lineBytes.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) else { return nil }
                    do throws(JournalLineError) { return .success(try JournalLine.decode(lineBytes, includingCard: includingCards)) } catch {
                        return .failure(error)
                    }
                }
            }
            var failure: ContactStoreError?
            for (index, range) in lineRanges.enumerated() {
                let lineOffset = bufferStart + Int64(range.lowerBound)
                if let outcome = decoded[index] {
                    do {
                        let event = try outcome.get()
                        guard event.sequence > lastSequence else {
                            throw JournalLineError(reason: "seq \(event.sequence) does not follow seq \(lastSequence)")
                        }
                        lastSequence = event.sequence
                        try body(Line(event: event, offset: lineOffset, number: lineNumber))
                    } catch let problem as JournalLineError {
                        if problem.isNewerFormat {
                            failure = ContactStoreError(code: .unsupportedJournal, message: problem.reason, path: path, line: lineNumber)
                            break
                        }
                        if let collectingDamage {
                            collectingDamage.pointee.append(Damage(number: lineNumber, offset: lineOffset,
                                                                   length: range.count, reason: problem.reason))
                        } else {
                            failure = ContactStoreError(
                                code: .journalDamaged,
                                message: "journal line \(lineNumber) is damaged (\(problem.reason)); run `\(repairHint)` to set it aside and rebuild from the rest",
                                path: path, line: lineNumber)
                            break
                        }
                    } catch let error as ContactStoreError {
                        failure = error
                        break
                    } catch {
                        failure = ContactStoreError(code: .io, message: "\(error)", path: path, line: lineNumber)
                        break
                    }
                }
                lineNumber += 1
            }
            if let failure { throw failure }
            if consumed > 0 {
                if consumed >= buffer.count { buffer.removeAll(keepingCapacity: true) } else { buffer.removeFirst(consumed) }
                bufferStart += Int64(consumed)
            }
        }
    }

    /// Reads the lines that end by `end` from the last back towards the first, handing each
    /// event (without its card text) to `body` until it returns `false`: what `log --limit`
    /// needs reads the journal's end, not all of it.
    ///
    /// - Returns: `false` when a line does not decode (damaged, or of a newer format) or the
    ///   sequence numbers do not fall: the caller then reads forward with ``read(_:from:firstLineNumber:previousSequence:includingCards:repairHint:collectingDamage:_:)``,
    ///   which names the line and what to do. `true` when `body` stopped or the start was reached.
    static func readBackward(_ path: String, endingAt end: Int64,
                             _ body: (JournalEvent) -> Bool) throws(ContactStoreError) -> Bool {
        guard let (fd, size) = try openForReading(path) else { return true }
        defer { close(fd) }
        var position = min(size, end)
        // The bytes after `position` not yet handed on: the start of a line whose beginning is
        // in an earlier chunk.
        var pending: [UInt8] = []
        var nextSequence = Int.max
        // Hands on the line `bytes` (no line feed); `nil` to go on, or whether to stop cleanly.
        func take(_ bytes: ArraySlice<UInt8>) -> Bool? {
            guard bytes.contains(where: { $0 != 0x20 && $0 != 0x0D && $0 != 0x09 }) else { return nil }
            let decoded = bytes.withUnsafeBytes { raw -> JournalEvent? in try? JournalLine.decode(raw, includingCard: false) }
            guard var event = decoded, event.sequence < nextSequence else { return false }
            nextSequence = event.sequence
            event.card = nil
            return body(event) ? nil : true
        }
        while position > 0 {
            let length = Int(min(Int64(1 << 20), position))
            position -= Int64(length)
            var data = try readFully(fd, path, count: length, at: position)
            data.append(contentsOf: pending)
            var lineEnd = data.count
            while let newline = data[..<lineEnd].lastIndex(of: 0x0A) {
                if let stop = take(data[(newline + 1)..<lineEnd]) { return stop }
                lineEnd = newline
            }
            pending = Array(data[..<lineEnd])
        }
        return take(pending[...]) ?? true
    }

    /// The journal opened for reading, with its size; `nil` when there is no journal yet.
    private static func openForReading(_ path: String) throws(ContactStoreError) -> (descriptor: Int32, size: Int64)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw .io(path, "cannot open the journal", errno: errno)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let failure = errno
            close(fd)
            throw .io(path, "cannot stat the journal", errno: failure)
        }
        return (fd, Int64(info.st_size))
    }

    /// `count` bytes of the journal at `offset` (a short read past its end is an error).
    private static func readFully(_ fd: Int32, _ path: String, count: Int, at offset: Int64) throws(ContactStoreError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + filled, count - filled, off_t(offset) + off_t(filled)) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { throw .io(path, "cannot read the journal", errno: got < 0 ? errno : EIO) }
            filled += got
        }
        return bytes
    }

    /// The last line of the journal that ends before `end`: its offset and bytes (without the line
    /// feed), and whether it was ended by a line feed. `nil` for an empty file.
    static func lastLine(_ path: String, endingAt end: Int64? = nil) throws(ContactStoreError) -> (offset: Int64, bytes: [UInt8], terminated: Bool)? {
        guard let (fd, fileSize) = try openForReading(path) else { return nil }
        defer { close(fd) }
        let size = min(fileSize, end ?? fileSize)
        guard size > 0 else { return nil }
        var tail: [UInt8] = []
        var position = size
        var terminated = false
        var first = true
        while position > 0 {
            let length = Int(min(Int64(1 << 16), position))
            position -= Int64(length)
            var chunk = try readFully(fd, path, count: length, at: position)
            if first {
                first = false
                if chunk.last == 0x0A { terminated = true; chunk.removeLast() }
            }
            if let newline = chunk.lastIndex(of: 0x0A) {
                tail.insert(contentsOf: chunk[(newline + 1)...], at: 0)
                return (position + Int64(newline + 1), tail, terminated)
            }
            tail.insert(contentsOf: chunk, at: 0)
        }
        return (0, tail, terminated)
    }
}
