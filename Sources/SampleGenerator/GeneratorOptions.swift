/// What ``AddressBookGenerator`` produces: how many cards, from which seed, and of what kind.
///
/// The same options always give the same bytes, on every platform.
///
/// ```swift
/// var options = GeneratorOptions(count: 2_000, seed: 42)
/// options.duplicateRate = 0.1
/// options.nearDuplicateRate = 0.05
/// let generator = AddressBookGenerator(options: options)
/// ```
///
/// Rates outside `0...1` (and NaN) are clamped when the generator reads them, and a negative count
/// counts as zero; the `cardsync generate` command rejects such values instead.
public struct GeneratorOptions: Sendable, Hashable {
    /// Which vCard version the cards are written in.
    public enum Version: String, Sendable, Hashable, CaseIterable {
        /// vCard 3.0 (RFC 2426).
        case v3 = "3.0"
        /// vCard 4.0 (RFC 6350).
        case v4 = "4.0"
        /// About half 3.0 and half 4.0, decided per card.
        case mixed
    }

    /// The number of cards to produce, duplicates included.
    public var count: Int
    /// The seed every choice is derived from.
    public var seed: UInt64
    /// The version of the cards.
    ///
    /// With ``Version/mixed``, a reformatted duplicate may be written in the other version than
    /// the card it repeats; with a single version, every card is in that version.
    public var version: Version
    /// The share of new contacts that carry a PHOTO (4–8 KB of JPEG-like bytes).
    ///
    /// The default is 0.1.
    public var photoRate: Double
    /// The share of cards that repeat an earlier card with the same meaning; 0 by default.
    ///
    /// Half of them are exact copies (the same bytes except a new UID), half are reformatted:
    /// other folding, name case, parameter and property order, or the other version's spelling.
    public var duplicateRate: Double
    /// The share of cards that are an earlier contact with a few changes of content; 0 by default.
    ///
    /// A further quarter of this rate are look-alikes: different people with the same name as an
    /// earlier contact and no shared e-mail address or telephone number.
    public var nearDuplicateRate: Double
    /// Writes minimal cards (N, FN, UID and at most one TEL or EMAIL, never a photo), for large-scale tests.
    public var sparse: Bool
    /// Uses only the vocabulary of the cards' RFC: no X- properties, no groups, only registered
    /// parameter values, and RFC 6350 date syntax in 4.0 cards.
    ///
    /// vCard 4.0 cards then use RFC 6350 property and parameter names only; vCard 3.0 cards use
    /// RFC 2426's (so they still contain 3.0-only properties such as LABEL and CLASS, and TYPE
    /// values such as `msg` or `postal`). The option never changes the version of a card.
    public var rfcOnly: Bool

    /// Creates options.
    ///
    /// - Parameters:
    ///   - count: The number of cards, duplicates included.
    ///   - seed: The seed every choice is derived from.
    ///   - version: The version of the cards.
    ///   - photoRate: The share of new contacts with a photo.
    ///   - duplicateRate: The share of cards that repeat an earlier card's meaning.
    ///   - nearDuplicateRate: The share of cards that are an earlier contact, slightly changed.
    ///   - sparse: Whether to write minimal cards.
    ///   - rfcOnly: Whether to keep to the RFC's registered vocabulary.
    public init(
        count: Int, seed: UInt64, version: Version = .mixed, photoRate: Double = 0.1, duplicateRate: Double = 0,
        nearDuplicateRate: Double = 0, sparse: Bool = false, rfcOnly: Bool = false
    ) {
        self.count = count
        self.seed = seed
        self.version = version
        self.photoRate = photoRate
        self.duplicateRate = duplicateRate
        self.nearDuplicateRate = nearDuplicateRate
        self.sparse = sparse
        self.rfcOnly = rfcOnly
    }
}

extension GeneratorOptions {
    var clampedCount: Int { max(0, count) }
    var clampedPhotoRate: Double { Self.clamp(photoRate) }
    var clampedDuplicateRate: Double { Self.clamp(duplicateRate) }
    var clampedNearDuplicateRate: Double { Self.clamp(nearDuplicateRate) }
    /// Look-alikes are a quarter of the near-duplicate rate.
    var lookalikeRate: Double { clampedNearDuplicateRate / 4 }

    private static func clamp(_ rate: Double) -> Double {
        rate.isNaN ? 0 : min(max(rate, 0), 1)
    }
}
