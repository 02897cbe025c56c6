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

    /// Rebuilds the index from journal lines (all but the header).
    mutating func apply(_ lines: ArraySlice<DatabaseJournal.Line>, revisionsLimit: Int) {
        for line in lines {
            let value = line.value
            switch value["t"]?.stringValue {
            case "doc":
                guard let id = value["id"]?.stringValue, let sequence = value["seq"]?.intValue,
                      let path = value["path"]?.arrayValue?.compactMap({ $0.stringValue.flatMap(Revision.init) }),
                      !path.isEmpty, let length = value["bytes"]?.intValue
                else { continue }
                let location = BodyLocation(offset: line.offset + line.length - 1 - length, length: length)
                var entry = documents[DocumentKey(id)] ?? DocumentEntry(id: id)
                let wasNew = documents[DocumentKey(id)] == nil
                let wasDeleted = entry.isDeleted
                entry.tree.merge(path: path, isDeleted: value["deleted"]?.boolValue ?? false, body: location)
                entry.tree.stem(limit: revisionsLimit)
                if !wasNew {
                    staleChangeCount += 1
                    markStale(entry.sequence)
                }
                entry.sequence = sequence
                changeLog.append((sequence, id))
                countChange(wasNew: wasNew, wasDeleted: wasDeleted, isDeleted: entry.isDeleted)
                documents[DocumentKey(id)] = entry
                updateSequence = max(updateSequence, sequence)
            case "local":
                guard let id = value["id"]?.stringValue else { continue }
                if value["deleted"]?.boolValue == true {
                    locals[DocumentKey(id)] = nil
                } else {
                    locals[DocumentKey(id)] = LocalDocument(revision: value["rev"]?.intValue ?? 1, body: value["body"]?.objectValue ?? [:])
                }
            default:
                continue
            }
        }
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
