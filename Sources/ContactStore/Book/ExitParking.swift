import Synchronization

/// Where a closed book leaves its index and summary when the process is about to exit
/// (``AddressBook/OpenOptions/keepsIndexUntilExit``): freeing the dictionaries of a 100,000-contact
/// index one entry at a time costs a tenth of a short command's CPU, and the system takes the
/// memory back at exit all at once. One book's at a time: parking the next frees the previous.
enum ExitParking {
    private static let slot = Mutex<(BookIndex?, IndexSummary)?>(nil)

    /// Keeps `index` and `summary` until the process exits (or the next book is parked).
    static func park(_ index: BookIndex?, _ summary: IndexSummary) {
        // The previous book's index is handed out of the lock and freed here, outside it.
        _ = slot.withLock { slot in
            defer { slot = (index, summary) }
            return slot
        }
    }
}
