#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
public import VCardKit

/// One card read from a contact file.
struct ScannedCard: Sendable {
    var uid: String?
    var hash: ContentHash
    var name: String?
    var bytes: [UInt8]
    var line: Int
}

/// A contact file read by a scan: its cards, or why it could not be read.
struct ScannedFile: Sendable {
    var name: String
    var stamp: FileStamp?
    var cards: [ScannedCard] = []
    var problem: StoreProblem?
    /// Whether writing the cards one after another gives the file back byte for byte.
    var isRewritable = false

    /// The largest contact file read: two cards of the largest size the reader accepts
    /// (``VCardReadOptions/maximumCardBytes``, 8 MB). A larger file is reported and left alone,
    /// so a huge file dropped in the folder cannot exhaust memory.
    static let maximumFileBytes = 2 * VCardReadOptions.lenient.maximumCardBytes

    /// Reads and hashes every card of `directory/name`.
    static func read(directory: String, name: String) -> ScannedFile {
        var file = ScannedFile(name: name)
        let bytes: [UInt8]
        do {
            (bytes, file.stamp) = try POSIX.readFile(directory + "/" + name, maximumBytes: maximumFileBytes)
        } catch where error.code == .invalidInput {
            file.problem = StoreProblem(code: "file-too-large", file: name,
                                        message: "\(error.message); it was left untouched")
            return file
        } catch {
            file.problem = StoreProblem(code: "unreadable-file", file: name,
                                        message: "cannot be read (\(error.message)); it was left untouched")
            return file
        }
        let result: VCardReadResult
        do {
            result = try VCardReader.read(bytes, sourceName: name, options: .deferringPlainCards)
        } catch {
            file.problem = StoreProblem(code: "invalid-file", file: name, message: error.message)
            return file
        }
        if let error = result.diagnostics.first(where: { $0.severity == .error }) {
            file.problem = StoreProblem(code: "invalid-file", file: name, line: error.location.line,
                                        message: "\(error.message) [\(error.code)]; the file was left untouched and its contacts unchanged until it is fixed")
            return file
        }
        guard !result.cards.isEmpty else {
            file.problem = StoreProblem(code: "invalid-file", file: name, message: "holds no vCard; the file was left untouched")
            return file
        }
        let writer = VCardWriter()
        var total = 0
        for card in result.cards {
            let cardBytes = writer.bytes(for: card)
            total += cardBytes.count
            file.cards.append(ScannedCard(uid: card.normalizedUID, hash: ContentHash(of: card), name: card.formattedName,
                                          bytes: cardBytes, line: card.location?.line ?? 1))
        }
        file.isRewritable = total == bytes.count
        return file
    }
}

extension VCard {
    /// The UID with surrounding white space (``CharacterSet/whitespaces``) removed; `nil` when
    /// missing or empty. What the address book, the import and the pull take as a card's UID.
    public var normalizedUID: String? {
        guard let uid else { return nil }
        // A UID that starts and ends with a printable ASCII character has no white space to
        // trim: returned as it is (Foundation's trimming was 4% of a push's time).
        if let first = uid.utf8.first, let last = uid.utf8.last, (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) {
            return uid
        }
        let trimmed = uid.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : trimmed
    }
}

extension AddressBook {
    func performOpeningScan(addingMissingUIDs: Bool, progress: (@Sendable (BookProgress) -> Void)?) async throws(ContactStoreError) {
        let listing = openingListing
        openingListing = nil
        openingScan = try await scan(addingMissingUIDs: addingMissingUIDs, listing: listing, progress: progress)
    }

    /// Finds the changes other programs made to the folder and records them in the journal.
    ///
    /// A file whose size, modification and change times and inode match what was recorded is
    /// not read; any other file is read and its cards hashed, so a file that was only touched
    /// records nothing. Each card of a file is a contact of its own. A new or changed card is
    /// dated by its file's modification time, bounded by the previous scan (or the time its
    /// previous version was recorded) and now, so that a clock set ahead or a copied old file
    /// cannot date an edit outside the time it can have been made in
    /// (``JournalEvent/edited``). Cards are matched to
    /// contacts by UID; a card without UID keeps the UID cardsync generated for it (matched by
    /// content, then by position in its file). A contact found in another file is a rename. A
    /// file that cannot be read is reported and its contacts are left as they were.
    ///
    /// ```swift
    /// let report = try await book.scan()
    /// print("\(report.count(.update)) edited, \(report.count(.delete)) deleted")
    /// ```
    /// - Parameters:
    ///   - addingMissingUIDs: write the generated UID into files (with one card) that have none.
    ///   - progress: called before the first file is read and after each batch of files, with the
    ///     files read and the files to read (not called when no file needs reading).
    /// - Returns: the events recorded and the problems found.
    public func scan(addingMissingUIDs: Bool = false,
                     progress: (@Sendable (BookProgress) -> Void)? = nil) async throws(ContactStoreError) -> ScanReport {
        try await scan(addingMissingUIDs: addingMissingUIDs, listing: nil, progress: progress)
    }

