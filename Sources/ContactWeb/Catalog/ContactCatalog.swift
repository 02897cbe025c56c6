import ContactStore
import Foundation
import Logging
import VCardKit

/// The list of the book's live contacts, kept in memory so that a page of a 100,000-contact book
/// and a search are answered without reading files.
///
/// Built when the server starts from ``ContactListCache`` (the entries of contacts whose content
/// hash is unchanged) and the cards of the rest; sorted both ways once then; every change the
/// server makes moves one entry (a binary search to remove it, one to insert it). A search is a
/// pass over one contiguous buffer of folded text (``SearchBuffer``).
actor ContactCatalog {
    /// How the list is sorted.
    enum Sort: String, Sendable, CaseIterable {
        case name
        case family
    }

    /// One entry and what it is sorted by: the folded sort key, a zero byte and the UID (so that
    /// no two keys are equal and the order is the same on every run).
    private struct Slot {
        var entry: ContactListEntry
        /// The content hash of the version the entry was read from, when known.
        var hash: ContentHash?
        var nameOrder: [UInt8]
        var familyOrder: [UInt8]

        init(entry: ContactListEntry, hash: ContentHash?) {
            self.entry = entry
            self.hash = hash
            nameOrder = Self.orderKey(entry.nameKey, entry.uid)
            familyOrder = Self.orderKey(entry.familyKey, entry.uid)
        }

        func orderKey(_ sort: Sort) -> [UInt8] {
            switch sort {
            case .name: nameOrder
            case .family: familyOrder
            }
        }

        private static func orderKey(_ key: String, _ uid: String) -> [UInt8] {
            var bytes = key.utf8.filter { $0 != 0 }
            bytes.append(0)
            bytes.append(contentsOf: uid.utf8)
            return bytes
        }
    }

    /// Slot `n` is the `n`th entry added; `nil` once its contact changed again or is gone.
    private var slots: [Slot?] = []
    private var slotByUID: [String: Int] = [:]
    /// The live slots, sorted each way.
    private var orders: [Sort: [Int]] = [:]
    private var searchTexts = SearchBuffer()
    private var phoneDigits = SearchBuffer()

    /// How many changes the catalog has seen: whatever was computed from the list at one
    /// generation is out of date at the next (``DuplicateSearch``).
    private(set) var generation = 0

    var count: Int { slotByUID.count }

    /// What a load did: how many entries came from the cache and how many cards were read.
    struct LoadReport: Sendable {
        var fromCache = 0
        var read = 0
        var cacheProblem: String?
    }

    /// The book's list: the cache's entries for unchanged contacts, the cards of the rest.
    static func load(_ book: AddressBook, logger: Logger? = nil) async -> ContactCatalog {
        let catalog = ContactCatalog()
        let cache = ContactListCache.read(bookDirectory: book.directory)
        let report = await catalog.rebuild(from: book, known: cache ?? [:])
        let count = await catalog.count
        logger?.info("cardsync web: list of \(count) contacts: \(report.fromCache) from \(ContactListCache.fileName), \(report.read) read from their files\(cache == nil ? " (no usable list cache)" : "")")
        return catalog
    }

    /// Builds the list again from the book (after an import or a sync), reusing the entries
    /// of contacts whose content did not change.
    func reload(from book: AddressBook) async {
        var known: [String: ContactListCache.Item] = [:]
        for case let slot? in slots {
            if let hash = slot.hash { known[slot.entry.uid] = ContactListCache.Item(hash: hash, entry: slot.entry) }
        }
        _ = await rebuild(from: book, known: known)
    }

    /// Replaces the whole list with the book's live contacts; `known` entries are used for the
    /// contacts whose current content hash they carry. Saves the cache when anything was read.
    @discardableResult
    private func rebuild(from book: AddressBook, known: [String: ContactListCache.Item]) async -> LoadReport {
        let records = await book.liveRecords()
        var report = LoadReport()
        var items: [ContactListCache.Item] = []
        items.reserveCapacity(records.count)
        var toRead: [ContactRecord] = []
        for record in records {
            if let hash = record.hash, let item = known[record.uid], item.hash == hash {
                items.append(item)
            } else {
                toRead.append(record)
            }
        }
        report.fromCache = items.count
        report.read = toRead.count
        let read = await Self.readAll(toRead, directory: book.directory)
        var unhashed: [ContactListEntry] = []
        for (hash, entry) in read {
            if let hash { items.append(ContactListCache.Item(hash: hash, entry: entry)) } else { unhashed.append(entry) }
        }
        replaceAll(items.map { Slot(entry: $0.entry, hash: $0.hash) } + unhashed.map { Slot(entry: $0, hash: nil) })
        if !toRead.isEmpty || known.count != items.count {
            try? ContactListCache.write(items, bookDirectory: book.directory)
        }
        return report
    }

    private func replaceAll(_ newSlots: [Slot]) {
        slots = newSlots
        slotByUID = [:]
        slotByUID.reserveCapacity(newSlots.count)
        searchTexts = SearchBuffer()
        phoneDigits = SearchBuffer()
        for (index, slot) in newSlots.enumerated() {
            slotByUID[slot.entry.uid] = index
            searchTexts.append(slot.entry.searchText)
            phoneDigits.append(slot.entry.phoneDigits)
        }
        // A UID listed twice keeps its last slot.
        for sort in Sort.allCases {
            let live = slotByUID.values
            orders[sort] = live.sorted { Self.precedes(newSlots[$0].orderKey(sort), newSlots[$1].orderKey(sort)) }
        }
        generation += 1
    }

    /// The entries of `records` read from their files, each with the record's content hash
    /// when its card was read (`nil` when it could not be: such a contact is listed by the
    /// record's name alone, and never cached).
    private static func readAll(_ records: [ContactRecord], directory: String) async -> [(ContentHash?, ContactListEntry)] {
        await BookCardReader.cards(of: records, directory: directory).map { Self.entry($0.0, $0.1) }
    }

    private static func entry(_ record: ContactRecord, _ card: VCard?) -> (ContentHash?, ContactListEntry) {
        guard let card else {
            return (nil, ContactListEntry(uid: record.uid, card: VCard(properties: [VCardProperty(name: "FN", text: record.name ?? record.uid)])))
        }
        return (record.hash, ContactListEntry(uid: record.uid, card: card))
    }

    // MARK: - Changes

    /// Records the contact's current card (or its deletion, for `nil`): its entry leaves its
    /// place in each order and the new one is inserted where it sorts.
    func update(uid: String, card: VCard?) {
        update(uid: uid, entry: card.map { ContactListEntry(uid: uid, card: $0) })
    }

    private func update(uid: String, entry: ContactListEntry?) {
        if let old = slotByUID.removeValue(forKey: uid), let slot = slots[old] {
            for sort in Sort.allCases { remove(old, key: slot.orderKey(sort), from: sort) }
            slots[old] = nil
        }
        if let entry {
            let slot = Slot(entry: entry, hash: nil)
            let index = slots.count
            slots.append(slot)
            slotByUID[uid] = index
            searchTexts.append(entry.searchText)
            phoneDigits.append(entry.phoneDigits)
            for sort in Sort.allCases {
                let key = slot.orderKey(sort)
                orders[sort, default: []].insert(index, at: position(of: key, in: sort))
            }
        }
        generation += 1
        compactIfSparse()
    }

    /// Re-reads the contacts `uids` from the book (after a restore, a merge, an import or a scan).
    func refresh(_ uids: some Sequence<String>, from book: AddressBook) async {
        for uid in uids {
            if let file = try? await book.contactFile(uid: uid) {
                update(uid: uid, card: file.card)
            } else if let record = await book.record(for: uid), !record.isDeleted {
                update(uid: uid, entry: BookCardReader.readCards(of: [record], directory: book.directory).first.map { Self.entry($0.0, $0.1) }?.1)
            } else {
                update(uid: uid, entry: nil)
            }
        }
    }

    /// The first index in `sort`'s order whose key does not precede `key`.
    private func position(of key: [UInt8], in sort: Sort) -> Int {
        let order = orders[sort] ?? []
        var low = 0
        var high = order.count
        while low < high {
            let middle = (low + high) / 2
            if let slot = slots[order[middle]], Self.precedes(slot.orderKey(sort), key) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private func remove(_ index: Int, key: [UInt8], from sort: Sort) {
        let found = position(of: key, in: sort)
        if found < orders[sort, default: []].count, orders[sort]![found] == index {
            orders[sort]!.remove(at: found)
        } else if let anywhere = orders[sort]?.firstIndex(of: index) {
            orders[sort]!.remove(at: anywhere)
        }
    }

    /// Drops the slots of replaced entries (and their search text) once they outnumber the
    /// live ones, keeping both orders as they are.
    private func compactIfSparse() {
        let dead = slots.count - slotByUID.count
        guard dead > max(1024, slotByUID.count) else { return }
        var renumbered = [Int](repeating: -1, count: slots.count)
        var kept: [Slot?] = []
        kept.reserveCapacity(slotByUID.count)
        searchTexts = SearchBuffer()
        phoneDigits = SearchBuffer()
        for (index, slot) in slots.enumerated() {
            guard let slot else { continue }
            renumbered[index] = kept.count
            kept.append(slot)
            searchTexts.append(slot.entry.searchText)
            phoneDigits.append(slot.entry.phoneDigits)
        }
        slots = kept
        for (uid, index) in slotByUID { slotByUID[uid] = renumbered[index] }
        for sort in Sort.allCases { orders[sort] = orders[sort]?.map { renumbered[$0] } }
    }

    // MARK: - Reading

    /// One page of the list, and how many entries match.
    /// - Parameters:
    ///   - query: the search box's text: matched against names, e-mail addresses, organisations,
    ///     titles, notes and phone numbers (as typed, or by digits), without case or accents.
    func page(query: String, sort: Sort, offset: Int, limit: Int) -> (entries: [ContactListEntry], total: Int) {
        let order = orders[sort] ?? []
        let trimmed = query.trimmingCharacters(in: .whitespacesAndNewlines)
        let folded = Array(SearchText.fold(trimmed).utf8)
        guard !trimmed.isEmpty, !folded.isEmpty else {
            let start = min(max(0, offset), order.count)
            let end = start + min(max(0, limit), order.count - start)
            return (order[start..<end].compactMap { slots[$0]?.entry }, order.count)
        }
        let digits = Array(SearchText.digits(trimmed).utf8)
        var hits = [Bool](repeating: false, count: slots.count)
        searchTexts.forEachSlot(containing: folded) { hits[$0] = true }
        if digits.count >= 3 { phoneDigits.forEachSlot(containing: digits) { hits[$0] = true } }
        var page: [ContactListEntry] = []
        var total = 0
        for index in order where hits[index] {
            if total >= offset && page.count < limit, let slot = slots[index] { page.append(slot.entry) }
            total += 1
        }
        return (page, total)
    }

    /// Byte order of two keys (a prefix sorts first).
    private static func precedes(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        left.withUnsafeBufferPointer { a in
            right.withUnsafeBufferPointer { b in
                let shared = min(a.count, b.count)
                if shared > 0, let x = a.baseAddress, let y = b.baseAddress {
                    let order = memcmp(x, y, shared)
                    if order != 0 { return order < 0 }
                }
                return a.count < b.count
            }
        }
    }
}
