public import VCardKit

/// One contact of a ``ContactSet``: the card, where it was read, and what matching needs.
public struct ContactEntry: Sendable {
    /// The card — for an entry read with only some properties (``ContactSet/parsed(selecting:)``),
    /// only those; ``completeCard`` reads the rest.
    public var card: VCard
    /// Where the card was read: `file:line`.
    public var origin: String
    /// The card's UID without surrounding white space; `nil` when it has none.
    public var uid: String?
    /// The content hash (form, `UID`, `REV`, `PRODID` and `VERSION` do not change it) of the
    /// complete card: ``knownHash`` when it was given, otherwise computed on each access (most
    /// comparisons never need it, and it is most of the cost of a card).
    public var hash: ContentHash { knownHash ?? ContentHash(of: completeCard) }
    /// The complete card's content hash when the reader already knows it (an address book's
    /// index holds it for every contact). An entry that keeps only some properties of a card
    /// (and not its text) must carry it, or ``hash`` would hash those properties alone.
    public var knownHash: ContentHash?
    /// The whole card's text and source name when ``card`` holds only some of its properties.
    var wholeText: (bytes: ArraySlice<UInt8>, source: String)?
    /// Whether ``card`` holds only some of the card's properties.
    public var isPartial: Bool { wholeText != nil }
    /// The card with all its properties: ``card``, or for a partial entry the card read again whole.
    public var completeCard: VCard {
        guard let wholeText else { return card }
        return PlainCardReader.read(wholeText.bytes, sourceName: wholeText.source)
            ?? (try? VCardReader.read(wholeText.bytes, sourceName: wholeText.source))?.cards.first ?? card
    }
    /// The name to show: `FN`, else `N`, else the organization, else the UID, else the origin
    /// (worked out when asked: most entries of a large set are never shown).
    public var displayName: String { Self.displayName(of: card) ?? uid ?? origin }

    /// Reads what matching needs from `card`.
    public init(card: VCard, origin: String) {
        self.card = card
        self.origin = origin
        let trimmed = card.uid.map(Self.trimmed) ?? ""
        uid = trimmed.isEmpty ? nil : trimmed
    }

    /// `text` without leading and trailing spaces and tabs.
    static func trimmed(_ text: String) -> String {
        guard let first = text.first, let last = text.last, first == " " || first == "\t" || last == " " || last == "\t" else { return text }
        var slice = Substring(text)
        while let character = slice.first, character == " " || character == "\t" { slice = slice.dropFirst() }
        while let character = slice.last, character == " " || character == "\t" { slice = slice.dropLast() }
        return String(slice)
    }

    /// The card's name as people read it, or `nil` when it has none.
    static func displayName(of card: VCard) -> String? {
        if let name = card.formattedName.map(trimmed), !name.isEmpty { return name }
        if let structured = card.structuredName {
            let name = (structured.given + structured.additional + structured.family).filter { !$0.isEmpty }.joined(separator: " ")
            if !name.isEmpty { return name }
        }
        if let organization = card.organization?.filter({ !$0.isEmpty }), !organization.isEmpty {
            return organization.joined(separator: ", ")
        }
        return nil
    }
}

