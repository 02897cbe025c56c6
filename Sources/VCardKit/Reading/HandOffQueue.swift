/// What an incremental reader has completed and not yet handed out, in order.
///
/// Its storage is emptied (keeping its capacity) once every item has been taken, so reading a
/// long stream card by card does not grow it.
struct HandOffQueue<Element> {
    /// The items; a taken one is moved out (`nil` here), so that handing it off copies nothing.
    private var items: [Element?] = []
    private var nextIndex = 0

    /// Queues `item` behind the ones not taken yet.
    mutating func append(_ item: Element) {
        items.append(item)
    }

    /// The oldest item not taken yet, or `nil` when every item has been taken.
    mutating func next() -> Element? {
        guard nextIndex < items.count else {
            if !items.isEmpty {
                items.removeAll(keepingCapacity: true)
                nextIndex = 0
            }
            return nil
        }
        defer { nextIndex += 1 }
        return items[nextIndex].take()
    }
}

extension HandOffQueue: Sendable where Element: Sendable {}