    /// ``scan(addingMissingUIDs:progress:)`` over `listing` when the folder was just listed (when opening).
    func scan(addingMissingUIDs: Bool, listing: FolderListing?,
              progress: (@Sendable (BookProgress) -> Void)?) async throws(ContactStoreError) -> ScanReport {
        var report = ScanReport()
        let listing = if let listing { listing } else { try FolderListing.read(directory, stamping: false) }
        for name in listing.undecodable where name.lowercased().hasSuffix(".vcf") {
            report.problems.append(StoreProblem(code: "undecodable-name", file: name,
                                                message: "the file name is not UTF-8; rename the file to read it"))
        }
        // While the index is not loaded the summary is current, and its stamps are the index's:
        // one parallel pass stats every file and compares it with the summary.
        let comparison = isIndexLoaded ? nil : compareWithSummary(listing)
        if let comparison, comparison.changed.isEmpty, comparison.liveSeen == summary.liveFileCount, !addingMissingUIDs {
            // Every file as the summary knows it, none gone: nothing to read or record.
            report.filesSeen = comparison.seenCount
            return report
        }
        let now = POSIX.now()
        let scanTime = clock.now()
        let previousScan = index.lastScan
        var toRead: [String] = []
        let goneFiles: [String]
        if let comparison {
            toRead = comparison.changed
            report.filesSeen = comparison.seenCount
            // Every file with live contacts was seen when as many were seen as the summary counts.
            if comparison.liveSeen == summary.liveFileCount {
                goneFiles = []
            } else {
                let present = comparison.seen
                goneFiles = index.uidsByFile.keys.filter { !present.contains($0) }
            }
        } else {
            var present: Set<String> = []
            for name in listing.names where SafeFileName.isContactFile(name) {
                guard let stamp = POSIX.stamp(directory + "/" + name) else { continue }
                present.insert(name)
                if index.stamps[name] != stamp { toRead.append(name) }
            }
            report.filesSeen = present.count
            goneFiles = index.uidsByFile.keys.filter { !present.contains($0) }
        }
        if addingMissingUIDs {
            // Files whose contacts have generated UIDs are read even when unchanged: they are
            // the files to write those UIDs into.
            var reading = Set(toRead)
            let gone = Set(goneFiles)
            for (file, uids) in index.uidsByFile where !reading.contains(file) && !gone.contains(file)
                && uids.contains(where: { index.live($0)?.isGeneratedUID == true }) {
                reading.insert(file)
            }
            toRead = Array(reading)
        }
        toRead.sort()
        var pool: Set<String> = []
        for file in goneFiles + toRead { pool.formUnion(index.uidsByFile[file] ?? []) }
        var generatedByHash: [ContentHash: [String]] = [:]
        for uid in pool {
            if let record = index.live(uid), record.isGeneratedUID, let hash = record.hash { generatedByHash[hash, default: []].append(uid) }
        }
        var claimed: [String: String] = [:]
        var unreadable: Set<String> = []
        var pending: [JournalEvent] = []
        var withText: Set<ContentHash> = []
        var newStamps: [String: FileStamp] = [:]

        /// When the card in `file` was made: its modification time, no earlier than the previous
        /// scan and the previous version, no later than now.
        func editTime(_ file: ScannedFile, previous: ContactRecord?) -> Int64 {
            let earliest = max(0, previousScan, previous?.modified ?? 0)
            let modified = file.stamp.map { $0.modified / 1_000_000 } ?? scanTime
            return min(max(modified, earliest), scanTime)
        }
        func event(_ operation: JournalEvent.Operation, uid: String, generated: Bool, file: ScannedFile, card: ScannedCard,
                   previous: ContactRecord?) -> JournalEvent {
            var includeText = false
            if index.cardOffsets[card.hash] == nil, !withText.contains(card.hash) {
                includeText = true
                withText.insert(card.hash)
            }
            var event = JournalEvent(operation: operation, uid: uid, file: file.name, hash: card.hash, previousHash: previous?.hash,
                                     source: .folder, name: card.name, card: includeText ? card.bytes : nil, isGeneratedUID: generated,
                                     previousFile: previous.flatMap { $0.file != file.name ? $0.file : nil })
            // Content unchanged (a rename): the version is as old as it was.
            event.edited = previous.flatMap { $0.hash == card.hash ? $0.editTime : nil } ?? editTime(file, previous: previous)
            return event
        }
        func emit(uid: String, generated: Bool, existing: ContactRecord?, file: ScannedFile, card: ScannedCard) {
            claimed[uid] = file.name
            guard let existing else {
                pending.append(event(.add, uid: uid, generated: generated, file: file, card: card, previous: nil))
                return
            }
            if existing.file == file.name && existing.hash == card.hash && existing.isGeneratedUID == generated { return }
            let operation: JournalEvent.Operation = existing.hash == card.hash && existing.file != file.name ? .rename : .update
            pending.append(event(operation, uid: uid, generated: generated, file: file, card: card, previous: existing))
        }

        if !toRead.isEmpty { progress?(BookProgress(done: 0, total: toRead.count)) }
        var start = 0
        while start < toRead.count {
            let batch = Array(toRead[start..<min(start + 1024, toRead.count)])
            start += batch.count
            let directory = self.directory
            let files = Parallel.map(batch, minimumPerWorker: 4) { ScannedFile.read(directory: directory, name: $0) }
            for var file in files {
                report.filesRead += 1
                if let problem = file.problem {
                    report.problems.append(problem)
                    unreadable.insert(file.name)
                    continue
                }
                var trackable = true
                let oldUIDs = index.uidsByFile[file.name] ?? []
                if addingMissingUIDs, file.cards.count == 1, file.isRewritable, file.cards[0].uid == nil {
                    let card = file.cards[0]
                    let existing = oldUIDs.compactMap { index.live($0) }.first { $0.isGeneratedUID && claimed[$0.uid] == nil }
                        ?? generatedByHash[card.hash]?.lazy.compactMap { self.index.live($0) }.first { claimed[$0.uid] == nil }
                    let uid = existing?.uid ?? UUID().uuidString.lowercased()
                    if let rewritten = Self.insertingUID(uid, into: card.bytes) {
                        do {
                            try POSIX.writeAtomically(rewritten, directory: self.directory, name: file.name, replacing: true)
                            file.cards[0].uid = uid
                            file.cards[0].bytes = rewritten
                            file.stamp = POSIX.stamp(self.directory + "/" + file.name)
                            report.filesGivenUIDs.append(file.name)
                        } catch {
                            report.problems.append(StoreProblem(code: "unwritable-file", file: file.name, message: error.message))
                        }
                    }
                } else if addingMissingUIDs, file.cards.contains(where: { $0.uid == nil }) {
                    report.problems.append(StoreProblem(code: "uid-not-added", file: file.name,
                                                        message: "has several cards or text outside its card; its generated UIDs were recorded in the journal only"))
                }
                for card in file.cards {
                    if let uid = card.uid {
                        if let owner = claimed[uid] {
                            trackable = false
                            report.problems.append(StoreProblem(
                                code: "duplicate-uid", file: file.name, line: card.line,
                                message: "UID \(uid) is also used by a card in \(owner); this card is not tracked until one of them gets another UID"))
                        } else if let existing = index.live(uid) {
                            if existing.file == file.name || pool.contains(uid) {
                                emit(uid: uid, generated: false, existing: existing, file: file, card: card)
                            } else {
                                trackable = false
                                report.problems.append(StoreProblem(
                                    code: "duplicate-uid", file: file.name, line: card.line,
                                    message: "UID \(uid) is also used by \(existing.file); this card is not tracked until one of them gets another UID"))
                            }
                        } else {
                            emit(uid: uid, generated: false, existing: nil, file: file, card: card)
                        }
                    } else {
                        let sameFile = oldUIDs.compactMap { index.live($0) }.filter { $0.isGeneratedUID && claimed[$0.uid] == nil }
                        let match = sameFile.first { $0.hash == card.hash }
                            ?? generatedByHash[card.hash]?.lazy.compactMap { self.index.live($0) }.first { claimed[$0.uid] == nil }
                            ?? sameFile.first
                        if let match {
                            emit(uid: match.uid, generated: true, existing: match, file: file, card: card)
                        } else {
                            emit(uid: UUID().uuidString.lowercased(), generated: true, existing: nil, file: file, card: card)
                        }
                    }
                }
                if trackable, let stamp = file.stamp, !stamp.isRacy(now: now) { newStamps[file.name] = stamp }
            }
            if pending.count >= 1024 {
                report.events.append(contentsOf: try await record(pending, synchronize: false).map(\.withoutCard))
                pending.removeAll(keepingCapacity: true)
            }
            progress?(BookProgress(done: start, total: toRead.count))
        }
        for uid in pool.sorted() where claimed[uid] == nil {
            guard let existing = index.live(uid), !unreadable.contains(existing.file) else { continue }
            pending.append(JournalEvent(operation: .delete, uid: uid, file: existing.file, hash: nil, previousHash: existing.hash,
                                        source: .folder, name: existing.name, isGeneratedUID: existing.isGeneratedUID))
        }
        report.events.append(contentsOf: try await record(pending, synchronize: false).map(\.withoutCard))
        try await journal.synchronize()
        index.lastScan = scanTime
        // Saved even when nothing else changed: the next run dates outside edits from it.
        if scanTime != previousScan { indexChanged = true }
        for file in goneFiles where index.uidsByFile[file] == nil { index.setStamp(nil, for: file) }
        for (file, stamp) in newStamps where index.uidsByFile[file] != nil {
            index.setStamp(stamp, for: file)
            indexChanged = true
        }
        return report
    }

