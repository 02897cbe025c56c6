import VCardKit

/// The names xCard (RFC 6351) uses: its namespace, the component elements of structured values,
/// value-type elements, and the value patterns of RFC 6351's schema.
enum XCardVocabulary {
    /// The xCard namespace.
    static let namespace = "urn:ietf:params:xml:ns:vcard-4.0"

    /// The component element names of structured properties, in order.
    static func components(of name: String) -> [String]? {
        switch name {
        case "N": ["surname", "given", "additional", "prefix", "suffix"]
        case "ADR": ["pobox", "ext", "street", "locality", "region", "code", "country"]
        case "GENDER": ["sex", "identity"]
        case "CLIENTPIDMAP": ["sourceid", "uri"]
        default: nil
        }
    }

    /// The parameter that marks values whose control characters were moved to U+F700….
    static let controlMarker = "X-CARDSYNC-CONTROLS"

    /// The value elements RFC 6351's schema allows for a property (plus `unknown`, which
    /// `xcard.rng` allows everywhere); `nil` for extension properties, which take anything.
    static func allowedValueElements(_ name: String) -> Set<String>? {
        allowedValues[name]
    }

    private static let allowedValues: [String: Set<String>] = {
        var table: [String: Set<String>] = [:]
        for name in ["SOURCE", "PHOTO", "IMPP", "GEO", "LOGO", "MEMBER", "SOUND", "URL", "FBURL", "CALADRURI", "CALURI"] {
            table[name] = ["uri", "unknown"]
        }
        for name in ["UID", "KEY", "RELATED", "TEL"] { table[name] = ["uri", "text", "unknown"] }
        for name in ["FN", "NICKNAME", "EMAIL", "TITLE", "ROLE", "ORG", "CATEGORIES", "NOTE", "PRODID", "KIND"] {
            table[name] = ["text", "unknown"]
        }
        for name in ["BDAY", "ANNIVERSARY"] { table[name] = ["date", "date-time", "time", "text", "unknown"] }
        table["REV"] = ["timestamp", "text", "unknown"]
        table["LANG"] = ["language-tag", "unknown"]
        table["TZ"] = ["text", "uri", "utc-offset", "unknown"]
        return table
    }()

    /// The value-type elements.
    static let valueTypes: Set<String> = ["text", "uri", "date", "time", "date-time", "date-and-or-time", "timestamp",
                                          "boolean", "integer", "float", "utc-offset", "language-tag", "unknown"]

    /// A `TYPE` value in the case it is registered in (`WORK` → `work`), or as it is when it is
    /// not a registered one. Parameter values are case-insensitive (RFC 6350 §5), but RFC 6351's
    /// schema enumerates the registered ones in lower case, so xCard spells them that way.
    static func registeredCase(ofType value: String) -> String {
        let lower = value.lowercased()
        return registeredTypes.contains(lower) && lower != value ? lower : value
    }

    /// The registered `TYPE` values: RFC 6350's (§5.6, `TEL` §6.4.1, `RELATED` §6.6.6) and RFC 2426's.
    private static let registeredTypes: Set<String> = [
        "work", "home",
        "text", "voice", "fax", "cell", "video", "pager", "textphone",
        "contact", "acquaintance", "friend", "met", "co-worker", "colleague", "co-resident", "neighbor", "child",
        "parent", "sibling", "spouse", "kin", "muse", "crush", "date", "sweetheart", "me", "agent", "emergency",
        "pref", "msg", "bbs", "modem", "car", "isdn", "pcs", "dom", "intl", "postal", "parcel", "internet", "x400",
    ]

    /// The element type of a parameter's values in RFC 6351.
    static func parameterValueType(_ name: String) -> String {
        switch name {
        case "PREF": "integer"
        case "GEO": "uri"
        case "LANGUAGE": "language-tag"
        default: "text"
        }
    }

