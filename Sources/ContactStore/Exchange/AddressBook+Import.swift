import Foundation
import VCardKit
import VCardXML

/// A card read from an import source, parsed and hashed.
struct PreparedCard: Sendable {
    var card: VCard
    var hash: ContentHash
    var uid: String?
    var name: String?
    var bytes: [UInt8]
    var line: Int
}

extension AddressBook {
    /// How many cards are decided and written together: one `syncfs`, one journal write and one
    /// `fsync` per batch.
    static let importBatchSize = 1024

    /// Imports contacts: each new contact becomes one file, written atomically, and one `add`
    /// event. A card whose content hash is already in the book is reported and skipped (unless
    /// `onDuplicate` is `.keep`), so running an interrupted import again finishes it without
    /// duplicates. A card whose UID is already in the book with other content updates that
    /// contact (its earlier version stays restorable).
    ///
    /// ```swift
    /// let report = try await book.importContacts(from: [.file("phone-export.vcf")])
    /// for duplicate in report.duplicates { print("\(duplicate.source):\(duplicate.line): duplicate of \(duplicate.existingUID)") }
    /// ```
    /// - Parameters:
    ///   - sources: vCard (2.1, 3.0, 4.0), jCard or xCard inputs; the format is detected per source.
    ///   - onDuplicate: skip (default) or keep cards whose content is already in the book.
    ///   - progress: called after each batch of cards.
    /// - Throws: ``ContactStoreError`` when a source cannot be opened or the book cannot be written;
    ///   cards that cannot be read are reported in ``ImportReport/diagnostics`` instead.
    public func importContacts(from sources: [ContactSource], onDuplicate: DuplicatePolicy = .skip,
                               progress: (@Sendable (ImportProgress) -> Void)? = nil) async throws(ContactStoreError) -> ImportReport {
        var report = ImportReport()
        var importedUIDs: Set<String> = []
        for source in sources {
            let reader = try source.makeReader()
            let total = reader.totalSize
            guard let first = try reader.next() else {
                report.diagnostics.append(Diagnostic(severity: .error, code: "empty-input", message: "the input is empty: it holds no contact",
                                                     location: SourceLocation(source: source.name, line: 1, column: 1)))
                continue
            }
            func progressed() {
                progress?(ImportProgress(source: source.name, bytesRead: reader.bytesRead, totalBytes: total,
                                         cardsRead: report.cardsRead, added: report.added, duplicates: report.duplicates.count))
            }
            switch ContactFormat.detect(first.prefix(256)) {
            case .vcard:
                // Two batches in flight: while batch N is decided, written and journalled here,
                // batch N+1 is parsed and hashed on the other threads. The order of the batches,
                // and so every decision, is the same as one batch after the other.
                // Plain 3.0 and 4.0 cards are hashed, copied and asked for their UID and FN
                // from their lines, without building their properties.
                var parser = VCardParser(framingOnly: source.name, options: .deferringPlainCards)
                var frames: [VCardFrame] = []
                var parsing: Task<[ParsedFrame], Never>?
                var chunk: ArraySlice<UInt8>? = first
                while let bytes = chunk {
                    parser.feed(bytes)
                    while let frame = parser.nextFrame() {
                        frames.append(frame)
                        if frames.count >= Self.importBatchSize {
                            let next = Self.startParsing(frames)
                            frames.removeAll(keepingCapacity: true)
                            if let batch = parsing {
                                let parsed = await batch.value
                                try await importBatch(Self.keepingParsed(parsed, into: &report), source: source.name, onDuplicate: onDuplicate,
                                                      importedUIDs: &importedUIDs, report: &report)
                                progressed()
                            }
                            parsing = next
                        }
                    }
                    report.diagnostics.append(contentsOf: parser.takeDiagnostics())
                    chunk = try reader.next()
                }
                parser.finish()
                while let frame = parser.nextFrame() { frames.append(frame) }
                report.diagnostics.append(contentsOf: parser.takeDiagnostics())
                let last = Self.startParsing(frames)
                for batch in [parsing, last].compactMap({ $0 }) {
                    let parsed = await batch.value
                    try await importBatch(Self.keepingParsed(parsed, into: &report), source: source.name, onDuplicate: onDuplicate,
                                          importedUIDs: &importedUIDs, report: &report)
                    progressed()
                }
            case .jcard:
                var parser = JCardParser(sourceName: source.name)
                var cards: [VCard] = []
                var chunk: ArraySlice<UInt8>? = first
                while let bytes = chunk {
                    parser.feed(bytes)
                    while let card = parser.nextCard() { cards.append(card) }
                    report.diagnostics.append(contentsOf: parser.takeDiagnostics())
                    if cards.count >= Self.importBatchSize {
                        try await importCards(cards, source: source.name, onDuplicate: onDuplicate, importedUIDs: &importedUIDs, report: &report)
                        cards.removeAll(keepingCapacity: true)
                        progressed()
                    }
                    chunk = try reader.next()
                }
                parser.finish()
                while let card = parser.nextCard() { cards.append(card) }
                report.diagnostics.append(contentsOf: parser.takeDiagnostics())
                try await importCards(cards, source: source.name, onDuplicate: onDuplicate, importedUIDs: &importedUIDs, report: &report)
                progressed()
            case .xcard:
                var head: ArraySlice<UInt8>? = first
                var readFailure: ContactStoreError?
                let parser = XCardParser(sourceName: source.name, chunks: {
                    if let bytes = head { head = nil; return Array(bytes) }
                    guard readFailure == nil else { return nil }
                    do throws(ContactStoreError) { return try reader.next().map(Array.init) } catch { readFailure = error; return nil }
                })
                var cards: [VCard] = []
                while true {
                    let card = parser.nextCard()
                    if let card { cards.append(card) }
                    if cards.count >= Self.importBatchSize || (card == nil && !cards.isEmpty) {
                        report.diagnostics.append(contentsOf: parser.takeDiagnostics())
                        try await importCards(cards, source: source.name, onDuplicate: onDuplicate, importedUIDs: &importedUIDs, report: &report)
                        cards.removeAll(keepingCapacity: true)
                        progressed()
                    }
                    if card == nil { break }
                }
                report.diagnostics.append(contentsOf: parser.takeDiagnostics())
                if let readFailure { throw readFailure }
            }
        }
        return report
    }

