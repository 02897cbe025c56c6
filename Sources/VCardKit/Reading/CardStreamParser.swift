/// What the incremental readers (``VCardParser``, ``JCardParser``) share once their input is
/// fed: finishing, taking the cards and diagnostics, and the strict-mode violation.
public protocol CardStreamParser {
    /// Ends the input: reads what is left and reports what is unfinished.
    mutating func finish()
    /// The next complete card, or `nil` when none is ready.
    mutating func nextCard() -> VCard?
    /// Returns and forgets the diagnostics collected so far.
    mutating func takeDiagnostics() -> [Diagnostic]
    /// The first deviation met in strict mode; reading stops there.
    var strictViolation: Diagnostic? { get }
}

extension CardStreamParser {
    /// Finishes the input and returns every card with the diagnostics.
    /// - Throws: ``VCardError`` with code `strictViolation` in strict mode, at the first problem.
    mutating func finishReading() throws(VCardError) -> VCardReadResult {
        finish()
        var cards: [VCard] = []
        while let card = nextCard() { cards.append(card) }
        if let violation = strictViolation {
            throw VCardError(code: .strictViolation, message: violation.message, diagnostic: violation)
        }
        return VCardReadResult(cards: cards, diagnostics: takeDiagnostics())
    }
}

extension VCardParser: CardStreamParser {}
extension JCardParser: CardStreamParser {}
