/// The answer key of a generated book: which cards repeat or resemble which, and the counts.
///
/// Written by `cardsync generate` as the labels file:
///
/// ```json
/// {"cards":[{"changes":[],"index":5,"kind":"exact","of":2,"ofUID":"…","uid":"…"}],
///  "count":100,"distinct":96,"exact":2,"lookalike":0,"near":1,"reformatted":2,
///  "schemaVersion":1,"seed":42,"version":"mixed"}
/// ```
///
/// Only labelled cards appear in ``cards``, in book order. Keys are sorted, so the same book
/// always gives the same bytes (see ``jsonData()``).
public struct GeneratorLabels: Codable, Sendable, Hashable {
    /// The version of this format; 1.
    public var schemaVersion: Int
    /// The seed the book was generated from.
    public var seed: UInt64
    /// The options' version: `3.0`, `4.0` or `mixed`.
    public var version: String
    /// The number of cards in the book.
    public var count: Int
    /// The number of distinct contacts: ``count`` minus exact and reformatted duplicates.
    ///
    /// Near duplicates and look-alikes count as distinct cards.
    public var distinct: Int
    /// The number of exact duplicates.
    public var exact: Int
    /// The number of reformatted duplicates.
    public var reformatted: Int
    /// The number of near duplicates.
    public var near: Int
    /// The number of look-alikes.
    public var lookalike: Int
    /// The labels, in book order.
    public var cards: [DuplicateLabel]

    /// Creates the labels of a book from its options and its labelled cards.
    ///
    /// - Parameters:
    ///   - options: The options the book was generated with.
    ///   - cards: The labels of the labelled cards, in book order.
    public init(options: GeneratorOptions, cards: [DuplicateLabel]) {
        schemaVersion = 1
        seed = options.seed
        version = options.version.rawValue
        count = options.clampedCount
        self.cards = cards
        exact = cards.count { $0.kind == .exact }
        reformatted = cards.count { $0.kind == .reformatted }
        near = cards.count { $0.kind == .near }
        lookalike = cards.count { $0.kind == .lookalike }
        distinct = count - exact - reformatted
    }
}
