/// A contact: an ordered list of properties between `BEGIN:VCARD` and `END:VCARD`.
///
/// `VERSION` is an ordinary property of the list; ``version`` reads it. Unknown, `X-` and grouped
/// properties are kept like any other.
///
/// ```swift
/// var card = VCard(version: .v4_0)
/// card.append(VCardProperty(name: "FN", text: "Ada Lovelace"))
/// card.append(VCardProperty(name: "EMAIL", rawValue: "ada@example.com"))
/// let text = VCardWriter(target: .v4_0).string(for: card)
/// ```
public struct VCard: Sendable {
    /// The properties, in order, including `VERSION`.
    public var properties: [VCardProperty] {
        _read {
            if let deferred { yield deferred.properties } else { yield builtProperties }
        }
        set {
            builtProperties = newValue
            deferred = nil
            originalText = nil
        }
        _modify {
            if let deferred {
                builtProperties = deferred.properties
                self.deferred = nil
            }
            // Any change to the list or to one of its properties: the card is no longer its bytes.
            defer { originalText = nil }
            yield &builtProperties
        }
    }

    /// The properties once built (empty while ``deferred`` holds the card's text instead).
    private var builtProperties: [VCardProperty]
    /// The text of a card read with its properties deferred (``VCardReadOptions/deferredVersions``),
    /// which builds them on first use.
    private var deferred: DeferredProperties?

    /// The card's whole text as read, from `BEGIN:VCARD` to the line end after `END:VCARD`, while
    /// nothing of the card has changed: it is then exactly `originalBegin`, every property's
    /// `original` and `originalEnd` one after the other (they share its storage), and
    /// ``VCardWriter`` copies it as one block.
    var originalText: ArraySlice<UInt8>?

    /// The bytes of the `BEGIN` line as read (with its line end and anything up to the first
    /// property), for byte-exact write-back.
    public internal(set) var originalBegin: ArraySlice<UInt8>?
    /// The bytes of the `END` line as read (with its line end, if it had one).
    public internal(set) var originalEnd: ArraySlice<UInt8>?
    /// The blank lines that stood between the previous card (or the start of the input) and this
    /// card's `BEGIN` line, as read. They belong to the file, not to the card: ``VCardWriter``
    /// writes them only when it writes the card as part of a file (``VCardWriter/write(_:asPartOfFile:into:)``),
    /// never into the card's own text.
    public internal(set) var blankLinesBefore: [UInt8] = []
    /// Where the card starts in its input.
    public internal(set) var location: SourceLocation?
    /// The version the card was read as (its `VERSION`, or the reader's guess when it had none).
    public internal(set) var sourceVersion: VCardVersion?

    /// Creates an empty card with a `VERSION` property (or none, if `version` is `nil`).
    public init(version: VCardVersion? = .v4_0, properties: [VCardProperty] = []) {
        builtProperties = []
        if let version { builtProperties.append(VCardProperty(name: "VERSION", rawValue: version.rawValue)) }
        builtProperties.append(contentsOf: properties)
        self.sourceVersion = version
    }

    /// Creates a card read from a source other than vCard text (jCard, xCard, a database).
    /// - Parameters:
    ///   - properties: the properties, in order, including `VERSION`.
    ///   - sourceVersion: the version the card's values are written in.
    ///   - location: where the card starts in its input.
    public init(properties: [VCardProperty], sourceVersion: VCardVersion?, location: SourceLocation?) {
        self.init(properties: properties, originalBegin: nil, originalEnd: nil, location: location, sourceVersion: sourceVersion)
    }

    init(properties: [VCardProperty], originalBegin: ArraySlice<UInt8>?, originalEnd: ArraySlice<UInt8>?,
         blankLinesBefore: [UInt8] = [], location: SourceLocation?, sourceVersion: VCardVersion?) {
        builtProperties = properties
        self.originalBegin = originalBegin
        self.originalEnd = originalEnd
        self.blankLinesBefore = blankLinesBefore
        self.location = location
        self.sourceVersion = sourceVersion
    }

    /// A card read from `frame` whose properties are built from it on first use; `frame` was
    /// checked without building them, and the card is unedited: its whole text is `frame`'s.
    init(deferring frame: VCardFrame, logicalLines: [DeferredLine], beginEnd: Int, endLine: PhysicalLine, location: SourceLocation,
         sourceVersion: VCardVersion) {
        builtProperties = []
        deferred = DeferredProperties(frame, logicalLines: logicalLines)
        originalBegin = frame.bytes[0..<beginEnd]
        originalEnd = frame.bytes[endLine.start..<endLine.end]
        originalText = frame.bytes[...]
        blankLinesBefore = frame.blankLinesBefore
        self.location = location
        self.sourceVersion = sourceVersion
    }

    /// Whether the card was read with its properties deferred and they were not replaced since
    /// (reading them builds them, and leaves the card deferred).
    var isDeferred: Bool { deferred != nil }

    /// The text a card read with its properties deferred is built from, while the card is
    /// unedited.
    var deferredProperties: DeferredProperties? { deferred }

    /// The version named by the card's `VERSION` property, if it names one cardsync knows.
    public var version: VCardVersion? {
        guard let value = first("VERSION")?.rawValue else { return nil }
        return VCardVersion(rawValue: value.trimmingASCIISpaces)
    }

    /// The first property with the given name (case-insensitive).
    public func first(_ name: String) -> VCardProperty? {
        // A card read with its properties deferred builds only the line asked for.
        if let deferred { return deferred.first(named: name) }
        return properties.first { $0.hasName(name) }
    }

    /// All properties with the given name (case-insensitive), in order.
    public func all(_ name: String) -> [VCardProperty] {
        properties.filter { $0.hasName(name) }
    }

    /// Appends a property.
    public mutating func append(_ property: VCardProperty) {
        properties.append(property)
    }

    /// Removes every property with the given name.
    public mutating func removeAll(named name: String) {
        properties.removeAll { $0.hasName(name) }
    }

    /// Whether every property, and the card's frame, still hold exactly what was read.
    public var isUnedited: Bool {
        // A deferred card is its text: every property it builds keeps its original bytes.
        originalBegin != nil && originalEnd != nil && (deferred != nil || properties.allSatisfy(\.isUnedited))
    }

    /// Forgets the original bytes of the card and all its properties, so that it is written in
    /// canonical form.
    public mutating func forgetOriginalFormatting() {
        originalBegin = nil
        originalEnd = nil
        originalText = nil
        blankLinesBefore = []
        for index in properties.indices { properties[index].original = nil }
    }
}

extension VCard: Hashable {
    /// Cards are equal when their property lists are equal.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.properties == rhs.properties }
    public func hash(into hasher: inout Hasher) { hasher.combine(properties) }
}

extension String {
    var trimmingASCIISpaces: String {
        let bytes = Array(utf8)
        var start = 0, end = bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        if start == 0 && end == bytes.count { return self }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}
