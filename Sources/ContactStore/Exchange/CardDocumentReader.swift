public import VCardKit
import VCardXML

/// Reads a jCard or xCard document card by card from chunks, so that the card and card-count
/// limits apply and no more than a card and a chunk of the input are held besides the cards:
/// jCard through VCardKit's `JCardParser`, xCard through VCardXML's streaming reader. (vCard text
/// is framed by `VCardParser` directly.)
///
/// ```swift
/// let diagnostics = CardDocumentReader.read(.xcard, sourceName: "contacts.xml", chunks: { file.nextChunk() }) { card in
///     cards.append(card)
/// }
/// ```
public enum CardDocumentReader {
    /// Reads the document `chunks` hands over (`nil` at its end).
    /// - Parameters:
    ///   - format: `.jcard` or `.xcard` (`.vcard` is read as jCard would be: not at all).
    ///   - sourceName: the name diagnostics use.
    ///   - chunks: the next bytes of the document, or `nil` at its end.
    ///   - body: called with each card as it is complete.
    /// - Returns: the problems met (lenient reading: warnings and errors, reading goes on where it can).
    public static func read(_ format: ContactFormat, sourceName: String, chunks: @escaping () -> [UInt8]?,
                            body: (VCard) -> Void) -> [Diagnostic] {
        if format == .xcard {
            return XCardReader.read(chunks: chunks, sourceName: sourceName, body: body)
        }
        var parser = JCardParser(sourceName: sourceName)
        while let chunk = chunks() {
            parser.feed(chunk)
            while let card = parser.nextCard() { body(card) }
        }
        parser.finish()
        while let card = parser.nextCard() { body(card) }
        return parser.takeDiagnostics()
    }
}
