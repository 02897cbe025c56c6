import JSONText

/// The in-memory index of a database, rebuilt from its journal at open: documents with their
/// revision trees, the changes log, `_local` documents and counters.
struct DatabaseState: Sendable {
    var documents: [DocumentKey: DocumentEntry] = [:]
    /// Every change in sequence order; entries whose document changed again later are stale.
    var changeLog: [(sequence: Int, id: String)] = []
    var staleChangeCount = 0
    /// The sequences of the stale entries of ``changeLog``, sorted, so that counting the live
    /// changes after a point (`_changes`' `pending`) takes two binary searches, not a walk.
    var staleSequences: [Int] = []
    var liveCount = 0
    var deletedCount = 0
    var liveIDsCache: [String]?
    var locals: [DocumentKey: LocalDocument] = [:]
    var updateSequence = 0
    /// Database settings written through the API (`_revs_limit`, `_security`,
    /// `_purged_infos_limit`); `nil` until first set.
    var settings = DatabaseSettings()

    /// Rebuilds the index from journal lines (all but the header).
    mutating func apply(_ lines: ArraySlice<DatabaseJournal.Line>, revisionsLimit: Int) {
        // At most one document per line: the table is not grown (and rehashed) on the way.
        documents.reserveCapacity(documents.count + lines.count)
        for line in lines {
            let value = line.value
            switch value["t"]?.stringValue {
            case "doc":
                guard let id = value["id"]?.stringValue, let sequence = value["seq"]?.intValue,
                      let path = value["path"]?.arrayValue?.compactMap({ $0.stringValue.flatMap(Revision.init) }),
                      !path.isEmpty, let length = value["bytes"]?.intValue
                else { continue }
                let location = BodyLocation(offset: line.offset + line.length - 1 - length, length: length)
                // The entry is changed where it is stored: one lookup, and its revision tree is not
                // copied (taking it out and storing it back copied the tree of every document).
                var wasNew = false
                let (wasDeleted, previousSequence, isDeleted) = Self.merge(
                    into: &documents[DocumentKey(id), default: { wasNew = true; return DocumentEntry(id: id) }()],
                    path: path, isDeleted: value["deleted"]?.boolValue ?? false, body: location,
                    limit: settings.revisionsLimit ?? revisionsLimit, sequence: sequence)
                if !wasNew {
                    staleChangeCount += 1
                    markStale(previousSequence)
                }
                changeLog.append((sequence, id))
                countChange(wasNew: wasNew, wasDeleted: wasDeleted, isDeleted: isDeleted)
                updateSequence = max(updateSequence, sequence)
            case "local":
                guard let id = value["id"]?.stringValue else { continue }
                if value["deleted"]?.boolValue == true {
                    locals[DocumentKey(id)] = nil
                } else {
                    locals[DocumentKey(id)] = LocalDocument(revision: value["rev"]?.intValue ?? 1, body: value["body"]?.objectValue ?? [:])
                }
            case "purge":
                guard let id = value["id"]?.stringValue, let sequence = value["seq"]?.intValue,
                      let revisions = value["revs"]?.arrayValue?.compactMap({ $0.stringValue.flatMap(Revision.init) })
                else { continue }
                purge(id: id, revisions: revisions, sequence: sequence)
            default:
                settings.apply(value)
            }
        }
    }

    /// Merges a journal line's revision path into `entry` and moves it to `sequence`; answers
    /// whether it was deleted before and is after, and the sequence it had.
    private static func merge(into entry: inout DocumentEntry, path: [Revision], isDeleted: Bool, body: BodyLocation,
                              limit: Int, sequence: Int) -> (wasDeleted: Bool, previousSequence: Int, isDeleted: Bool) {
        let wasDeleted = entry.isDeleted
        let previousSequence = entry.sequence
        entry.tree.merge(path: path, isDeleted: isDeleted, body: body)
        entry.tree.stem(limit: limit)
        entry.sequence = sequence
        return (wasDeleted, previousSequence, entry.isDeleted)
    }

    /// Takes `revisions` (leaves of document `id`) and the ancestors only they had out of the
    /// index; a document left without revisions is gone from every listing and the changes
    /// feed, one left with other branches appears in the feed again at `sequence`.
    ///
    /// - Returns: the revisions that were removed (those that were leaves).
    @discardableResult
    mutating func purge(id: String, revisions: [Revision], sequence: Int) -> [Revision] {
        let key = DocumentKey(id)
        guard var entry = documents[key] else { return [] }
        let wasDeleted = entry.isDeleted
        var purged: [Revision] = []
        for revision in revisions where entry.tree.removeLeaf(revision) {
            purged.append(revision)
        }
        guard !purged.isEmpty else { return [] }
        updateSequence = max(updateSequence, sequence)
        staleChangeCount += 1
        markStale(entry.sequence)
        if entry.tree.leaves.isEmpty {
            documents[key] = nil
            if wasDeleted { deletedCount -= 1 } else { liveCount -= 1 }
            liveIDsCache = nil
            return purged
        }
        entry.sequence = sequence
        changeLog.append((sequence, id))
        countChange(wasNew: false, wasDeleted: wasDeleted, isDeleted: entry.isDeleted)
        documents[key] = entry
        return purged
    }

    /// Records that the change log entry with `sequence` was superseded.
    mutating func markStale(_ sequence: Int) {
        let position = Self.firstIndex(in: staleSequences, notBelow: sequence)
        staleSequences.insert(sequence, at: position)
    }

    /// How many stale entries have a sequence in `lower...upper`.
    func staleCount(from lower: Int, through upper: Int) -> Int {
        guard lower <= upper, !staleSequences.isEmpty else { return 0 }
        let start = Self.firstIndex(in: staleSequences, notBelow: lower)
        let end = upper == Int.max ? staleSequences.count : Self.firstIndex(in: staleSequences, notBelow: upper + 1)
        return max(0, end - start)
    }

    static func firstIndex(in sorted: [Int], notBelow value: Int) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    mutating func countChange(wasNew: Bool, wasDeleted: Bool, isDeleted: Bool) {
        if !wasNew {
            if wasDeleted { deletedCount -= 1 } else { liveCount -= 1 }
        }
        if isDeleted { deletedCount += 1 } else { liveCount += 1 }
        if wasNew || wasDeleted != isDeleted { liveIDsCache = nil }
    }

}

/// What clients set through the database API. Each change is one journal line (`t` names the
/// setting, `value` holds it), so a setting survives a crash exactly like a document write.
struct DatabaseSettings: Sendable {
    /// `PUT /{db}/_revs_limit`.
    var revisionsLimit: Int?
    /// `PUT /{db}/_security`.
    var security: JSONObject?
    /// `PUT /{db}/_purged_infos_limit`.
    var purgedInfosLimit: Int?

    static let revisionsLimitLine = "revs_limit"
    static let securityLine = "security"
    static let purgedInfosLimitLine = "purged_infos_limit"

    /// Takes a setting line; other lines are ignored.
    mutating func apply(_ line: JSONObject) {
        switch line["t"]?.stringValue {
        case Self.revisionsLimitLine: revisionsLimit = line["value"]?.intValue ?? revisionsLimit
        case Self.securityLine: security = line["value"]?.objectValue ?? security
        case Self.purgedInfosLimitLine: purgedInfosLimit = line["value"]?.intValue ?? purgedInfosLimit
        default: break
        }
    }
}
