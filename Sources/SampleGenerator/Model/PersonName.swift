/// A person's name: the N components, how FN is formed from them, and their Latin spelling.
struct PersonName: Sendable, Hashable {
    /// Where the given name goes in the formatted name.
    enum Order: Sendable, Hashable {
        /// "José García": Western order, words separated by spaces.
        case givenFirst
        /// "田中太郎" or "Nguyễn Thị Hương": family name first, joined by `separator`.
        case familyFirst(separator: String)
    }

    /// How the formatted name is built from the components.
    enum DisplayStyle: Sendable, Hashable {
        /// Prefixes, given, additional and family names, then ", " and the suffixes.
        case natural
        /// "García, José": family name, comma, given names (Western order only).
        case familyComma
        /// The natural form followed by "; " and a remark someone typed into the name field.
        case annotated(String)
    }

    var family: String
    var given: String
    var additional: [String]
    var prefixes: [String]
    var suffixes: [String]
    var order: Order
    var displayStyle: DisplayStyle
    /// The BCP 47 tag of the name's language ("ja", "ru").
    var language: String
    /// The family name in Latin letters, capitalised ("Tanaka"); used for e-mail addresses and sort keys.
    var latinFamily: String
    /// The given name in Latin letters, capitalised ("Taro").
    var latinGiven: String
    /// The family name's reading in kana, for Japanese names.
    var phoneticFamily: String?
    /// The given name's reading in kana, for Japanese names.
    var phoneticGiven: String?

    /// Whether the name is written in a non-Latin script and so has a distinct Latin form.
    var hasTransliteration: Bool {
        latinFamily != family || latinGiven != given
    }

    /// The formatted name (FN) for this name.
    func formatted() -> String {
        var result: String
        switch order {
        case .familyFirst(let separator):
            result = family + separator + given
        case .givenFirst:
            if displayStyle == .familyComma {
                result = family + ", " + ([given] + additional).joined(separator: " ")
            } else {
                result = (prefixes + [given] + additional + [family]).filter { !$0.isEmpty }.joined(separator: " ")
                if !suffixes.isEmpty {
                    result += ", " + suffixes.joined(separator: ", ")
                }
            }
        }
        if case .annotated(let remark) = displayStyle {
            result += "; " + remark
        }
        return result
    }

    /// The name in Latin letters, given name first ("Taro Tanaka"), for an alternative FN.
    func latinFormatted() -> String {
        latinGiven + " " + latinFamily
    }

    /// Lower-case ASCII letters and digits of the Latin given and family names, for e-mail addresses.
    var slugParts: (given: String, family: String) {
        (Self.slug(latinGiven), Self.slug(latinFamily))
    }

    /// Keeps ASCII letters and digits, lower-cased; deterministic on every platform.
    static func slug(_ text: String) -> String {
        var bytes = [UInt8]()
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                bytes.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                bytes.append(byte + 32)
            default:
                continue
            }
        }
        return bytes.isEmpty ? "contact" : String(decoding: bytes, as: UTF8.self)
    }
}
