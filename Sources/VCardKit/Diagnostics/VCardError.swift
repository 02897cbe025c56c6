/// An error thrown by VCardKit: strict reading that met a violation, or a card that cannot be
/// written.
///
/// The set of codes is open (`Code` is a struct), so new kinds of errors do not break callers.
public struct VCardError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// Strict reading met a deviation from the RFC; `diagnostic` says which.
        public static let strictViolation = Code(rawValue: "strict-violation")
        /// The input is not vCard text at all.
        public static let notVCard = Code(rawValue: "not-vcard")
        /// A card cannot be written in the requested version.
        public static let unwritable = Code(rawValue: "unwritable")
    }

    /// The kind of error.
    public var code: Code
    /// The diagnostic behind the error, with its location, when there is one.
    public var diagnostic: Diagnostic?
    /// A human-readable explanation.
    public var message: String

    /// Creates an error.
    public init(code: Code, message: String, diagnostic: Diagnostic? = nil) {
        self.code = code
        self.message = message
        self.diagnostic = diagnostic
    }

    public var description: String {
        diagnostic.map(\.description) ?? message
    }
}
