import VCardKit

extension AddressBook {
    /// The live contacts stored in `file`, each matched to its record (UID, or for cards without
    /// one, the generated UID recorded for the same content).
    func storedContacts(inFile file: String) -> [StoredContact] {
        guard let uids = index.uidsByFile[file] else { return [] }
        return Self.readContacts(directory: directory, file: file, records: uids.compactMap { index.live($0) })
    }

    /// The cards of `directory/file`, each matched to one of `records` (the file's live contacts).
    ///
    /// With `names`, a file that holds the one card of one contact with its own UID, in plain
    /// vCard 3.0 or 4.0 text (what ``PlainCardReader`` reads: a book's usual file), is read for
    /// those properties only (`UID` and `VERSION` always): its ``StoredContact/card`` holds only
    /// them, as the full reader would give them, and its ``StoredContact/bytes`` are the whole
    /// file. Any other file is read whole.
    static func readContacts(directory: String, file: String, records: [ContactRecord],
                             selecting names: Set<String>? = nil) -> [StoredContact] {
        guard let (bytes, _) = try? POSIX.readFile(directory + "/" + file) else { return [] }
        if let names, records.count == 1,
           let contact = plainContact(bytes, record: records[0], wanted: names.union(["UID"]), directory: directory, names: names) {
            return [contact]
        }
        guard let result = try? VCardReader.read(bytes, sourceName: file) else { return [] }
        var unclaimed = records
        var contacts: [StoredContact] = []
        let writer = VCardWriter()
        for card in result.cards {
            let position: Int?
            if let uid = card.normalizedUID {
                position = unclaimed.firstIndex { $0.uid == uid && !$0.isGeneratedUID }
            } else {
                let hash = ContentHash(of: card)
                position = unclaimed.firstIndex { $0.isGeneratedUID && $0.hash == hash }
            }
            guard let position else { continue }
            let record = unclaimed.remove(at: position)
            contacts.append(StoredContact(record: record, card: card, bytes: writer.bytes(for: card)))
        }
        return contacts
    }

    /// The contact of `record` from its file's `bytes` when they are one plain card with the
    /// record's own UID, read for `wanted` (`names` and `UID`) only; `nil` otherwise.
    static func plainContact(_ bytes: [UInt8], record: ContactRecord, wanted: Set<String>, directory: String,
                             names: Set<String>) -> StoredContact? {
        guard !record.isGeneratedUID, let card = PlainCardReader.read(bytes[...], sourceName: record.file, selecting: wanted),
              card.normalizedUID == record.uid else { return nil }
        let contact = StoredContact(record: record, card: card, bytes: bytes)
        assert(readsAsWhole(contact, directory: directory, names: names), "\(record.file): the selected read differs from the whole read")
        return contact
    }

    /// Whether `contact`, read for `names` only, has the bytes of the whole read and the same
    /// properties of those names (a debug check of the selected read).
    private static func readsAsWhole(_ contact: StoredContact, directory: String, names: Set<String>) -> Bool {
        let whole = readContacts(directory: directory, file: contact.file, records: [contact.record])
        guard whole.count == 1, whole[0].bytes == contact.bytes else { return false }
        let wanted = names.union(["UID", "VERSION"])
        let selected = whole[0].card.properties.filter { wanted.contains($0.name.uppercased()) }
        return selected == contact.card.properties
    }

    /// The contact with `uid`, read from its file.
    public func contact(uid: String) -> StoredContact? {
        guard let record = index.live(uid) else { return nil }
        return storedContacts(inFile: record.file).first { $0.uid == uid }
    }

    /// The contacts a query names: the contact with that UID, else the contacts in that file
    /// (`.vcf` may be left off), else those whose formatted name contains the query (ignoring case).
    ///
    /// ```swift
    /// let matches = await book.contacts(matching: "lovelace")
    /// ```
    public func contacts(matching query: String) -> [StoredContact] {
        if let found = contact(uid: query) { return [found] }
        for file in [query, query + ".vcf"] where index.uidsByFile[file] != nil {
            return storedContacts(inFile: file)
        }
        let wanted = query.lowercased()
        let files = Set(index.liveRecords.filter { ($0.name ?? "").lowercased().contains(wanted) }.map(\.file))
        return files.sorted().flatMap { storedContacts(inFile: $0) }
            .filter { ($0.card.formattedName ?? "").lowercased().contains(wanted) }
    }

    /// Name, e-mail addresses, telephone numbers, UID and file of every live contact, sorted by
    /// name (then UID).
    public func contactSummaries() -> [ContactSummary] {
        let files = index.uidsByFile.keys.sorted()
        var summaries: [ContactSummary] = []
        summaries.reserveCapacity(index.liveCount)
        var start = 0
        while start < files.count {
            let batch = Array(files[start..<min(start + 2048, files.count)])
            start += batch.count
            let groups = batch.map { file in (file, index.uidsByFile[file]!.compactMap { index.live($0) }) }
            let directory = self.directory
            let results = Parallel.map(groups) { Self.summaries(directory: directory, file: $0.0, records: $0.1) }
            for result in results { summaries.append(contentsOf: result) }
        }
        // Each name lower-cased once, not in every comparison.
        return summaries.map { (key: $0.name.lowercased(), summary: $0) }
            .sorted { ($0.key, $0.summary.uid) < ($1.key, $1.summary.uid) }.map(\.summary)
    }

    private static func summaries(directory: String, file: String, records: [ContactRecord]) -> [ContactSummary] {
        // A book's usual file (one contact in plain 3.0/4.0 text) is read for the fields shown only.
        if records.count == 1, !records[0].isGeneratedUID,
           let contact = readContacts(directory: directory, file: file, records: records, selecting: ["FN", "EMAIL", "TEL"]).first {
            return [ContactSummary(uid: contact.uid, file: file, name: contact.card.formattedName ?? "",
                                   emails: contact.card.emailAddresses, phones: contact.card.telephoneNumbers)]
        }
        guard let (bytes, _) = try? POSIX.readFile(directory + "/" + file),
              let result = try? VCardReader.read(bytes, sourceName: file) else {
            return records.map { ContactSummary(uid: $0.uid, file: file, name: $0.name ?? "", emails: [], phones: []) }
        }
        var unclaimed = records
        var summaries: [ContactSummary] = []
        for card in result.cards {
            let position: Int?
            if let uid = card.normalizedUID {
                position = unclaimed.firstIndex { $0.uid == uid && !$0.isGeneratedUID }
            } else if unclaimed.count == 1 && unclaimed[0].isGeneratedUID {
                position = 0
            } else {
                let hash = ContentHash(of: card)
                position = unclaimed.firstIndex { $0.isGeneratedUID && $0.hash == hash }
            }
            guard let position else { continue }
            let record = unclaimed.remove(at: position)
            summaries.append(ContactSummary(uid: record.uid, file: file, name: card.formattedName ?? "",
                                            emails: card.emailAddresses, phones: card.telephoneNumbers))
        }
        return summaries
    }
}
