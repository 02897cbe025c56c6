/// The five components of `N`: family names, given names, additional names, honorific prefixes
/// and suffixes, each a list.
public struct StructuredName: Sendable, Hashable {
    public var family: [String]
    public var given: [String]
    public var additional: [String]
    public var prefixes: [String]
    public var suffixes: [String]

    /// Creates a name from its components.
    public init(family: [String] = [], given: [String] = [], additional: [String] = [],
                prefixes: [String] = [], suffixes: [String] = []) {
        self.family = family
        self.given = given
        self.additional = additional
        self.prefixes = prefixes
        self.suffixes = suffixes
    }

    /// Reads the components of an `N` value; missing components are empty.
    public init(_ property: VCardProperty) {
        let parts = property.components.map { $0.filter { !$0.isEmpty } }
        func part(_ index: Int) -> [String] { index < parts.count ? parts[index] : [] }
        self.init(family: part(0), given: part(1), additional: part(2), prefixes: part(3), suffixes: part(4))
    }

    /// The `N` value text, escaped: `Doe;Jane;;Dr.;`.
    public var rawValue: String {
        TextEscaping.joinComponents([family, given, additional, prefixes, suffixes])
    }
}

/// The seven components of `ADR`, each a list.
public struct PostalAddress: Sendable, Hashable {
    public var postOfficeBox: [String]
    public var extended: [String]
    public var street: [String]
    public var locality: [String]
    public var region: [String]
    public var postalCode: [String]
    public var country: [String]
    /// The `TYPE` values, lower-cased.
    public var types: [String]
    /// The formatted label (4.0 `LABEL` parameter), when there is one.
    public var label: String?

    /// Reads an `ADR` property.
    public init(_ property: VCardProperty) {
        let parts = property.components.map { $0.filter { !$0.isEmpty } }
        func part(_ index: Int) -> [String] { index < parts.count ? parts[index] : [] }
        postOfficeBox = part(0)
        extended = part(1)
        street = part(2)
        locality = part(3)
        region = part(4)
        postalCode = part(5)
        country = part(6)
        types = property.types
        label = property.parameter("LABEL")?.values.joined(separator: ",")
    }
}
