/// The Jaro-Winkler similarity of two strings: 1 for equal strings, 0 for strings with nothing
/// in common, and higher for strings that share a prefix (typing errors rarely hit the first
/// letters of a name).
///
/// ```swift
/// JaroWinkler.similarity("martha", "marhta")  // 0.961…
/// ```
///
/// Characters are compared as Unicode scalars; normalise case and accents first
/// (``NameNormalizer``).
public enum JaroWinkler {
    /// The weight of the common prefix: Winkler's 0.1.
    public static let prefixScale = 0.1
    /// At most this many leading characters count as the common prefix: Winkler's 4.
    public static let maximumPrefix = 4

    /// The Jaro-Winkler similarity of `a` and `b`, in `0...1`.
    public static func similarity(_ a: String, _ b: String) -> Double {
        similarity(Array(a.unicodeScalars), Array(b.unicodeScalars))
    }

    /// The Jaro-Winkler similarity of two scalar arrays, in `0...1`.
    public static func similarity(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Double {
        let jaro = jaroSimilarity(a, b)
        var prefix = 0
        while prefix < min(maximumPrefix, a.count, b.count), a[prefix] == b[prefix] { prefix += 1 }
        return jaro + Double(prefix) * prefixScale * (1 - jaro)
    }

    /// The Jaro similarity: matching characters within half the longer length, and transpositions.
    public static func jaroSimilarity(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Double {
        if a.isEmpty && b.isEmpty { return 1 }
        if a.isEmpty || b.isEmpty { return 0 }
        let window = max(0, max(a.count, b.count) / 2 - 1)
        var aMatched = [Bool](repeating: false, count: a.count)
        var bMatched = [Bool](repeating: false, count: b.count)
        var matches = 0
        for i in a.indices {
            let low = max(0, i - window)
            let high = min(b.count - 1, i + window)
            guard low <= high else { continue }
            for j in low...high where !bMatched[j] && a[i] == b[j] {
                aMatched[i] = true
                bMatched[j] = true
                matches += 1
                break
            }
        }
        guard matches > 0 else { return 0 }
        var halfTranspositions = 0
        var j = 0
        for i in a.indices where aMatched[i] {
            while !bMatched[j] { j += 1 }
            if a[i] != b[j] { halfTranspositions += 1 }
            j += 1
        }
        let m = Double(matches)
        let t = Double(halfTranspositions / 2)
        return (m / Double(a.count) + m / Double(b.count) + (m - t) / m) / 3
    }
}
