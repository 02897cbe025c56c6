/// A version of the vCard text format.
///
/// cardsync reads all three versions and writes 3.0 and 4.0. Version 2.1 is read only:
/// a 2.1 card written back unedited keeps its original bytes, and an edited or converted
/// 2.1 card is written as 3.0 or 4.0.
public enum VCardVersion: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// The vCard 2.1 specification (versit, 1996): quoted-printable, `CHARSET`, bare `TYPE` parameters.
    case v2_1 = "2.1"
    /// vCard 3.0, RFC 2426.
    case v3_0 = "3.0"
    /// vCard 4.0, RFC 6350.
    case v4_0 = "4.0"

    /// Whether cardsync can write cards in this version.
    public var isWritable: Bool { self != .v2_1 }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.order < rhs.order
    }

    private var order: Int {
        switch self {
        case .v2_1: 0
        case .v3_0: 1
        case .v4_0: 2
        }
    }
}
