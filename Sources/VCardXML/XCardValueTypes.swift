import VCardKit

/// Value types of xCard: the default type of each property (RFC 6350) and date forms.
enum XCardValueTypes {
    /// The type a property has when it carries no `VALUE` parameter.
    static func defaultType(of name: String) -> String {
        switch name.uppercased() {
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
             "NOTE", "PRODID", "KIND", "CLIENTPIDMAP", "LABEL", "MAILER", "CLASS", "SORT-STRING", "NAME", "AGENT",
             "BIRTHPLACE", "DEATHPLACE", "EXPERTISE", "HOBBY", "INTEREST":
            "text"
        default:
            "unknown"
        }
    }

    /// A date or time in vCard 4.0's basic form: `1985-04-12` → `19850412`, `10:22:00` → `102200`.
    static func basicDate(_ value: String) -> String {
        guard value.contains("-") || value.contains(":") else { return value }
        var (date, time) = (Substring(value), Substring?.none)
        if let t = value.firstIndex(of: "T") { date = value[..<t]; time = value[value.index(after: t)...] }
        var result = String(date)
        if date.count == 10, date.dropFirst(4).first == "-", date.dropFirst(7).first == "-" {
            result = date.filter { $0 != "-" }
        } else if date.hasPrefix("--"), !date.hasPrefix("---"), date.count == 7 {
            result = "--" + date.dropFirst(2).filter { $0 != "-" }
        }
        if let time { result += "T" + time.filter { $0 != ":" } }
        return result
    }
}
