import Crypto

extension ContentHash {
    /// The content hash of `card`, computed without building ``canonicalText(of:)`` as a `String`:
    /// the canonical lines are written as bytes into one buffer and hashed.
    ///
    /// The bytes are exactly the UTF-8 of ``canonicalText(of:)`` (both come from
    /// ``canonicalTextBytes(of:)``), so the digest is the one the journal and the index hold.
    public init(of card: VCard) {
        let bytes = Self.canonicalTextBytes(of: card)
        self.init(digest: bytes.withUnsafeBytes { SHA256.hash(data: $0) })
    }

    /// The first line of the canonical text, which names the version of the canonical form: a
    /// hash of another version is another hash.
    static let versionLine = Array("cardsync-content-v1\n".utf8)

    /// The 32 bytes of `digest` as a hash.
    init(digest: SHA256.Digest) {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        digest.withUnsafeBytes { raw in
            func word(_ offset: Int) -> UInt64 {
                var value: UInt64 = 0
                for index in offset..<(offset + 8) { value = value << 8 | UInt64(raw[index]) }
                return value
            }
            words = (word(0), word(8), word(16), word(24))
        }
        self.init(words: words)
    }

    /// The UTF-8 bytes of ``canonicalText(of:)``, made as bytes (``CanonicalLines``).
    static func canonicalTextBytes(of card: VCard) -> [UInt8] {
        var lines = CanonicalLines(capacity: card.deferredProperties?.frame.bytes.count ?? 256)
        CanonicalForm.collect(card, excluding: .volatile, into: &lines)
        lines.sortAndRelabelGroups()
        return lines.text()
    }
}
