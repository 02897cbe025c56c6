/// The SplitMix64 generator (Steele, Lea and Flood, 2014).
///
/// Used to expand one 64-bit seed into the state of ``Xoshiro256StarStar`` and to mix a seed
/// with an index into an independent per-card seed. Integer arithmetic only, so its output is the
/// same on every platform and every Swift release.
struct SplitMix64: Sendable {
    /// The current state; advanced by the golden-ratio increment on every call.
    var state: UInt64

    /// Returns the next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.finalize(state)
    }

    /// Scrambles `value` with the SplitMix64 output function (a bijection on 64-bit words).
    static func finalize(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
