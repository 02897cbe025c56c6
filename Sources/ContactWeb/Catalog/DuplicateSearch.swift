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
        /// The contacts searched, each with only the properties the finder reads (and the whole
        /// card's content hash): a whole parsed card of every contact would take gigabytes.
        var entries: [ContactEntry]
        /// How many properties each whole card has, in the order of ``entries``.
        var propertyCounts: [Int]
        var clusters: [DuplicateCluster]
        /// The ``ContactCatalog/generation`` they were computed for.
        var generation: Int
        /// How long the search took, in seconds.
        var seconds: Double
    }

    /// What the search keeps of a card.
    struct Candidate: Sendable {
        var entry: ContactEntry
        var propertyCount: Int

        /// The properties of `card` the finder reads, the content hash of the whole card (the
        /// index's, or computed when the record has none) and its number of properties.
        init(card: VCard, record: ContactRecord) {
            var kept = card
            kept.properties = card.properties.filter { DuplicateFinder.propertiesRead.contains($0.name.uppercased()) }
            entry = ContactEntry(card: kept, origin: record.file)
            entry.knownHash = record.hash ?? ContentHash(of: card)
            propertyCount = card.properties.count
        }
    }

    /// What the page can show now.
    enum State: Sendable {
        case ready(Groups)
        /// Still computing, since `started`, over `contacts` contacts.
        case computing(started: Date, contacts: Int)
    }

    private var latest: Groups?
    private var running: (generation: Int, started: Date, contacts: Int)?
    /// What was kept of the cards read so far, by UID, with the content hash of the version read.
    private var cards: [String: (hash: ContentHash, candidate: Candidate)] = [:]

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
            var candidates: [Candidate] = []
            candidates.reserveCapacity(records.count)
            var read: [String: (hash: ContentHash, candidate: Candidate)] = [:]
            var toRead: [ContactRecord] = []
            for record in records {
                if let hash = record.hash, let card = known[record.uid], card.hash == hash {
                    candidates.append(card.candidate)
                    read[record.uid] = card
                } else {
                    toRead.append(record)
                }
            }
            for (record, candidate) in await BookCardReader.cards(of: toRead, directory: book.directory, keeping: { Candidate(card: $1, record: $0) }) {
                guard let candidate else { continue }
                candidates.append(candidate)
                if let hash = record.hash { read[record.uid] = (hash, candidate) }
            }
            // In their files' order: the cards are read in no particular order, and the book
            // lists its contacts in its tables' order, so the groups (ordered by score, then by
            // their first contact) would come in another order on each start.
            candidates.sort { ($0.entry.origin, $0.entry.uid ?? "") < ($1.entry.origin, $1.entry.uid ?? "") }
            let entries = candidates.map(\.entry)
            let clusters = DuplicateFinder().clusters(in: entries)
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            await self.finish(Groups(entries: entries, propertyCounts: candidates.map(\.propertyCount), clusters: clusters,
                                     generation: generation, seconds: seconds), cards: read)
        }
    }

    private func finish(_ groups: Groups, cards: [String: (hash: ContentHash, candidate: Candidate)]) {
        latest = groups
        self.cards = cards
        running = nil
    }
}
