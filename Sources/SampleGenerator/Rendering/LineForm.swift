/// How content lines are turned into physical lines: folding and the case of names.
struct LineForm: Sendable, Hashable {
    /// The case property, group and parameter names are written in.
    enum NameCase: Sendable, Hashable {
        /// As the renderer wrote them (upper case, except Apple's `type=` and `X-ABLabel`).
        case asWritten
        case lower
        /// First letter upper case, the rest lower case: `Tel;Type=cell`.
        case capitalized
        /// Each letter's case chosen at random from `seed`.
        case mixed(seed: UInt64)
    }

    /// The longest physical line in octets, CRLF not counted; nil writes every line unfolded.
    var foldWidth: Int?
    /// The whitespace that starts a continuation line: a space or a horizontal tab.
    var continuation: UInt8
    var nameCase: NameCase

    /// Folded at 75 octets with a space, names as written: the form of every original card.
    static let standard = LineForm(foldWidth: 75, continuation: 0x20, nameCase: .asWritten)
}
