/// A revision id, `N-<hash>`: the generation (edits since creation) and a hash of the content.
///
/// Revisions order the way CouchDB picks a winner among equals: by generation, then by hash.
public struct Revision: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// How many edits led to this revision (1 for a new document).
    public var generation: Int
    /// The hash part, 32 lowercase hex digits for revisions this server makes.
    public var hash: String

    /// A revision from its parts.
    public init(generation: Int, hash: String) {
        self.generation = generation
        self.hash = hash
    }

    /// Parses `N-hash`; `nil` when the text is not a revision id.
    public init?(_ text: String) {
        guard let dash = text.utf8.firstIndex(of: UInt8(ascii: "-")) else { return nil }
        let digits = text[..<dash]
        let hash = text[text.index(after: dash)...]
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), digits.count < 10,
              let generation = Int(digits), generation >= 1, !hash.isEmpty
        else { return nil }
        self.generation = generation
        self.hash = String(hash)
    }

    public var description: String { "\(generation)-\(hash)" }

    public static func < (lhs: Revision, rhs: Revision) -> Bool {
        if lhs.generation != rhs.generation { return lhs.generation < rhs.generation }
        return lhs.hash.utf8.lexicographicallyPrecedes(rhs.hash.utf8)
    }
}
