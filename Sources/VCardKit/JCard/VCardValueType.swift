/// The value types of vCard 4.0 as jCard and xCard name them (RFC 7095 §3.5, RFC 6351 §4),
/// and the default type of each property (RFC 6350).
public enum VCardValueType {
    /// The parameter that carries a property name jCard's grammar cannot hold.
    static let originalNameParameter = "x-cardsync-name"

    /// The value type names.
    public static let known: Set<String> = ["text", "uri", "date", "time", "date-time", "date-and-or-time", "timestamp",
                                     "boolean", "integer", "float", "utc-offset", "language-tag", "unknown"]

    /// The type a property has when it carries no `VALUE` parameter (`unknown` for extensions).
    public static func defaultType(of name: String) -> String {
        switch name.asciiUppercased {
        case "SOURCE", "PHOTO", "IMPP", "GEO", "LOGO", "MEMBER", "SOUND", "URL", "KEY", "FBURL", "CALADRURI", "CALURI",
             "RELATED", "UID":
            "uri"
        case "BDAY", "ANNIVERSARY", "DEATHDATE":
            "date-and-or-time"
        case "REV":
            "timestamp"
        case "LANG":
            "language-tag"
        case "VERSION", "FN", "N", "NICKNAME", "GENDER", "ADR", "TEL", "EMAIL", "TZ", "TITLE", "ROLE", "ORG", "CATEGORIES",
             "NOTE", "PRODID", "KIND", "XML", "CLIENTPIDMAP", "LABEL", "MAILER", "CLASS", "SORT-STRING", "NAME", "AGENT",
             "BIRTHPLACE", "DEATHPLACE", "EXPERTISE", "HOBBY", "INTEREST":
            "text"
        default:
            "unknown"
        }
    }

    /// Whether cardsync keeps values of this kind escaped (so jCard's plain text must be
    /// unescaped on the way out and escaped on the way in).
    public static func isEscapedText(_ kind: PropertyValueKind) -> Bool {
        switch kind {
        case .text, .textList, .structured, .structuredText, .embeddedCard: true
        case .uri, .binary, .dateTime, .unknown: false
        }
    }

    /// A date or time in vCard 4.0's basic form (`1985-04-12` → `19850412`); other values unchanged.
    public static func basicForm(_ value: String) -> String { DateForms.basic(value) }

    static func isDateOrTime(_ type: String) -> Bool {
        type == "date" || type == "time" || type == "date-time" || type == "date-and-or-time" || type == "timestamp"
    }
}
