/// One delivery address (ADR) and its label.
struct PostalAddress: Sendable, Hashable {
    var postOfficeBox: String
    var extended: String
    var street: String
    var locality: String
    var region: String
    var postalCode: String
    var country: String
    var types: [AddressType]
    var isPreferred: Bool
    /// The formatted label: a LABEL property in vCard 3.0, a LABEL parameter in 4.0.
    var label: String?
    /// A GEO parameter (vCard 4.0 only).
    var geo: GeoPoint?
    /// A TZ parameter (vCard 4.0 only).
    var timeZone: String?
    var typeSpelling: TypeSpelling

    /// The seven ADR components in order.
    var components: [String] {
        [postOfficeBox, extended, street, locality, region, postalCode, country]
    }
}
