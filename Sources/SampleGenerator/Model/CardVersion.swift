/// The vCard version one generated card is written in.
enum CardVersion: Sendable, Hashable {
    /// vCard 3.0 (RFC 2426).
    case v3
    /// vCard 4.0 (RFC 6350).
    case v4

    /// The value of the card's VERSION property.
    var text: String {
        switch self {
        case .v3: "3.0"
        case .v4: "4.0"
        }
    }

    /// The other version.
    var other: CardVersion {
        switch self {
        case .v3: .v4
        case .v4: .v3
        }
    }

    /// The public spelling of this version.
    var publicVersion: GeneratorOptions.Version {
        switch self {
        case .v3: .v3
        case .v4: .v4
        }
    }
}