    /// Hashes a batch of jCard or xCard cards on every core, keeps those whose text reads back,
    /// and imports them.
    private func importCards(_ cards: [VCard], source: String, onDuplicate: DuplicatePolicy,
                             importedUIDs: inout Set<String>, report: inout ImportReport) async throws(ContactStoreError) {
        guard !cards.isEmpty else { return }
        let prepared = Self.keepingReadable(Parallel.map(cards) { Self.prepare($0) }, source: source, into: &report)
        try await importBatch(prepared, source: source, onDuplicate: onDuplicate, importedUIDs: &importedUIDs, report: &report)
    }

    /// A frame parsed and hashed: the card (unless it could not be recovered) and the parser's notes.
    typealias ParsedFrame = (card: PreparedCard?, diagnostics: [Diagnostic])

    /// Starts parsing and hashing frames on every core, off the book's executor, so that the
    /// caller can write the previous batch meanwhile.
    static func startParsing(_ frames: [VCardFrame]) -> Task<[ParsedFrame], Never> {
        Task.detached { parse(frames) }
    }

    /// Parses and hashes frames on every core.
    static func parse(_ frames: [VCardFrame]) -> [ParsedFrame] {
        Parallel.map(frames) { frame -> ParsedFrame in
            let (card, diagnostics) = frame.parse()
            return (card.map { prepare($0) }, diagnostics)
        }
    }

    /// The parsed cards that can be imported, their notes added to `report` (a card with an
    /// error is left out and reported).
    static func keepingParsed(_ results: [ParsedFrame], into report: inout ImportReport) -> [PreparedCard] {
        var prepared: [PreparedCard] = []
        prepared.reserveCapacity(results.count)
        for (card, diagnostics) in results {
            report.diagnostics.append(contentsOf: diagnostics)
            guard let card else { continue }
            if let error = diagnostics.first(where: { $0.severity == .error }) {
                report.diagnostics.append(skipped(at: error.location))
                continue
            }
            prepared.append(card)
        }
        return prepared
    }

