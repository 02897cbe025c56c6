/// Says that a generated card repeats or resembles an earlier one, and how.
///
/// Encoded in the labels file as
/// `{"changes":["name-typo"],"index":17,"kind":"near","of":3,"ofUID":"…","uid":"…"}`.
public struct DuplicateLabel: Codable, Sendable, Hashable {
    /// How a labelled card relates to the card it refers to.
    public struct Kind: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
        /// The kind's spelling in the labels file, such as `near`.
        public var rawValue: String

        /// Creates a kind from its JSON spelling.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The same bytes as the earlier card, except the UID.
        public static let exact = Kind(rawValue: "exact")
        /// The same meaning as the earlier card in another form; ``DuplicateLabel/changes`` says which.
        public static let reformatted = Kind(rawValue: "reformatted")
        /// The same person with slightly different content; ``DuplicateLabel/changes`` says what.
        public static let near = Kind(rawValue: "near")
        /// A different person who has the same formatted name; shares no e-mail address or number.
        public static let lookalike = Kind(rawValue: "lookalike")

        /// The JSON spelling.
        public var description: String { rawValue }

        /// Decodes the JSON string.
        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        /// Encodes the JSON string.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }

    /// One difference between a labelled card and the card it refers to.
    public struct Change: RawRepresentable, Codable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// The change's spelling in the labels file, such as `name-typo`.
        public var rawValue: String

        /// Creates a change from its JSON spelling.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        // Reformatted duplicates: the form changes, the meaning does not.

        /// Written in the other vCard version (`TYPE=pref` ↔ `PREF=1`, `ENCODING=b` ↔ `data:` URI, …).
        public static let version = Change(rawValue: "version")
        /// Multi-valued TYPE parameters written as repeated parameters, or the reverse.
        public static let parameterSpelling = Change(rawValue: "parameter-spelling")
        /// Parameters in another order.
        public static let parameterOrder = Change(rawValue: "parameter-order")
        /// Properties in another order (BEGIN and VERSION first, END last).
        public static let propertyOrder = Change(rawValue: "property-order")
        /// Property, group and parameter names in another case.
        public static let nameCase = Change(rawValue: "name-case")
        /// Folded at 40 or 60 octets instead of 75.
        public static let foldWidth = Change(rawValue: "fold-width")
        /// Not folded at all: lines may be longer than 75 octets.
        public static let unfolded = Change(rawValue: "unfolded")
        /// Continuation lines start with a horizontal tab instead of a space.
        public static let tabContinuation = Change(rawValue: "tab-continuation")

        // Near duplicates: the content changes.

        /// A letter swapped with its neighbour or dropped in the given or family name.
        public static let nameTypo = Change(rawValue: "name-typo")
        /// Given and family name exchanged.
        public static let namesSwapped = Change(rawValue: "names-swapped")
        /// An extra space in FN ("John  Smith").
        public static let nameWhitespace = Change(rawValue: "name-whitespace")
        /// One telephone number written in another format (`+1 312 555 0142`, `(312) 555-0142`, `+13125550142`).
        public static let phoneFormat = Change(rawValue: "phone-format")
        /// One more e-mail address.
        public static let emailAdded = Change(rawValue: "email-added")
        /// One e-mail address fewer.
        public static let emailRemoved = Change(rawValue: "email-removed")

        /// Every change, in the order labels list them.
        public static let allCases: [Change] = [
            .version, .parameterSpelling, .parameterOrder, .propertyOrder, .nameCase, .foldWidth, .unfolded,
            .tabContinuation, .nameTypo, .namesSwapped, .nameWhitespace, .phoneFormat, .emailAdded, .emailRemoved,
        ]

        /// The JSON spelling.
        public var description: String { rawValue }

        /// Decodes the JSON string.
        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        /// Encodes the JSON string.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }

    /// The position of the labelled card in the book, from 0.
    public var index: Int
    /// The labelled card's UID (every card has its own, duplicates included).
    public var uid: String
    /// How the card relates to the one it refers to.
    public var kind: Kind
    /// The position of the card it refers to; always earlier, and never itself an exact or reformatted duplicate.
    public var of: Int
    /// The UID of the card it refers to.
    public var ofUID: String
    /// What differs, for reformatted and near duplicates; empty for exact duplicates and look-alikes.
    public var changes: [Change]

    /// Creates a label.
    ///
    /// - Parameters:
    ///   - index: The position of the labelled card.
    ///   - uid: The labelled card's UID.
    ///   - kind: How the card relates to the one it refers to.
    ///   - of: The position of the card it refers to.
    ///   - ofUID: The UID of the card it refers to.
    ///   - changes: What differs.
    public init(index: Int, uid: String, kind: Kind, of: Int, ofUID: String, changes: [Change] = []) {
        self.index = index
        self.uid = uid
        self.kind = kind
        self.of = of
        self.ofUID = ofUID
        self.changes = changes
    }
}
