import ContactStore
import Foundation
import VCardKit

/// The list of the book's live contacts, kept in memory so that a page of a 100,000-contact book
/// and a search are answered without reading files: built once when the server starts, and
/// updated for every change the server makes (and for what a scan finds).
actor ContactCatalog {
    /// How the list is sorted.
    enum Sort: String, Sendable {
        case name
        case family
    }

    private var entries: [String: ContactListEntry] = [:]
    private var sorted: [Sort: [ContactListEntry]] = [:]

    var count: Int { entries.count }

    /// Reads every live contact's file, several files at a time.
    static func load(_ book: AddressBook) async -> ContactCatalog {
        ContactCatalog(entries: await readAll(book))
    }

    /// Reads every contact again (after an import or a sync).
    func reload(from book: AddressBook) async {
        entries = await Self.readAll(book)
        sorted = [:]
    }

    private static func readAll(_ book: AddressBook) async -> [String: ContactListEntry] {
        let records = await book.liveRecords()
        let directory = book.directory
        let chunks = stride(from: 0, to: records.count, by: 512).map { Array(records[$0..<min($0 + 512, records.count)]) }
        var entries: [String: ContactListEntry] = [:]
        entries.reserveCapacity(records.count)
        await withTaskGroup(of: [ContactListEntry].self) { group in
            var next = 0
            let width = max(2, ProcessInfo.processInfo.activeProcessorCount)
            func addChunk() {
                let chunk = chunks[next]
                next += 1
                group.addTask { Self.read(chunk, directory: directory) }
            }
            while next < chunks.count && next < width { addChunk() }
            for await result in group {
                for entry in result { entries[entry.uid] = entry }
                if next < chunks.count { addChunk() }
            }
        }
        return entries
    }

    private init(entries: [String: ContactListEntry]) {
        self.entries = entries
    }

    /// The entries of `records`, read from their files (a file that cannot be read is listed by
    /// the record's name alone).
    private static func read(_ records: [ContactRecord], directory: String) -> [ContactListEntry] {
        var result: [ContactListEntry] = []
        var byFile: [String: [ContactRecord]] = [:]
        for record in records { byFile[record.file, default: []].append(record) }
        for (file, records) in byFile {
            let cards = (try? Data(contentsOf: URL(fileURLWithPath: directory + "/" + file)))
                .flatMap { try? VCardReader.read(Array($0), sourceName: file).cards } ?? []
            for record in records {
                let card = cards.first { $0.uid?.trimmingCharacters(in: .whitespaces) == record.uid }
                    ?? (records.count == 1 && cards.count == 1 ? cards[0] : nil)
                    ?? VCard(properties: [VCardProperty(name: "FN", text: record.name ?? record.uid)])
                result.append(ContactListEntry(uid: record.uid, card: card))
            }
        }
        return result
    }

    /// Records the contact's current card (or its deletion, for `nil`).
    func update(uid: String, card: VCard?) {
        if let card { entries[uid] = ContactListEntry(uid: uid, card: card) } else { entries[uid] = nil }
        sorted = [:]
    }

    /// Re-reads the contacts `uids` from the book (after a restore, a merge, an import or a scan).
    func refresh(_ uids: some Sequence<String>, from book: AddressBook) async {
        for uid in uids {
            if let file = try? await book.contactFile(uid: uid) {
                entries[uid] = ContactListEntry(uid: uid, card: file.card)
            } else if let record = await book.record(for: uid), !record.isDeleted {
                let records = [record]
                entries[uid] = Self.read(records, directory: book.directory).first
            } else {
                entries[uid] = nil
            }
        }
        sorted = [:]
    }

    /// One page of the list, and how many entries match.
    /// - Parameters:
    ///   - query: the search box's text: matched against names, e-mail addresses, organisations,
    ///     titles, notes and phone numbers (as typed, or by digits), without case or accents.
    func page(query: String, sort: Sort, offset: Int, limit: Int) -> (entries: [ContactListEntry], total: Int) {
        let all = sortedEntries(sort)
        let trimmed = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            let start = min(max(0, offset), all.count)
            return (Array(all[start..<min(start + limit, all.count)]), all.count)
        }
        let folded = Array(SearchText.fold(trimmed).utf8)
        let digits = Array(SearchText.digits(trimmed).utf8)
        var page: [ContactListEntry] = []
        var total = 0
        for entry in all where entry.matches(folded: folded, digits: digits) {
            if total >= offset && page.count < limit { page.append(entry) }
            total += 1
        }
        return (page, total)
    }

    private func sortedEntries(_ sort: Sort) -> [ContactListEntry] {
        if let cached = sorted[sort] { return cached }
        let list: [ContactListEntry] = switch sort {
        case .name: entries.values.sorted { ($0.nameKey, $0.uid) < ($1.nameKey, $1.uid) }
        case .family: entries.values.sorted { ($0.familyKey, $0.uid) < ($1.familyKey, $1.uid) }
        }
        sorted[sort] = list
        return list
    }
}
