public import Foundation
import VCardKit

/// What `check` found.
public struct CheckReport: Sendable {
    /// Lines in the journal.
    public var journalLines = 0
    /// Live contacts.
    public var contacts = 0
    /// Contact files read and hashed.
    public var filesChecked = 0
    /// Whether the index had to be rebuilt because it disagreed with the journal.
    public var indexRebuilt = false
    /// Every disagreement found; empty when journal, index and folder agree.
    public var problems: [StoreProblem] = []

    /// Whether journal, index and folder agree.
    public var isConsistent: Bool { problems.isEmpty }
}

/// What `compact` did.
public struct CompactReport: Sendable {
    /// Journal lines before compaction.
    public var linesBefore = 0
    /// Journal lines kept.
    public var linesAfter = 0
    /// Journal size before, in bytes.
    public var bytesBefore: Int64 = 0
    /// Journal size after, in bytes.
    public var bytesAfter: Int64 = 0
}

/// What `check --repair` did.
public struct RepairReport: Sendable {
    /// The line numbers set aside.
    public var damagedLines: [Int] = []
    /// Where they were set aside.
    public var corruptFile: String?
}

extension AddressBook {
    /// Verifies that journal, index and folder agree: every journal line is intact and in
    /// sequence; the index equals a replay of the journal (it is rebuilt if not); every live
    /// contact's file holds it with the recorded content hash (every file is read and hashed,
    /// without the size-and-time shortcut); every contact file is tracked; every version's text
    /// is in the journal.
    ///
    /// ```swift
    /// let report = try await book.check()
    /// if !report.isConsistent { report.problems.forEach { print($0) } }
    /// ```
    public func check() async throws(ContactStoreError) -> CheckReport {
        var report = CheckReport()
        var damage: [JournalFile.Damage] = []
        var replayed = BookIndex()
        var lines = 0
        try withUnsafeMutablePointer(to: &damage) { (pointer) throws(ContactStoreError) in
            try JournalFile.read(journalPath, repairHint: repairHint, collectingDamage: pointer) { line throws(ContactStoreError) in
                replayed.apply(line.event, offset: line.offset)
                lines = line.number
            }
        }
        let journalName = ".cardsync/" + Self.journalName
        for item in damage {
            report.problems.append(StoreProblem(code: "journal-damaged", file: journalName, line: item.number,
                                                message: "\(item.reason); run `\(repairHint)` to set it aside"))
        }
        report.journalLines = max(lines, damage.map(\.number).max() ?? 0)
        if replayed.lastSequence != index.lastSequence || !Self.sameContent(replayed, index) {
            report.problems.append(StoreProblem(code: "index-mismatch", file: ".cardsync/" + Self.snapshotName,
                                                message: "the index disagreed with the journal; it was rebuilt from the journal"))
            replayed.stamps = [:]
            replayed.journalLines = index.journalLines
            replayed.journalSize = index.journalSize
            replaceIndex(with: replayed)
            report.indexRebuilt = true
        }
        // Folder.
        let directory = self.directory
        let listing = try POSIX.listDirectory(directory)
        let names = listing.names.filter { SafeFileName.isContactFile($0) && POSIX.stamp(directory + "/" + $0) != nil }.sorted()
        for name in listing.names where name.hasSuffix(POSIX.temporarySuffix) {
            report.problems.append(StoreProblem(code: "temporary-file", file: name, message: "a temporary file was left behind by an interrupted write"))
        }
        var seenFiles: Set<String> = []
        var start = 0
        while start < names.count {
            let batch = Array(names[start..<min(start + 1024, names.count)])
            start += batch.count
            let files = Parallel.map(batch, minimumPerWorker: 4) { ScannedFile.read(directory: directory, name: $0) }
            for file in files {
                report.filesChecked += 1
                seenFiles.insert(file.name)
                guard let uids = index.uidsByFile[file.name] else {
                    report.problems.append(StoreProblem(code: "untracked-file", file: file.name,
                                                        message: file.problem?.message ?? "is not in the journal; the next scan records it"))
                    continue
                }
                if let problem = file.problem {
                    report.problems.append(problem)
                    continue
                }
                var unclaimed = uids.compactMap { index.live($0) }
                for card in file.cards {
                    let position = card.uid.map { uid in unclaimed.firstIndex { $0.uid == uid } }
                        ?? unclaimed.firstIndex { $0.isGeneratedUID && $0.hash == card.hash }
                    guard let position else {
                        report.problems.append(StoreProblem(code: "untracked-card", file: file.name, line: card.line,
                                                            message: "this card (UID \(card.uid ?? "none")) is not recorded as a contact of this file"))
                        continue
                    }
                    let record = unclaimed.remove(at: position)
                    if record.hash != card.hash {
                        report.problems.append(StoreProblem(code: "hash-mismatch", file: file.name, line: card.line,
                                                            message: "\(record.uid) differs from its last recorded version; the next scan records the edit"))
                    }
                }
                for record in unclaimed {
                    report.problems.append(StoreProblem(code: "missing-card", file: file.name,
                                                        message: "\(record.uid) is recorded in this file but is not in it"))
                }
            }
        }
        for (file, uids) in index.uidsByFile where !seenFiles.contains(file) {
            report.problems.append(StoreProblem(code: "missing-file", file: file,
                                                message: "holds \(uids.joined(separator: ", ")) according to the journal, but does not exist"))
        }
        for record in index.liveRecords where record.hash.flatMap({ index.cardOffsets[$0] }) == nil {
            report.problems.append(StoreProblem(code: "missing-text", file: record.file,
                                                message: "the journal holds no text for the current version of \(record.uid)"))
        }
        var info = stat()
        if stat(metaDirectory, &info) == 0, info.st_mode & 0o077 != 0 {
            report.problems.append(StoreProblem(code: "permissions", file: ".cardsync",
                                                message: "is readable by other users; run `chmod 700 \(metaDirectory)`"))
        }
        report.contacts = index.liveCount
        report.problems.sort { ($0.file, $0.line ?? 0) < ($1.file, $1.line ?? 0) }
        return report
    }

