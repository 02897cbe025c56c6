/// Limits and choices for reading JSON, shared by ``JSONParser`` and ``JSONStreamReader``.
///
/// ```swift
/// let options = JSONReadingOptions(maximumDepth: 64, maximumBytes: 10 << 20, allowsByteOrderMark: true)
/// let value = try JSONValue(parsing: bytes, options: options)
/// ```
public struct JSONReadingOptions: Sendable, Hashable {
    /// The deepest nesting of arrays and objects accepted, so that hostile input cannot exhaust
    /// the stack (the parser recurses once per level).
    public var maximumDepth: Int
    /// The most bytes of JSON text built into one value: the whole text for ``JSONParser``, each
    /// value or token a ``JSONStreamReader`` returns (a larger one is reported with
    /// ``JSONError/Code/tooLarge`` and passed over).
    public var maximumBytes: Int
    /// Whether a UTF-8 byte order mark may open the text (RFC 8259 lets a parser ignore it; it is
    /// not counted in columns).
    public var allowsByteOrderMark: Bool
    /// Whether a `\u` escape of a UTF-16 surrogate without its pair (which the grammar allows
    /// but no Unicode string can hold) becomes U+FFFD; otherwise it is an error.
    public var replacesLoneSurrogates: Bool

    /// Options; the defaults suit documents received over a network.
    public init(maximumDepth: Int = 512, maximumBytes: Int = .max, allowsByteOrderMark: Bool = false,
                replacesLoneSurrogates: Bool = true) {
        self.maximumDepth = maximumDepth
        self.maximumBytes = maximumBytes
        self.allowsByteOrderMark = allowsByteOrderMark
        self.replacesLoneSurrogates = replacesLoneSurrogates
    }
}
