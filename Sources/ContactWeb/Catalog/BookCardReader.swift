import ContactStore
import Foundation
import VCardKit

/// Reads the cards of index records straight from the book's files, several files at a time
/// (a file holding several contacts is read once), for the list and the duplicates page.
enum BookCardReader {
    /// The card of each record (`nil` when its file cannot be read or holds no such card), in
    /// no particular order.
    static func cards(of records: [ContactRecord], directory: String) async -> [(ContactRecord, VCard?)] {
        guard !records.isEmpty else { return [] }
        let chunks = stride(from: 0, to: records.count, by: 512).map { Array(records[$0..<min($0 + 512, records.count)]) }
        var cards: [(ContactRecord, VCard?)] = []
        cards.reserveCapacity(records.count)
        await withTaskGroup(of: [(ContactRecord, VCard?)].self) { group in
            var next = 0
            let width = max(2, ProcessInfo.processInfo.activeProcessorCount)
            func addChunk() {
                let chunk = chunks[next]
                next += 1
                group.addTask { Self.readCards(of: chunk, directory: directory) }
            }
            while next < chunks.count && next < width { addChunk() }
            for await result in group {
                cards.append(contentsOf: result)
                if next < chunks.count { addChunk() }
            }
        }
        return cards
    }

    /// The cards of `records`, read one file after another.
    static func readCards(of records: [ContactRecord], directory: String) -> [(ContactRecord, VCard?)] {
        var result: [(ContactRecord, VCard?)] = []
        var byFile: [String: [ContactRecord]] = [:]
        for record in records { byFile[record.file, default: []].append(record) }
        for (file, records) in byFile {
            let cards = (try? Data(contentsOf: URL(fileURLWithPath: directory + "/" + file)))
                .flatMap { try? VCardReader.read(Array($0), sourceName: file).cards } ?? []
            for record in records {
                let card = cards.first { $0.uid?.trimmingCharacters(in: .whitespaces) == record.uid }
                    ?? (records.count == 1 && cards.count == 1 ? cards[0] : nil)
                result.append((record, card))
            }
        }
        return result
    }
}
