/// What kind of value a property holds, which decides how its value is escaped, compared and
/// converted between versions.
public enum PropertyValueKind: Sendable, Hashable {
    /// A single text value (FN, NOTE, TITLE, …).
    case text
    /// A comma-separated list of text values (CATEGORIES, NICKNAME).
    case textList
    /// Semicolon-separated components, each possibly a comma list (N, ADR, GENDER, CLIENTPIDMAP).
    case structured
    /// Semicolon-separated components that are plain text (ORG: commas are literal in units).
    case structuredText
    /// A URI, or text that is not escaped (URL, UID, EMAIL, TEL, IMPP, …).
    case uri
    /// Inline binary or a URI (PHOTO, LOGO, SOUND, KEY).
    case binary
    /// A date, time, date-time or timestamp (BDAY, ANNIVERSARY, REV).
    case dateTime
    /// An embedded vCard (AGENT in 2.1 and 3.0).
    case embeddedCard
    /// A value cardsync does not interpret: unknown and `X-` properties.
    case unknown

    /// The value kind of a property name (case-insensitive).
    public static func of(_ name: String) -> PropertyValueKind {
        PropertyTraits.of(name).kind
    }
}

/// What cardsync knows about a property name, looked up once per property.
struct PropertyTraits: Sendable, Hashable {
    var kind: PropertyValueKind
    /// Defined by RFC 2426, RFC 6350 or a registered extension.
    var isKnown: Bool
    var isOnlyIn3: Bool
    var isOnlyIn4: Bool
    /// Appears at most once in a card.
    var isSingular: Bool
    var isExtension: Bool
    var upperName: String

    static func of(_ name: String) -> PropertyTraits {
        let upper = name.asciiUppercased
        if let known = table[upper] { return known }
        let isExtension = upper.utf8.count > 2 && upper.utf8.starts(with: "X-".utf8)
        return PropertyTraits(kind: .unknown, isKnown: false, isOnlyIn3: false, isOnlyIn4: false, isSingular: false,
                              isExtension: isExtension, upperName: upper)
    }

    private static let table: [String: PropertyTraits] = {
        var table: [String: PropertyTraits] = [:]
        func kind(_ name: String) -> PropertyValueKind {
            switch name {
            case "FN", "NOTE", "TITLE", "ROLE", "LABEL", "MAILER", "SORT-STRING", "CLASS", "NAME", "PRODID",
                 "X-EVOLUTION-FILE-AS", "X-PHONETIC-FIRST-NAME", "X-PHONETIC-LAST-NAME", "X-ABLABEL":
                .text
            case "NICKNAME", "CATEGORIES": .textList
            case "N", "ADR", "GENDER", "CLIENTPIDMAP": .structured
            case "ORG": .structuredText
            case "PHOTO", "LOGO", "SOUND", "KEY": .binary
            case "BDAY", "ANNIVERSARY", "REV", "DEATHDATE": .dateTime
            case "AGENT": .embeddedCard
            case "URL", "UID", "EMAIL", "TEL", "IMPP", "GEO", "TZ", "SOURCE", "MEMBER", "RELATED", "FBURL",
                 "CALURI", "CALADRURI", "KIND", "LANG", "XML", "VERSION":
                .uri
            default: .unknown
            }
        }
        let names = PropertyAvailability.known.union(["X-EVOLUTION-FILE-AS", "X-PHONETIC-FIRST-NAME", "X-PHONETIC-LAST-NAME", "X-ABLABEL"])
        for name in names {
            table[name] = PropertyTraits(kind: kind(name), isKnown: PropertyAvailability.known.contains(name),
                                         isOnlyIn3: PropertyAvailability.onlyIn3.contains(name),
                                         isOnlyIn4: PropertyAvailability.onlyIn4.contains(name),
                                         isSingular: PropertyAvailability.singular.contains(name),
                                         isExtension: name.hasPrefix("X-"), upperName: name)
        }
        return table
    }()
}

/// Which vCard versions define a property (RFC 2426, RFC 6350 and the registered extensions).
enum PropertyAvailability {
    static let onlyIn3: Set<String> = ["LABEL", "MAILER", "CLASS", "SORT-STRING", "NAME", "AGENT"]
    static let onlyIn4: Set<String> = ["KIND", "GENDER", "ANNIVERSARY", "LANG", "RELATED", "XML",
                                       "CLIENTPIDMAP", "MEMBER", "FBURL", "CALURI", "CALADRURI"]
    /// Properties that appear at most once in a card.
    static let singular: Set<String> = ["N", "BDAY", "ANNIVERSARY", "GENDER", "KIND", "PRODID", "REV", "UID"]
    /// Every property name RFC 2426 and RFC 6350 define (plus the common registered extensions).
    static let known: Set<String> = [
        "BEGIN", "END", "VERSION", "SOURCE", "KIND", "XML", "FN", "N", "NICKNAME", "PHOTO", "BDAY",
        "ANNIVERSARY", "GENDER", "ADR", "TEL", "EMAIL", "IMPP", "LANG", "TZ", "GEO", "TITLE", "ROLE",
        "LOGO", "ORG", "MEMBER", "RELATED", "CATEGORIES", "NOTE", "PRODID", "REV", "SOUND", "UID",
        "CLIENTPIDMAP", "URL", "KEY", "FBURL", "CALADRURI", "CALURI", "LABEL", "MAILER", "CLASS",
        "SORT-STRING", "NAME", "AGENT", "BIRTHPLACE", "DEATHPLACE", "DEATHDATE", "EXPERTISE", "HOBBY",
        "INTEREST", "ORG-DIRECTORY", "CONTACT-URI", "CREATED", "GRAMGENDER", "LANGUAGE", "PRONOUNS",
        "SOCIALPROFILE", "JSPROP",
    ]
}