    /// The contact files of `listing` as one stat of each (on every core) finds them, against the
    /// summary: those seen, how many of them the summary counts as holding live contacts, and
    /// those whose stamp is not the summary's (new, or changed since they were last read). The
    /// stamps the listing carries are used when it has them (taken when the book was opened).
    /// `nil` when the folder cannot be opened.
    private func compareWithSummary(_ listing: FolderListing) -> SummaryComparison? {
        guard let stamped = listing.stamped
                ?? FolderListing.stamp(listing.names.filter(SafeFileName.isContactFile), in: directory) else { return nil }
        let files = summary.files
        let parts = stride(from: 0, to: stamped.count, by: 8192).map { $0..<min($0 + 8192, stamped.count) }
        // Only counts and the changed names are collected here: the names of the files seen are
        // taken from `stamped` when they are needed (a file gone), not copied for every file.
        let tallies = Parallel.map(parts, minimumPerWorker: 1) { range -> (seen: Int, live: Int, changed: [String]) in
            var tally = (seen: 0, live: 0, changed: [String]())
            for position in range {
                guard let stamp = stamped[position].stamp else { continue }
                tally.seen += 1
                let tracked = files[stamped[position].name]
                if tracked?.isLive == true { tally.live += 1 }
                if tracked?.stamp != stamp { tally.changed.append(stamped[position].name) }
            }
            return tally
        }
        return SummaryComparison(stamped: stamped, seenCount: tallies.reduce(0) { $0 + $1.seen },
                                 liveSeen: tallies.reduce(0) { $0 + $1.live }, changed: tallies.flatMap(\.changed))
    }

