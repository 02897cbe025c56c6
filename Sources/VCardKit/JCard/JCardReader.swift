import JSONText

/// Reads jCard (RFC 7095): `["vcard", [[name, {params}, type, value…], …]]`, or an array of such
/// cards.
///
/// ```swift
/// let result = try JCardReader.read(Array(json.utf8), sourceName: "contacts.json")
/// ```
///
/// Values are turned into vCard 4.0 text values: text is escaped, structured values joined with
/// `;`, multiple values with `,`, dates and times moved to the basic form (`1985-04-12` →
/// `19850412`), and a type other than the property's default becomes a `VALUE` parameter.
/// Problems are reported with the JSON line and column, like the text reader's.
public enum JCardReader {
    /// Reads every card of a jCard document held in memory, through ``JCardParser``.
    /// - Throws: ``VCardError`` with code `strictViolation` in strict mode, at the first problem.
    public static func read(_ bytes: [UInt8], sourceName: String = "<input>",
                            options: VCardReadOptions = .lenient) throws(VCardError) -> VCardReadResult {
        var parser = JCardParser(sourceName: sourceName, options: options)
        parser.feed(bytes)
        return try parser.finishReading()
    }

    /// Turns one `["vcard", [properties]]` value into a card; `report` receives the problems.
    /// - Parameters:
    ///   - number: the card's position in the document, from 1, for messages.
    ///   - location: where the card's JSON starts.
    static func card(from value: JSONValue, number: Int, location: SourceLocation,
                     report: (Diagnostic.Severity, Diagnostic.Code, String) -> Void) -> VCard? {
        guard case .array(let parts) = value, parts.count >= 2, parts[0] == .string("vcard"),
              case .array(let properties) = parts[1] else {
            report(.error, .notJCard, "card \(number) is not [\"vcard\", [properties]]; it was skipped")
            return nil
        }
        if parts.count > 2 {
            let empty = parts.dropFirst(2).allSatisfy { $0 == .array([]) }
            report(empty ? .warning : .error, .notJCard,
                   "card \(number) has \(parts.count - 2) element(s) after its properties (a jCal-style component list); \(empty ? "it was empty and ignored" : "they were ignored")")
        }
        var card = VCard(version: nil)
        for (propertyIndex, entry) in properties.enumerated() {
            switch property(from: entry) {
            case .success(let property): card.append(property)
            case .failure(let message):
                report(.warning, .invalidValue, "card \(number), property \(propertyIndex + 1): \(message); it was skipped")
            }
        }
        card.sourceVersion = card.version ?? .v4_0
        card.location = location
        if card.version == nil {
            report(.warning, .missingVersion, "card \(number) has no version property; it was read as 4.0")
        }
        if card.first("FN") == nil {
            report(.warning, .missingFormattedName, "card \(number) has no fn, which vCard 4.0 requires")
        }
        return card
    }

    private enum Outcome { case success(VCardProperty), failure(String) }

    private static func property(from entry: JSONValue) -> Outcome {
        guard case .array(let parts) = entry, parts.count >= 4 else {
            return .failure("a property is [name, {parameters}, type, value, …]")
        }
        guard case .string(let rawName) = parts[0], !rawName.isEmpty else { return .failure("the property name is not a string") }
        guard case .object(let members) = parts[1] else { return .failure("the parameters of \(rawName) are not an object") }
        guard case .string(let rawType) = parts[2] else { return .failure("the value type of \(rawName) is not a string") }
        let name = rawName.asciiUppercased
        let type = rawType.asciiLowercased
        var group: String?
        var originalName: String?
        var parameters: [VCardParameter] = []
        for member in members.members {
            let (key, value) = (member.key, member.value)
            let values: [String]
            switch value {
            case .string(let text): values = [text]
            case .number(let text): values = [text]
            case .array(let items):
                values = items.compactMap {
                    switch $0 {
                    case .string(let text), .number(let text): text
                    default: nil
                    }
                }
            default: return .failure("parameter \(key) of \(rawName) is not a string or an array of strings")
            }
            if key.equalsIgnoringASCIICase("group") {
                group = values.first
            } else if key.equalsIgnoringASCIICase(VCardValueType.originalNameParameter), let original = values.first {
                originalName = original
            } else {
                parameters.append(VCardParameter(name: key.asciiUppercased, values: values))
            }
        }
        let defaultType = VCardValueType.defaultType(of: name)
        if type != defaultType && type != "unknown" {
            parameters.append(VCardParameter(name: "VALUE", value: type))
        }
        let kind = PropertyTraits.of(name).kind
        let values = Array(parts[3...])
        var texts: [String] = []
        for value in values {
            switch value {
            case .array(let components):
                // A structured value: components, each a string or a list of strings.
                let joined = components.map { component -> String in
                    switch component {
                    case .array(let items): items.map { escapeIfText(scalar($0), type: type) }.joined(separator: ",")
                    default: escapeIfText(scalar(component), type: type)
                    }
                }.joined(separator: ";")
                texts.append(joined)
            default:
                texts.append(convertScalar(scalar(value), type: type, kind: kind))
            }
        }
        // Structured values and vCard 3.0's `GEO:lat;lon` (two floats in jCard) join with ';'.
        let separator = (kind == .structured || kind == .structuredText || name == "GEO") ? ";" : ","
        return .success(VCardProperty(group: group, name: originalName ?? name, parameters: parameters,
                                      rawValue: texts.joined(separator: separator)))
    }

    private static func scalar(_ value: JSONValue) -> String {
        switch value {
        case .string(let text), .number(let text): text
        case .bool(let flag): flag ? "TRUE" : "FALSE"
        case .null: ""
        case .array, .object: ""
        }
    }

    private static func escapeIfText(_ text: String, type: String) -> String {
        type == "text" || type == "unknown" ? TextEscaping.escape(text) : text
    }

    private static func convertScalar(_ text: String, type: String, kind: PropertyValueKind) -> String {
        switch type {
        case "text" where VCardValueType.isEscapedText(kind):
            return TextEscaping.escape(text)
        case "date", "date-time", "date-and-or-time", "timestamp": return DateForms.basic(text)
        case "time": return DateForms.basic(text, isTime: true)
        case "utc-offset": return DateForms.basicOffsetIfOffset(text)
        default: return text
        }
    }
}

extension Diagnostic.Code {
    static let invalidJSON: Self = "invalid-json"
    static let notJCard: Self = "not-jcard"
}
