/// A deterministic source of random choices, built on ``Xoshiro256StarStar``.
///
/// All helpers use integer arithmetic, or IEEE-754 operations that give the same result on every
/// platform, so the same seed yields the same choices everywhere. The type intentionally does
/// not conform to `RandomNumberGenerator`: the standard library's algorithms on top of that
/// protocol are not guaranteed to stay the same between Swift releases.
struct SeededRandom: Sendable {
    private var generator: Xoshiro256StarStar

    /// Creates a source of choices from a 64-bit seed.
    init(seed: UInt64) {
        generator = Xoshiro256StarStar(seed: seed)
    }

    /// Returns the next 64 random bits.
    mutating func next() -> UInt64 {
        generator.next()
    }

    /// Maps 64 random bits to a number in `0..<1` with 53 bits of precision.
    static func unit(_ bits: UInt64) -> Double {
        Double(bits >> 11) * 0x1p-53
    }

    /// Returns a number in `0..<1`.
    mutating func unit() -> Double {
        Self.unit(next())
    }

    /// Returns `true` with probability `probability` (values outside `0...1` act as clamped).
    mutating func chance(_ probability: Double) -> Bool {
        unit() < probability
    }

    /// Returns an integer in `0..<upperBound`, without modulo bias (Lemire's method).
    mutating func below(_ upperBound: Int) -> Int {
        precondition(upperBound > 0, "upper bound must be positive")
        let bound = UInt64(upperBound)
        var product = next().multipliedFullWidth(by: bound)
        if product.low < bound {
            let threshold = (0 &- bound) % bound
            while product.low < threshold {
                product = next().multipliedFullWidth(by: bound)
            }
        }
        return Int(product.high)
    }

    /// Returns an integer in `range`.
    mutating func integer(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.count)
    }

    /// Returns a random element of a non-empty array.
    mutating func element<Element>(of array: [Element]) -> Element {
        array[below(array.count)]
    }

    /// Returns `count` distinct elements of `array` in random order (`count` is capped at the array's size).
    mutating func sample<Element>(_ array: [Element], count: Int) -> [Element] {
        var pool = array
        let taken = min(count, pool.count)
        for position in 0..<taken {
            pool.swapAt(position, position + below(pool.count - position))
        }
        return Array(pool.prefix(taken))
    }

    /// Shuffles `array` in place (Fisher–Yates).
    mutating func shuffle<Element>(_ array: inout [Element]) {
        guard array.count > 1 else { return }
        for position in stride(from: array.count - 1, to: 0, by: -1) {
            array.swapAt(position, below(position + 1))
        }
    }

    /// Returns a string of `count` decimal digits.
    mutating func digits(_ count: Int) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(count)
        for _ in 0..<count {
            bytes.append(UInt8(ascii: "0") + UInt8(below(10)))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Fills `count` random bytes into `bytes`.
    mutating func appendBytes(_ count: Int, to bytes: inout [UInt8]) {
        var remaining = count
        while remaining > 0 {
            var word = next()
            for _ in 0..<min(8, remaining) {
                bytes.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
            remaining -= min(8, remaining)
        }
    }
}
