/// How ``VCardParser`` and ``VCardReader`` read input.
public struct VCardReadOptions: Sendable, Hashable {
    /// Lenient reading (the default) repairs what it can and reports warnings; strict reading
    /// stops at the first deviation from the RFCs.
    public var isStrict: Bool
    /// The largest card, in bytes, that is read; a larger one is reported and skipped.
    /// The default, 8 MB, matches CouchDB's document size limit.
    public var maximumCardBytes: Int
    /// The longest physical line, in bytes; a longer one is reported and its card skipped.
    public var maximumLineBytes: Int
    /// The most cards read from one input; the rest are reported and not read.
    public var maximumCards: Int
    /// The charset used for bytes that are not valid UTF-8 when no `CHARSET` parameter names one.
    public var fallbackCharset: String
    /// Whether a card with neither `VERSION` nor `FN` is an error (as `cardsync validate` reports
    /// it) rather than a warning. Lenient reading keeps such cards with a warning: sync tools and
    /// servers exchange minimal cards such as `BEGIN:VCARD`, `UID:…`, `END:VCARD`.
    public var requiresVersionOrFormattedName: Bool
    /// The versions (3.0, 4.0) whose cards are checked as they are read but whose properties are
    /// built only when ``VCard/properties`` is first used; empty (the default): every card is built
    /// as it is read.
    ///
    /// A deferred card reports the same diagnostics and holds the same properties as one built
    /// right away; only the work moves. It pays for a caller that mostly copies cards as they
    /// were read, such as conversion to the cards' own version or validation, which then never
    /// builds them. A card with anything unusual (2.1 syntax, a CHARSET, an ENCODING other than
    /// base64, parameter values with `^` or bytes beyond ASCII, blank, comment or other lines that
    /// are not content lines, values that need decoding) is built right away.
    public var deferredVersions: Set<VCardVersion>

    /// Creates options; the defaults suit real-world exports.
    public init(isStrict: Bool = false, maximumCardBytes: Int = 8 * 1024 * 1024,
                maximumLineBytes: Int = 8 * 1024 * 1024, maximumCards: Int = 10_000_000,
                fallbackCharset: String = "WINDOWS-1252", requiresVersionOrFormattedName: Bool = false,
                deferredVersions: Set<VCardVersion> = []) {
        self.isStrict = isStrict
        self.maximumCardBytes = maximumCardBytes
        self.maximumLineBytes = maximumLineBytes
        self.maximumCards = maximumCards
        self.fallbackCharset = fallbackCharset
        self.requiresVersionOrFormattedName = requiresVersionOrFormattedName
        self.deferredVersions = deferredVersions.subtracting([.v2_1])
    }

    /// The default, lenient options.
    public static let lenient = VCardReadOptions()
    /// The options of validation: lenient, except that a card that says neither which vCard it
    /// is (`VERSION`) nor whom it describes (`FN`) is an error.
    public static let validation = VCardReadOptions(requiresVersionOrFormattedName: true)
    /// Strict options: every deviation is an error.
    public static let strict = VCardReadOptions(isStrict: true)
    /// The default, lenient options, with plain 3.0 and 4.0 cards checked as they are read and
    /// built only when their properties are used (``deferredVersions``): for readers that mostly
    /// hash, copy and look up a few properties of each card (import, a folder scan, a pull), which
    /// ``ContentHash`` and ``VCard/first(_:)`` do from the card's lines.
    public static let deferringPlainCards = VCardReadOptions(deferredVersions: [.v3_0, .v4_0])
}
