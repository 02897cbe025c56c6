import JSONText

/// Writes cards as jCard (RFC 7095). Cards in another version are converted to 4.0 first
/// (losslessly, see ``VersionConverter``).
///
/// ```swift
/// let json = JCardWriter().bytes(for: cards)   // [["vcard", [...]], ...] or ["vcard", [...]] for one card
/// ```
public struct JCardWriter: Sendable {
    /// Whether a single card is written as `["vcard", …]` rather than in an array (the default).
    public var unwrapsSingleCard: Bool

    /// Creates a writer.
    public init(unwrapsSingleCard: Bool = true) {
        self.unwrapsSingleCard = unwrapsSingleCard
    }

    /// The jCard text of `cards`.
    public func bytes(for cards: [VCard]) -> [UInt8] {
        var output: [UInt8] = []
        let values = cards.map(Self.value(for:))
        if unwrapsSingleCard && values.count == 1 {
            values[0].write(to: &output)
        } else {
            JSONValue.array(values).write(to: &output)
        }
        output.append(0x0A)
        return output
    }

    /// The jCard text of one card, `["vcard", [...]]`, for writing a stream of cards into a
    /// JSON array.
    public static func element(for card: VCard) -> [UInt8] {
        var output: [UInt8] = []
        value(for: card).write(to: &output)
        return output
    }

    /// The notes (properties jCard's 4.0 lacks) converting `card` produced.
    public func notes(for card: VCard) -> [Diagnostic] {
        (card.sourceVersion ?? card.version) == .v4_0 ? [] : VersionConverter.convert(card, to: .v4_0).notes
    }

    static func value(for card: VCard) -> JSONValue {
        let card4 = (card.sourceVersion ?? card.version) == .v4_0 ? card : VersionConverter.convert(card, to: .v4_0).card
        var properties: [JSONValue] = []
        var sawVersion = false
        for property in card4.properties {
            if property.traits.role == .version {
                if sawVersion { continue }
                sawVersion = true
            }
            properties.append(value(for: property))
        }
        if !sawVersion { properties.insert(.array([.string("version"), .object(JSONObject()), .string("text"), .string("4.0")]), at: 0) }
        return .array([.string("vcard"), .array(properties)])
    }

    static func value(for property: VCardProperty) -> JSONValue {
        let name = property.upperName
        var members = JSONObject()
        if let group = property.group, !group.isEmpty { members.append("group", .string(group)) }
        // A name jCard cannot spell (spaces, slashes in lenient input) travels in a parameter.
        let spellable = property.name.utf8.allSatisfy { ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
        if !spellable { members.append(VCardValueType.originalNameParameter, .string(property.name)) }
        var type = VCardValueType.defaultType(of: name)
        for parameter in property.parameters where !VCardWriter.isTransferParameter(parameter) {
            if parameter.hasName("VALUE"), parameter.values.count == 1, VCardValueType.known.contains(parameter.values[0].asciiLowercased) {
                type = parameter.values[0].asciiLowercased
                continue
            }
            if parameter.hasName("VALUE") {
                // A value type jCard does not know (`VALUE=vcard`): kept as a parameter, typed unknown.
                type = "unknown"
            }
            let key = parameter.name.asciiLowercased
            members.append(key, parameter.values.count == 1 ? .string(parameter.values[0]) : .array(parameter.values.map(JSONValue.string)))
        }
        if !VCardValueType.known.contains(type) { type = "unknown" }
        let kind = property.traits.kind
        var values: [JSONValue] = []
        let raw = property.rawValue
        switch type {
        case "text" where kind == .structured || kind == .structuredText:
            let components = TextEscaping.split(raw, separator: 0x3B).map { component -> JSONValue in
                if kind == .structuredText { return .string(TextEscaping.unescape(component)) }
                let items = TextEscaping.split(component, separator: 0x2C).map(TextEscaping.unescape)
                return items.count == 1 ? .string(items[0]) : .array(items.map(JSONValue.string))
            }
            values = components.count == 1 ? [components[0]] : [.array(components)]
        case "text" where kind == .textList:
            values = TextEscaping.split(raw, separator: 0x2C).map { .string(TextEscaping.unescape($0)) }
        case "text" where kind == .text || kind == .embeddedCard:
            values = [.string(TextEscaping.unescape(raw))]
        case "text" where !VCardValueType.isEscapedText(kind):
            values = [.string(raw)]
        case "text":
            // Values cardsync keeps unescaped (TEL, EMAIL, TZ, extensions): as they are.
            values = [.string(raw)]
        case "date", "date-time", "date-and-or-time", "timestamp", "time":
            values = [.string(DateForms.extended(raw))]
        case "utc-offset":
            values = [.string(DateForms.extendedOffset(raw))]
        case "integer", "float":
            let numbers = raw.split(whereSeparator: { $0 == ";" || $0 == "," }).map { String($0).trimmingASCIISpaces }
            if !numbers.isEmpty, numbers.allSatisfy({ type == "integer" ? Int($0) != nil : Double($0) != nil }) {
                values = numbers.map(JSONValue.number)
            } else {
                members.append("value", .string(type))
                type = "unknown"
                values = [.string(raw)]
            }
        case "boolean" where raw.equalsIgnoringASCIICase("true") || raw.equalsIgnoringASCIICase("false"):
            values = [.bool(raw.equalsIgnoringASCIICase("true"))]
        default:
            if type != "uri" && type != "language-tag" && type != "unknown" {
                members.append("value", .string(type))
                type = "unknown"
            }
            values = [.string(raw)]
        }
        if values.isEmpty { values = [.string("")] }
        let jcardName = spellable ? name.asciiLowercased : "x-cardsync-property"
        return .array([.string(jcardName), .object(members), .string(type)] + values)
    }
}