    private static func sameContent(_ a: BookIndex, _ b: BookIndex) -> Bool {
        guard a.records.count == b.records.count, a.cardOffsets == b.cardOffsets,
              a.checkpoints == b.checkpoints, a.syncStates == b.syncStates else { return false }
        for (uid, record) in a.records {
            guard let other = b.records[uid], other.file == record.file, other.hash == record.hash,
                  other.isGeneratedUID == record.isGeneratedUID, other.lastHash == record.lastHash else { return false }
        }
        return true
    }

    /// Rewrites the journal keeping, for each contact, its last `keepingVersions` versions (and
    /// any later delete), or everything when `nil`. The text of every kept version stays in the
    /// journal. The new journal is written beside the old one, synced, and moved over it, so an
    /// interruption leaves one or the other.
    ///
    /// ```swift
    /// let report = try await book.compact(keepingVersions: 3)
    /// ```
    public func compact(keepingVersions: Int? = nil) async throws(ContactStoreError) -> CompactReport {
        var report = CompactReport()
        try await journal.synchronize()
        report.bytesBefore = POSIX.stamp(journalPath)?.size ?? 0
        // Pass 1: which events to keep.
        var versions: [String: [(sequence: Int, hash: ContentHash?)]] = [:]
        // Sync state: only the latest `sync` event per remote and contact, and the latest checkpoint per remote, matter.
        var latestSyncState: [String: Int] = [:]
        try JournalFile.read(journalPath, repairHint: repairHint) { line throws(ContactStoreError) in
            report.linesBefore += 1
            switch line.event.operation {
            case .synced: latestSyncState[(line.event.remote ?? "") + "\u{0}" + line.event.uid] = line.event.sequence
            case .checkpoint: latestSyncState[(line.event.remote ?? "") + "\u{0}"] = line.event.sequence
            default: versions[line.event.uid, default: []].append((line.event.sequence, line.event.hash))
            }
        }
        var firstKept: [String: Int] = [:]
        if let keep = keepingVersions {
            let keep = max(1, keep)
            for (uid, events) in versions {
                let withHash = events.filter { $0.hash != nil }
                firstKept[uid] = withHash.count > keep ? withHash[withHash.count - keep].sequence : 0
            }
        }
        var needed: Set<ContentHash> = []
        for (uid, events) in versions {
            for event in events where event.sequence >= (firstKept[uid] ?? 0) { if let hash = event.hash { needed.insert(hash) } }
        }
        // Pass 2: write the kept lines, moving card text from dropped lines to the first kept line that needs it.
        let temporaryName = POSIX.temporaryName(for: Self.journalName)
        let temporary = metaDirectory + "/" + temporaryName
        _ = unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io(temporary, "cannot write the compacted journal", errno: errno) }
        var written: Set<ContentHash> = []
        var stash: [ContentHash: [UInt8]] = [:]
        var buffer: [UInt8] = []
        var lastSequence = 0
        do throws(ContactStoreError) {
            try JournalFile.read(journalPath, includingCards: true, repairHint: repairHint) { line throws(ContactStoreError) in
                var event = line.event
                let kept: Bool = switch event.operation {
                case .synced: latestSyncState[(event.remote ?? "") + "\u{0}" + event.uid] == event.sequence
                case .checkpoint: latestSyncState[(event.remote ?? "") + "\u{0}"] == event.sequence
                default: event.sequence >= (firstKept[event.uid] ?? 0)
                }
                if let hash = event.hash {
                    if let card = event.card, !written.contains(hash), needed.contains(hash), !kept { stash[hash] = card }
                    if kept {
                        if written.contains(hash) {
                            event.card = nil
                        } else if event.card == nil, let card = stash.removeValue(forKey: hash) {
                            event.card = card
                        }
                        if event.card != nil { written.insert(hash) }
                    }
                }
                guard kept else { return }
                buffer.append(contentsOf: JournalLine.encode(event))
                lastSequence = event.sequence
                report.linesAfter += 1
                if buffer.count >= 1 << 22 {
                    try POSIX.writeAll(fd, buffer, path: temporary)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            try POSIX.writeAll(fd, buffer, path: temporary)
            guard fsync(fd) == 0 else { throw ContactStoreError.io(temporary, "cannot sync", errno: errno) }
            POSIX.closeFile(fd)
        } catch {
            POSIX.closeFile(fd)
            _ = unlink(temporary)
            throw error
        }
        try POSIX.commit(temporary: temporary, to: journalPath, replacing: true)
        try POSIX.sync(metaDirectory)
        try await journal.reopen(lastSequence: max(lastSequence, index.lastSequence), lineCount: report.linesAfter)
        let stamps = index.stamps
        var (rebuilt, _) = try Self.loadIndex(journalPath: journalPath, snapshotPath: "/nonexistent", repairHint: repairHint)
        rebuilt.stamps = stamps
        rebuilt.lastScan = index.lastScan
        rebuilt.lastSequence = max(rebuilt.lastSequence, index.lastSequence)
        replaceIndex(with: rebuilt)
        try saveSnapshot()
        report.bytesAfter = POSIX.stamp(journalPath)?.size ?? 0
        return report
    }

    /// Sets aside damaged journal lines: moves them to `journal.jsonl.corrupt` and rewrites the
    /// journal without them (atomically), then removes the index so that it is rebuilt. Works on a
    /// book that cannot be opened because of the damage.
    ///
    /// ```swift
    /// let report = try AddressBook.repairJournal(at: folder)
    /// ```
    public static func repairJournal(at url: URL) throws(ContactStoreError) -> RepairReport {
        let directory = normalize(url)
        let meta = directory + "/.cardsync"
        guard POSIX.isDirectory(meta) else {
            throw ContactStoreError(code: .notAnAddressBook, message: "is not an address book (no .cardsync folder)", path: directory)
        }
        let lockFD = open(meta + "/" + lockName, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lockFD >= 0, flock(lockFD, LOCK_EX | LOCK_NB) == 0 else {
            if lockFD >= 0 { POSIX.closeFile(lockFD) }
            throw ContactStoreError(code: .locked, message: "another cardsync process has this address book open", path: directory)
        }
        defer { flock(lockFD, LOCK_UN); POSIX.closeFile(lockFD) }
        let path = meta + "/" + journalName
        let bytes = (try? POSIX.readFile(path).bytes) ?? []
        var kept: [UInt8] = []
        var setAside: [UInt8] = []
        var report = RepairReport()
        var lastSequence = 0
        var number = 0
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            number += 1
            let line = Array(bytes[start..<end])
            start = end + 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) { continue }
            let event = try? JournalLine.decode(line, includingCard: false)
            if let event, event.sequence > lastSequence, end < bytes.count {
                lastSequence = event.sequence
                kept.append(contentsOf: line)
                kept.append(0x0A)
            } else {
                report.damagedLines.append(number)
                setAside.append(contentsOf: line)
                setAside.append(0x0A)
            }
        }
        guard !report.damagedLines.isEmpty else { return report }
        let corrupt = path + ".corrupt"
        let fd = open(corrupt, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io(corrupt, "cannot write", errno: errno) }
        defer { POSIX.closeFile(fd) }
        try POSIX.writeAll(fd, setAside, path: corrupt)
        fsync(fd)
        try POSIX.writeAtomically(kept, directory: meta, name: journalName, replacing: true)
        _ = unlink(meta + "/" + snapshotName)
        _ = unlink(meta + "/" + deltaName)
        report.corruptFile = corrupt
        return report
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
