/// What one position of the generated book holds.
enum CardRole: Sendable, Hashable {
    /// A new contact.
    case original
    /// An earlier card again, byte for byte except its UID.
    case exact
    /// An earlier card again, same meaning in another form.
    case reformatted
    /// An earlier contact with a few changes of content.
    case near
    /// A different person with the same name as an earlier contact.
    case lookalike

    /// Whether the card repeats another one's meaning (and so is not a distinct contact).
    var isRepeat: Bool {
        self == .exact || self == .reformatted
    }

    /// The label kind, or nil for originals.
    var labelKind: DuplicateLabel.Kind? {
        switch self {
        case .original: nil
        case .exact: .exact
        case .reformatted: .reformatted
        case .near: .near
        case .lookalike: .lookalike
        }
    }
}