    /// What ``compareWithSummary(_:)`` found.
    private struct SummaryComparison: Sendable {
        /// The contact files stamped, with `nil` for those gone or not regular files.
        let stamped: [FolderListing.StampedFile]
        let seenCount: Int
        let liveSeen: Int
        let changed: [String]

        /// The names of the files seen.
        var seen: Set<String> { Set(stamped.lazy.filter { $0.stamp != nil }.map(\.name)) }
    }

    /// The card's bytes with a `UID` line before its `END:VCARD` line, in the card's own line ends.
    static func insertingUID(_ uid: String, into bytes: [UInt8]) -> [UInt8]? {
        let upper = bytes.map { ($0 >= 0x61 && $0 <= 0x7A) ? $0 - 32 : $0 }
        let end = Array("END:VCARD".utf8)
        guard upper.count >= end.count else { return nil }
        var position: Int?
        var index = upper.count - end.count
        while index >= 0 {
            if upper[index..<(index + end.count)].elementsEqual(end), index == 0 || upper[index - 1] == 0x0A || upper[index - 1] == 0x0D {
                position = index
                break
            }
            index -= 1
        }
        guard let position else { return nil }
        let lineEnd: [UInt8] = position >= 2 && bytes[position - 2] == 0x0D && bytes[position - 1] == 0x0A ? [0x0D, 0x0A]
            : position >= 1 && bytes[position - 1] == 0x0D ? [0x0D] : [0x0A]
        var result = Array(bytes[0..<position])
        result.append(contentsOf: Array("UID:\(uid)".utf8))
        result.append(contentsOf: lineEnd)
        result.append(contentsOf: bytes[position...])
        return result
    }
}

extension JournalEvent {
    /// The event without its card bytes, for reports.
    var withoutCard: JournalEvent {
        var copy = self
        copy.card = nil
        return copy
    }
}
