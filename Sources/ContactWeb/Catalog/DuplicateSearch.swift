import ContactDiff
import ContactStore
import Foundation
import VCardKit

/// The duplicate groups the duplicates page shows, computed in the background (on a
/// 100,000-contact book it takes seconds) and kept until the list changes.
///
/// A request that finds the groups of the list as it is now gets them; otherwise a search is
/// started (or the running one awaited) for a short while, and when it has not finished the page
/// says it is still computing instead of blocking. Each card read is kept with its content hash,
/// so a search after an edit reads only the cards that changed.
actor DuplicateSearch {
    /// The groups found in the list of one catalog generation.
    struct Groups: Sendable {
        var entries: [ContactEntry]
        var clusters: [DuplicateCluster]
        /// The ``ContactCatalog/generation`` they were computed for.
        var generation: Int
        /// How long the search took, in seconds.
        var seconds: Double
    }

    /// What the page can show now.
    enum State: Sendable {
        case ready(Groups)
        /// Still computing, since `started`, over `contacts` contacts.
        case computing(started: Date, contacts: Int)
    }

    private var latest: Groups?
    private var running: (generation: Int, started: Date, contacts: Int)?
    /// The cards read so far, by UID, with the content hash of the version read.
    private var cards: [String: (hash: ContentHash, entry: ContactEntry)] = [:]

    /// The groups of the catalog's current list, waiting for them at most `patience`.
    func state(of catalog: ContactCatalog, book: AddressBook, patience: Duration = .seconds(2)) async -> State {
        let deadline = ContinuousClock.now + patience
        while true {
            let generation = await catalog.generation
            if let latest, latest.generation == generation { return .ready(latest) }
            if running == nil { await start(generation: generation, book: book) }
            guard ContinuousClock.now < deadline else { break }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return .computing(started: running?.started ?? Date(), contacts: running?.contacts ?? 0)
    }

    private func start(generation: Int, book: AddressBook) async {
        let records = await book.liveRecords()
        running = (generation, Date(), records.count)
        let known = cards
        Task.detached(priority: .utility) {
            let started = ContinuousClock.now
            var entries: [ContactEntry] = []
            entries.reserveCapacity(records.count)
            var read: [String: (hash: ContentHash, entry: ContactEntry)] = [:]
            var toRead: [ContactRecord] = []
            for record in records {
                if let hash = record.hash, let card = known[record.uid], card.hash == hash {
                    entries.append(card.entry)
                    read[record.uid] = card
                } else {
                    toRead.append(record)
                }
            }
            for (record, card) in await BookCardReader.cards(of: toRead, directory: book.directory) {
                guard let card else { continue }
                let entry = ContactEntry(card: card, origin: record.file)
                entries.append(entry)
                if let hash = record.hash { read[record.uid] = (hash, entry) }
            }
            let clusters = DuplicateFinder().clusters(in: entries)
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            await self.finish(Groups(entries: entries, clusters: clusters, generation: generation, seconds: seconds), cards: read)
        }
    }

    private func finish(_ groups: Groups, cards: [String: (hash: ContentHash, entry: ContactEntry)]) {
        latest = groups
        self.cards = cards
        running = nil
    }
}