    /// Whether `name` can be an XML element name as is (`X-ABLabel` can; `BAD NAME` cannot).
    static func isXMLName(_ name: String) -> Bool {
        // The common case, ASCII letters, digits and '-', without Unicode property look-ups.
        if let first = name.utf8.first, (first | 0x20) >= 0x61 && (first | 0x20) <= 0x7A,
           name.utf8.allSatisfy({ ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }) {
            return !((name.utf8.first! | 0x20) == 0x78 && name.utf8.count >= 3 && name.lowercased().hasPrefix("xml"))
        }
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else { return false }
        return name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" || $0 == "." }
            && !name.lowercased().hasPrefix("xml")
    }

    // MARK: - Value patterns (RFC 6351 Appendix A)

    private static func digits(_ s: Substring, _ n: Int) -> Bool { s.count == n && s.allSatisfy { $0.isASCII && $0.isNumber } }

    /// `\d{8}|\d{4}-\d\d|--\d\d(\d\d)?|---\d\d`
    static func isDate(_ value: String) -> Bool {
        let s = Substring(value)
        if digits(s, 8) { return true }
        if s.count == 7, digits(s.prefix(4), 4), s.dropFirst(4).first == "-", digits(s.suffix(2), 2) { return true }
        if s.hasPrefix("---") { return digits(s.dropFirst(3), 2) }
        if s.hasPrefix("--") { return digits(s.dropFirst(2), 2) || digits(s.dropFirst(2), 4) }
        return false
    }

    /// `(Z|[+\-]\d\d(\d\d)?)?` at the end of a time; returns the time without it.
    private static func strippingZone(_ s: Substring) -> Substring? {
        if s.hasSuffix("Z") { return s.dropLast() }
        if let sign = s.lastIndex(where: { $0 == "+" || $0 == "-" }), sign != s.startIndex {
            let zone = s[s.index(after: sign)...]
            if digits(zone, 2) || digits(zone, 4) { return s[..<sign] }
            return nil
        }
        return s
    }

    /// `(\d\d(\d\d(\d\d)?)?|-\d\d(\d\d)?|--\d\d)` plus an optional zone.
    static func isTime(_ value: String) -> Bool {
        guard let clock = strippingZone(Substring(value)) else { return false }
        if clock.hasPrefix("--") { return digits(clock.dropFirst(2), 2) }
        if clock.hasPrefix("-") { return digits(clock.dropFirst(), 2) || digits(clock.dropFirst(), 4) }
        return digits(clock, 2) || digits(clock, 4) || digits(clock, 6)
    }

    /// `(\d{8}|--\d{4}|---\d\d)T\d\d(\d\d(\d\d)?)?` plus an optional zone.
    static func isDateTime(_ value: String) -> Bool {
        guard let t = value.firstIndex(of: "T") else { return false }
        let date = Substring(value[..<t])
        let dateOK = digits(date, 8) || (date.hasPrefix("--") && !date.hasPrefix("---") && digits(date.dropFirst(2), 4))
            || (date.hasPrefix("---") && digits(date.dropFirst(3), 2))
        guard dateOK, let clock = strippingZone(value[value.index(after: t)...]) else { return false }
        return digits(clock, 2) || digits(clock, 4) || digits(clock, 6)
    }

    /// `\d{8}T\d{6}` plus an optional zone.
    static func isTimestamp(_ value: String) -> Bool {
        guard value.count >= 15, let clock = strippingZone(Substring(value).dropFirst(9)) else { return false }
        let s = Substring(value)
        return digits(s.prefix(8), 8) && s.dropFirst(8).first == "T" && digits(clock, 6)
    }

    /// `[+\-]\d\d(\d\d)?`
    static func isUTCOffset(_ value: String) -> Bool {
        let s = Substring(value)
        guard s.first == "+" || s.first == "-" else { return false }
        return digits(s.dropFirst(), 2) || digits(s.dropFirst(), 4)
    }

    /// The element a date-and-or-time value is written as, or `nil` when it is none of them.
    static func dateAndOrTimeElement(_ value: String) -> String? {
        if isDate(value) { return "date" }
        if isDateTime(value) { return "date-time" }
        if value.hasPrefix("T"), isTime(String(value.dropFirst())) { return "time" }
        return nil
    }
}
