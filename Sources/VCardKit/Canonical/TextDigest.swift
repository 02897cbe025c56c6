import Crypto

/// What ties a ``ContentHash`` to the exact text it was computed from: the SHA-256 of the
/// canonical form's version line (`cardsync-content-v1`) followed by the card's bytes as they
/// are.
///
/// A reader that holds the same bytes and finds the same digest beside a content hash may take
/// that hash instead of computing it again (a digest of the bytes costs a small part of a
/// canonical form). Any change to the text, or a hash made with another version of the
/// canonical form, gives another digest, and the hash is computed from the text as before.
///
/// ```swift
/// let digest = TextDigest(of: bytes)
/// let hash = recorded.digest == digest ? recorded.hash : ContentHash(of: card)
/// ```
public struct TextDigest: Sendable, Hashable, CustomStringConvertible {
    /// The 32 bytes of the digest (held as a ``ContentHash`` holds its own).
    private let value: ContentHash

    /// The digest of `bytes`, a card's text exactly as stored.
    public init(of bytes: [UInt8]) {
        var hasher = SHA256()
        hasher.update(data: ContentHash.versionLine)
        bytes.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        value = ContentHash(digest: hasher.finalize())
    }

    /// Reads the 64 hexadecimal digits of ``hexDigits``; `nil` for anything else.
    public init?(hexDigits: some StringProtocol) {
        guard let value = ContentHash(hexDigits: hexDigits) else { return nil }
        self.value = value
    }

    /// The digest as 64 lower-case hexadecimal digits.
    public var hexDigits: String { value.hexDigits }

    public var description: String { hexDigits }
}
