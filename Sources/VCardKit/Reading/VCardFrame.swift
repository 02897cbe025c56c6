/// The bytes of one card, found in the input but not yet parsed.
///
/// Finding cards is cheap and sequential; parsing them is where the time goes. A parser made
/// with ``VCardParser/init(framingOnly:options:)`` hands out frames, which can be parsed on any
/// thread:
///
/// ```swift
/// let results = frames.concurrentMap { $0.parse() }
/// ```
public struct VCardFrame: Sendable {
    let bytes: [UInt8]
    let lines: [PhysicalLine]
    /// The blank lines before the card in its input (see ``VCard/blankLinesBefore``).
    let blankLinesBefore: [UInt8]
    /// The name of the input the card was read from.
    public let sourceName: String
    let options: VCardReadOptions

    /// The card's bytes as read, from its `BEGIN:VCARD` line to the line end after `END:VCARD`
    /// (UTF-16 input decoded to UTF-8). Two frames with the same text are the same card, so a
    /// comparison can skip parsing them.
    public var text: [UInt8] { bytes }

    /// The line of the card's `BEGIN:VCARD`.
    public var firstLine: Int { lines.first?.number ?? 0 }

    /// Parses the card: the card (unless it could not be recovered) and its diagnostics.
    public func parse() -> (card: VCard?, diagnostics: [Diagnostic]) {
        var parser = CardParser(bytes: bytes, lines: lines, blankLinesBefore: blankLinesBefore, sourceName: sourceName, options: options)
        let card = parser.parse()
        return (card, parser.diagnostics)
    }
}