    /// Keeps the cards of a jCard or xCard file whose vCard text reads back without errors (a
    /// control character in a jCard string would otherwise become a contact file no scan accepts).
    static func keepingReadable(_ cards: [PreparedCard], source: String, into report: inout ImportReport) -> [PreparedCard] {
        cards.filter { card in
            let errors = (try? VCardReader.read(card.bytes, sourceName: source))?.diagnostics.filter { $0.severity == .error }
            guard let errors, errors.isEmpty else {
                report.diagnostics.append(skipped(at: SourceLocation(source: source, line: card.line, column: 1)))
                return false
            }
            return true
        }
    }

    /// The note for a card left out because a contact file cannot hold it as it is.
    static func skipped(at location: SourceLocation) -> Diagnostic {
        Diagnostic(severity: .error, code: "card-not-imported",
                   message: "the card was not imported: with this error its contact file could not be read back; fix it and import again",
                   location: location)
    }

    static func prepare(_ card: VCard) -> PreparedCard {
        PreparedCard(card: card, hash: ContentHash(of: card), uid: card.normalizedUID, name: card.formattedName,
                     bytes: VCardWriter().bytes(for: card), line: card.location?.line ?? 1)
    }

    /// Decides, writes and journals one batch of cards.
    private func importBatch(_ cards: [PreparedCard], source: String, onDuplicate: DuplicatePolicy,
                             importedUIDs: inout Set<String>, report: inout ImportReport) async throws(ContactStoreError) {
        struct Planned {
            var uid: String
            var generated: Bool
            var file: String
            var bytes: [UInt8]
            var card: PreparedCard
            var existing: ContactRecord?
        }
        var planned: [Planned] = []
        var plannedByUID: [String: Int] = [:]
        var batchHashes: [ContentHash: String] = [:]
        var batchFiles: Set<String> = []
        for card in cards {
            report.cardsRead += 1
            if let own = card.uid, let record = index.live(own), record.hash == card.hash {
                report.duplicates.append(SkippedDuplicate(source: source, line: card.line, uid: own, existingUID: own, existingFile: record.file))
                continue
            }
            if onDuplicate == .skip {
                if let owner = index.uidsByHash[card.hash]?.first, let record = index.live(owner) {
                    report.duplicates.append(SkippedDuplicate(source: source, line: card.line, uid: card.uid,
                                                              existingUID: owner, existingFile: record.file))
                    continue
                }
                if let owner = batchHashes[card.hash], let other = plannedByUID[owner] {
                    report.duplicates.append(SkippedDuplicate(source: source, line: card.line, uid: card.uid,
                                                              existingUID: owner, existingFile: planned[other].file))
                    continue
                }
            }
            var uid = card.uid ?? UUID().uuidString.lowercased()
            let generated = card.uid == nil
            var bytes = card.bytes
            var existing: ContactRecord?
            if let own = card.uid {
                if importedUIDs.contains(own) || plannedByUID[own] != nil {
                    uid = UUID().uuidString.lowercased()
                    var edited = card.card
                    edited.removeAll(named: "UID")
                    edited.append(VCardProperty(name: "UID", text: uid))
                    bytes = VCardWriter().bytes(for: edited)
                    report.reassignedUIDs.append(ReassignedUID(source: source, line: card.line, original: own, assigned: uid))
                } else if let record = index.live(own) {
                    if (index.uidsByFile[record.file]?.count ?? 0) > 1 {
                        report.problems.append(StoreProblem(
                            code: "shared-file", file: source, line: card.line,
                            message: "UID \(own) belongs to a contact in \(record.file), which holds several contacts; the card was not imported (split that file first)"))
                        continue
                    }
                    existing = record
                }
            }
            // Not checked against the folder one by one here: every new file's name is checked
            // below, on every core, before anything is written.
            let file = existing?.file ?? freshFileName(for: uid, taken: batchFiles, checkingFolder: false)
            batchFiles.insert(file)
            batchHashes[card.hash] = uid
            plannedByUID[uid] = planned.count
            planned.append(Planned(uid: uid, generated: generated, file: file, bytes: bytes, card: card, existing: existing))
        }
        guard !planned.isEmpty else { return }
        // A new contact's file is written unnamed and linked under its name (on every core):
        // other programs never see it half written, and a kill leaves nothing behind. Its name,
        // checked first, is set down (durably) before the link, so that when a power loss leaves
        // a linked file that is not whole, the next opening finds it (``finishInterruptedImport()``).
        // A contact already in the book is replaced as before: a temporary file, then a rename.
        let fresh = planned.indices.filter { planned[$0].existing == nil }
        for (position, name) in zip(fresh, namesFreeInFolder(fresh.map { (planned[$0].file, planned[$0].uid) }, taken: &batchFiles)) {
            planned[position].file = name
        }
        var linking = fresh
        var createdStamps: [String: FileStamp] = [:]
        while !linking.isEmpty {
            // Every new file of the batch under the name it has now (a name another program
            // took meanwhile is not set down again: that file is not the import's).
            try writePendingImport(fresh.map { planned[$0].file })
            let results = POSIX.createNewFiles(linking.map { (name: planned[$0].file, bytes: planned[$0].bytes) }, in: directory,
                                               name: { $0.name }, bytes: { $0.bytes })
            var again: [Int] = []
            for (position, result) in zip(linking, results) {
                if let stamp = result.stamp {
                    createdStamps[planned[position].file] = stamp
                    continue
                }
                // EEXIST: made by another program since the names were checked; a fresh name then.
                guard result.errorNumber == EEXIST else {
                    throw .io(directory + "/" + planned[position].file, "cannot create", errno: result.errorNumber)
                }
                planned[position].file = UUID().uuidString.lowercased() + ".vcf"
                again.append(position)
            }
            linking = again
        }
        let replaced = planned.filter { $0.existing != nil }
        try POSIX.createTemporaryFiles(replaced, in: directory, name: { $0.file }, bytes: { $0.bytes })
        try POSIX.syncFileSystem(containing: directory)
        for item in replaced {
            try POSIX.commit(temporary: directory + "/" + POSIX.temporaryName(for: item.file), to: directory + "/" + item.file, replacing: true)
        }
        if !replaced.isEmpty { try POSIX.sync(directory) }
        var events: [JournalEvent] = []
        var withText: Set<ContentHash> = []
        for item in planned {
            let hash = item.card.hash
            let includeText = self.index.cardOffsets[hash] == nil && !withText.contains(hash)
            if includeText { withText.insert(hash) }
            events.append(JournalEvent(operation: item.existing == nil ? .add : .update, uid: item.uid, file: item.file, hash: hash,
                                       previousHash: item.existing?.hash, source: .import, name: item.card.name,
                                       card: includeText ? item.bytes : nil, isGeneratedUID: item.generated))
            importedUIDs.insert(item.uid)
            if item.existing == nil { report.added += 1 } else { report.updated.append(item.uid) }
        }
        try await record(events)
        _ = unlink(metaDirectory + "/" + Self.pendingImportName)
        stampWrittenFiles(planned.map(\.file), known: createdStamps)
    }

