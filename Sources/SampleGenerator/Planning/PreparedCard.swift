/// A card ready to be serialised: its lines, the form to write them in, and its label.
struct PreparedCard: Sendable {
    var index: Int
    var uid: String
    var version: CardVersion
    var lines: [ContentLine]
    var form: LineForm
    var label: DuplicateLabel?

    /// Appends the card's physical lines to `output`.
    func write(to output: inout [UInt8]) {
        var writer = LineWriter(form: form)
        writer.write(lines, to: &output)
    }
}
