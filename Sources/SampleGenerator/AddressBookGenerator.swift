/// Generates realistic, seeded vCard address books with labelled duplicates.
///
/// Every card is a function of the options and its position only, so the same options give the
/// same bytes on every platform, cards stream in constant memory, and any card can be produced on
/// its own with ``card(at:)``.
///
/// ```swift
/// let generator = AddressBookGenerator(options: GeneratorOptions(count: 1_000, seed: 7, duplicateRate: 0.05))
/// for card in generator.makeCards() {
///     print(card.uid, card.label?.kind ?? "new")
/// }
/// var bytes: [UInt8] = []
/// let labels = generator.write(to: &bytes)  // the whole book, and its answer key
/// ```
///
/// ## Topics
///
/// ### Producing cards
/// - ``makeCards()``
/// - ``card(at:)``
/// - ``write(to:)``
/// - ``write(chunkSize:to:)``
///
/// ### The answer key
/// - ``labels()``
public struct AddressBookGenerator: Sendable {
    /// The options the book is generated with.
    public let options: GeneratorOptions
    private let planner: CardPlanner

    /// Creates a generator.
    ///
    /// - Parameter options: What to generate.
    public init(options: GeneratorOptions) {
        self.options = options
        planner = CardPlanner(options: options)
    }

    /// Returns the book's cards in order, each generated when the sequence reaches it.
    ///
    /// Memory use does not grow with the number of cards: duplicates regenerate the card they
    /// repeat instead of keeping earlier cards.
    public func makeCards() -> some Sequence<GeneratedCard> & Sendable {
        GeneratedCardSequence(generator: self)
    }

    /// Returns card `index` (`0 ..< options.count`), the same as ``makeCards()`` yields at that position.
    ///
    /// - Parameter index: The card's position in the book.
    public func card(at index: Int) -> GeneratedCard {
        precondition(index >= 0 && index < options.clampedCount, "card index out of range")
        let prepared = planner.prepare(index)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(prepared.lines.count * 48)
        prepared.write(to: &bytes)
        return GeneratedCard(
            index: index, uid: prepared.uid, version: prepared.version.publicVersion,
            text: String(decoding: bytes, as: UTF8.self), label: prepared.label)
    }

    /// Appends the whole book to `output` and returns its labels.
    ///
    /// - Parameter output: The buffer the cards' bytes are appended to.
    /// - Returns: The labels of the book (the same as ``labels()``).
    @discardableResult
    public func write(to output: inout [UInt8]) -> GeneratorLabels {
        var labels: [DuplicateLabel] = []
        for index in 0..<options.clampedCount {
            let prepared = planner.prepare(index)
            prepared.write(to: &output)
            if let label = prepared.label { labels.append(label) }
        }
        return GeneratorLabels(options: options, cards: labels)
    }

    /// Writes the book in chunks and returns its labels.
    ///
    /// Cards are appended to a buffer that is handed to `sink` whenever it holds at least
    /// `chunkSize` bytes, and once more at the end if anything is left, so memory stays bounded
    /// however large the book is. Chunks end at card boundaries.
    ///
    /// ```swift
    /// let labels = try generator.write { chunk in try handle.write(contentsOf: chunk) }
    /// ```
    ///
    /// - Parameters:
    ///   - chunkSize: The number of bytes to collect before calling `sink`; 1 MiB by default.
    ///   - sink: Receives each chunk in order.
    /// - Returns: The labels of the book (the same as ``labels()``).
    /// - Throws: Whatever `sink` throws; writing stops at the first error.
    @discardableResult
    public func write<Failure: Error>(
        chunkSize: Int = 1 << 20, to sink: ([UInt8]) throws(Failure) -> Void
    ) throws(Failure) -> GeneratorLabels {
        var labels: [DuplicateLabel] = []
        var buffer: [UInt8] = []
        buffer.reserveCapacity(max(chunkSize, 0) + 64 * 1024)
        for index in 0..<options.clampedCount {
            let prepared = planner.prepare(index)
            prepared.write(to: &buffer)
            if let label = prepared.label { labels.append(label) }
            if buffer.count >= chunkSize {
                try sink(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        if !buffer.isEmpty {
            try sink(buffer)
        }
        return GeneratorLabels(options: options, cards: labels)
    }

    /// Returns the book's labels without writing its cards.
    ///
    /// Cheaper than generating the book: only near and reformatted duplicates are worked out, and
    /// photos are never made.
    public func labels() -> GeneratorLabels {
        var labels: [DuplicateLabel] = []
        for index in 0..<options.clampedCount {
            if let label = planner.label(of: index) { labels.append(label) }
        }
        return GeneratorLabels(options: options, cards: labels)
    }
}

/// The cards of a book, generated one at a time.
struct GeneratedCardSequence: Sequence, Sendable {
    let generator: AddressBookGenerator

    struct Iterator: IteratorProtocol {
        let generator: AddressBookGenerator
        var index = 0

        mutating func next() -> GeneratedCard? {
            guard index < generator.options.clampedCount else { return nil }
            defer { index += 1 }
            return generator.card(at: index)
        }
    }

    func makeIterator() -> Iterator {
        Iterator(generator: generator)
    }

    var underestimatedCount: Int {
        generator.options.clampedCount
    }
}
