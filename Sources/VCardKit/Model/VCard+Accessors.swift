/// Typed accessors for the common properties.
extension VCard {
    /// `FN`: the name as it is displayed.
    public var formattedName: String? { first("FN")?.textValue }
    /// `N`: the structured name.
    public var structuredName: StructuredName? { first("N").map(StructuredName.init) }
    /// `NICKNAME` values, across all NICKNAME properties.
    public var nicknames: [String] { all("NICKNAME").flatMap(\.listValues) }
    /// `EMAIL` properties (their `rawValue` is the address; `types` and `preference` tell more).
    public var emails: [VCardProperty] { all("EMAIL") }
    /// The e-mail addresses, in order.
    public var emailAddresses: [String] { emails.map(\.textValue) }
    /// `TEL` properties.
    public var telephones: [VCardProperty] { all("TEL") }
    /// The telephone numbers (a `tel:` URI's scheme removed), in order.
    public var telephoneNumbers: [String] {
        telephones.map { $0.rawValue.hasPrefix("tel:") ? String($0.rawValue.dropFirst(4)) : $0.textValue }
    }
    /// `ADR` properties as postal addresses.
    public var addresses: [PostalAddress] { all("ADR").map(PostalAddress.init) }
    /// `ORG`: organization name and units.
    public var organization: [String]? { first("ORG").map { $0.components.map { $0.first ?? "" } } }
    /// `TITLE`.
    public var title: String? { first("TITLE")?.textValue }
    /// `ROLE`.
    public var role: String? { first("ROLE")?.textValue }
    /// `BDAY`, when it is a date (a text birthday is in `first("BDAY")`).
    public var birthday: VCardDateAndOrTime? { first("BDAY")?.dateAndOrTimeValue }
    /// `ANNIVERSARY`.
    public var anniversary: VCardDateAndOrTime? { first("ANNIVERSARY")?.dateAndOrTimeValue }
    /// `NOTE` texts.
    public var notes: [String] { all("NOTE").map(\.textValue) }
    /// `URL` values.
    public var urls: [String] { all("URL").map(\.uriValue) }
    /// `UID`: the contact's identity.
    public var uid: String? { first("UID")?.textValue }
    /// `REV`: when the card was last revised.
    public var revision: VCardDateAndOrTime? { first("REV")?.dateAndOrTimeValue }
    /// `PHOTO`.
    public var photo: VCardProperty? { first("PHOTO") }
    /// `CATEGORIES` values, across all CATEGORIES properties.
    public var categories: [String] { all("CATEGORIES").flatMap(\.listValues) }
    /// `KIND` (individual, group, org, location), lower-cased; `nil` means individual.
    public var kind: String? { first("KIND")?.rawValue.asciiLowercased }
    /// `MEMBER` URIs of a group.
    public var members: [String] { all("MEMBER").map(\.uriValue) }
    /// `RELATED` properties.
    public var related: [VCardProperty] { all("RELATED") }
    /// Extension properties (`X-…`), in order.
    public var extensions: [VCardProperty] { properties.filter { $0.traits.isExtension } }
}