    /// `.cardsync/import-links.txt`: the names of the new files an import batch is about to link
    /// into the folder, one per line, durable before the first link and removed once the journal
    /// holds the batch.
    static let pendingImportName = "import-links.txt"

    /// Sets down `names` as the new files the running import batch links next (durably).
    private func writePendingImport(_ names: [String]) throws(ContactStoreError) {
        let path = metaDirectory + "/" + Self.pendingImportName
        _ = unlink(path)
        try POSIX.createFile(path, Array(names.map { $0 + "\n" }.joined().utf8), mode: 0o600)
        try POSIX.sync(path)
        try POSIX.sync(metaDirectory)
    }

    /// Finishes an import batch interrupted between linking its new files and journaling them
    /// (``pendingImportName``): a file it names that the book does not track and that is not
    /// whole (a power loss before the file system sync) is set aside in `.cardsync/half-written/`;
    /// every whole file stays for the scan, which records its contacts as found in the folder.
    func finishInterruptedImport() throws(ContactStoreError) {
        let path = metaDirectory + "/" + Self.pendingImportName
        guard POSIX.exists(path) else { return }
        openingListing?.stamped = nil
        if let (bytes, _) = try? POSIX.readFile(path) {
            for line in bytes.split(separator: 0x0A) {
                let name = String(decoding: line, as: UTF8.self)
                guard SafeFileName.isContactFile(name), index.uidsByFile[name] == nil,
                      Self.isHalfWritten(directory + "/" + name) else { continue }
                try setAsideHalfWrittenFile(name)
            }
        }
        _ = unlink(path)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
