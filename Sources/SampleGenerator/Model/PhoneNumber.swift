/// One telephone number with its TEL parameters.
struct PhoneNumber: Sendable, Hashable {
    /// How the digits are written.
    enum Format: Sendable, Hashable, CaseIterable {
        /// "+1 312 555 0142"
        case spaced
        /// "+1-312-555-0142"
        case dashed
        /// "+13125550142"
        case compact
        /// "(312) 555-0142" in North America, "030 12345678" elsewhere.
        case national
    }

    var countryCode: String
    /// The national number in the groups people write it in, such as `["312", "555", "0142"]`.
    var groups: [String]
    /// The prefix dialled before a national number ("0"), empty where there is none.
    var trunkPrefix: String
    var format: Format
    var types: [TelephoneType]
    var isPreferred: Bool
    /// Written as a `tel:` URI with `VALUE=uri` (vCard 4.0 only).
    var isURI: Bool
    /// The PID parameter value, such as "1.1", when the card has a CLIENTPIDMAP.
    var pid: String?
    var typeSpelling: TypeSpelling

    /// The digits that identify the number, country code included.
    var digits: String {
        countryCode + groups.joined()
    }

    /// The number as text, in ``format``.
    var text: String {
        switch format {
        case .spaced:
            "+" + countryCode + " " + groups.joined(separator: " ")
        case .dashed:
            "+" + countryCode + "-" + groups.joined(separator: "-")
        case .compact:
            "+" + digits
        case .national:
            if countryCode == "1", groups.count == 3 {
                "(" + groups[0] + ") " + groups[1] + "-" + groups[2]
            } else {
                trunkPrefix + groups.joined(separator: " ")
            }
        }
    }

    /// The number as an RFC 3966 global `tel:` URI; compact when ``format`` is compact, dashed otherwise.
    var uri: String {
        if format == .compact {
            "tel:+" + digits
        } else {
            "tel:+" + countryCode + "-" + groups.joined(separator: "-")
        }
    }

    /// The number as international text, the form a 3.0 card gives a number that a 4.0 card
    /// writes as a `tel:` URI: the same digits, so that the two spell the same number.
    var internationalText: String {
        format == .compact ? "+" + digits : "+" + countryCode + "-" + groups.joined(separator: "-")
    }

    /// The text or URI as written in the card.
    var value: String {
        isURI ? uri : text
    }
}
