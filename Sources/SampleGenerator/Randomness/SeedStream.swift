/// The independent random streams a card draws from.
///
/// Every decision about card `i` comes from a generator seeded with
/// `derive(seed, i, stream)`, so a card can be regenerated on its own (duplicates re-create the
/// card they copy instead of keeping it in memory) and adding a draw to one stream never shifts
/// the values of another.
enum SeedStream: UInt64, Sendable {
    /// Whether the card is an original, a duplicate, a near duplicate or a look-alike.
    case role = 1
    /// Exact or reformatted, for duplicates.
    case duplicateKind
    /// Which earlier card a duplicate, near duplicate or look-alike refers to.
    case target
    /// vCard 3.0 or 4.0 when the options ask for a mix.
    case version
    /// The card's UID.
    case uid
    /// The contact's content.
    case content
    /// Changes of form for reformatted duplicates.
    case form
    /// Changes of content for near duplicates.
    case nearChanges
    /// The bytes of the card's photo.
    case photo

    /// Returns the seed of this stream for card `index` of the book generated from `seed`.
    func seed(_ seed: UInt64, index: Int) -> UInt64 {
        let streamKey = SplitMix64.finalize(seed &+ rawValue &* 0xD1B5_4A32_D192_ED03)
        return SplitMix64.finalize(streamKey ^ UInt64(truncatingIfNeeded: index))
    }

    /// Returns a generator for this stream of card `index`.
    func generator(_ seed: UInt64, index: Int) -> SeededRandom {
        SeededRandom(seed: self.seed(seed, index: index))
    }

    /// Returns a number in `0..<1` from this stream of card `index`, without building a generator.
    func unitValue(_ seed: UInt64, index: Int) -> Double {
        SeededRandom.unit(SplitMix64.finalize(self.seed(seed, index: index)))
    }
}
