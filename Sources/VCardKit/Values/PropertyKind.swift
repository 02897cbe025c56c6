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
        switch name.asciiUppercased {
        case "FN", "NOTE", "TITLE", "ROLE", "LABEL", "MAILER", "SORT-STRING", "CLASS", "NAME", "PRODID",
             "X-EVOLUTION-FILE-AS", "X-PHONETIC-FIRST-NAME", "X-PHONETIC-LAST-NAME", "X-ABLABEL":
            .text
        case "NICKNAME", "CATEGORIES":
            .textList
        case "N", "ADR", "GENDER", "CLIENTPIDMAP":
            .structured
        case "ORG":
            .structuredText
        case "PHOTO", "LOGO", "SOUND", "KEY":
            .binary
        case "BDAY", "ANNIVERSARY", "REV", "DEATHDATE":
            .dateTime
        case "AGENT":
            .embeddedCard
        case "URL", "UID", "EMAIL", "TEL", "IMPP", "GEO", "TZ", "SOURCE", "MEMBER", "RELATED", "FBURL",
             "CALURI", "CALADRURI", "KIND", "LANG", "XML", "VERSION":
            .uri
        default:
            .unknown
        }
    }
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
