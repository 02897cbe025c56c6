/// The xoshiro256** generator (Blackman and Vigna, 2018).
///
/// A small, fast, well-tested generator whose output depends only on its seed. Swift's
/// `SystemRandomNumberGenerator` is deliberately not used anywhere in this module, and neither
/// are the standard library's `random(in:using:)` helpers, whose algorithms may change between
/// releases; ``SeededRandom`` provides its own.
struct Xoshiro256StarStar: Sendable {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    /// Creates a generator whose state is expanded from `seed` with ``SplitMix64``.
    init(seed: UInt64) {
        var expander = SplitMix64(state: seed)
        s0 = expander.next()
        s1 = expander.next()
        s2 = expander.next()
        s3 = expander.next()
    }

    /// Returns the next 64 random bits.
    mutating func next() -> UInt64 {
        let result = Self.rotateLeft(s1 &* 5, by: 7) &* 9
        let shifted = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= shifted
        s3 = Self.rotateLeft(s3, by: 45)
        return result
    }

    private static func rotateLeft(_ value: UInt64, by amount: UInt64) -> UInt64 {
        (value << amount) | (value >> (64 - amount))
    }
}
