/// A problem found while reading or writing cards, located in the input and printable like a
/// compiler message.
///
/// ```
/// contacts.vcf:12:7: warning: parameter without a name read as TYPE=HOME [bare-parameter]
/// ```
public struct Diagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How serious a diagnostic is.
    public enum Severity: String, Sendable, Hashable, Codable, Comparable {
        /// The input deviates from the specification; the reader repaired or kept it.
        case warning
        /// The input is broken; the affected card or line was not read.
        case error

        public static func < (lhs: Self, rhs: Self) -> Bool {
            lhs == .warning && rhs == .error
        }
    }

    /// A stable, kebab-case identifier of the kind of problem, for scripts and tests.
    public struct Code: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { self.rawValue = value }
        public var description: String { rawValue }
    }

    /// Whether the problem is an error or a warning.
    public var severity: Severity
    /// The kind of problem.
    public var code: Code
    /// What is wrong and what the reader did about it.
    public var message: String
    /// Where the problem is.
    public var location: SourceLocation

    /// Creates a diagnostic.
    public init(severity: Severity, code: Code, message: String, location: SourceLocation) {
        self.severity = severity
        self.code = code
        self.message = message
        self.location = location
    }

    /// The compiler-style one-line form: `file:line:column: severity: message [code]`.
    public var description: String {
        "\(location): \(severity.rawValue): \(message) [\(code.rawValue)]"
    }
}

extension Diagnostic.Code {
    // Structure
    static let missingBegin: Self = "missing-begin"
    static let missingEnd: Self = "missing-end"
    static let unexpectedEnd: Self = "unexpected-end"
    static let textOutsideCard: Self = "text-outside-card"
    static let otherComponent: Self = "other-component"
    static let emptyInput: Self = "empty-input"
    static let emptyCard: Self = "empty-card"
    static let nestedCardWithoutAgent: Self = "nested-card-without-agent"
    static let groupedBegin: Self = "grouped-begin"
    static let lowercaseName: Self = "lowercase-name"
    // Lines
    static let notAContentLine: Self = "not-a-content-line"
    static let unfoldedLineBreak: Self = "unfolded-line-break"
    static let emptyPropertyName: Self = "empty-property-name"
    static let invalidPropertyName: Self = "invalid-property-name"
    static let continuationWithoutProperty: Self = "continuation-without-property"
    static let foldAfterBlankLine: Self = "fold-after-blank-line"
    static let blankLine: Self = "blank-line"
    static let backslashContinuation: Self = "backslash-continuation"
    static let lineEnding: Self = "line-ending"
    static let controlCharacter: Self = "control-character"
    static let unclosedQuote: Self = "unclosed-quote"
    static let emptyParameterName: Self = "empty-parameter-name"
    static let invalidParameterName: Self = "invalid-parameter-name"
    static let invalidParameterValue: Self = "invalid-parameter-value"
    static let bareParameter: Self = "bare-parameter"
    static let emptyParameterValue: Self = "empty-parameter-value"
    // Encodings
    static let byteOrderMark: Self = "byte-order-mark"
    static let utf16: Self = "utf16-input"
    static let invalidUTF8: Self = "invalid-utf8"
    static let unknownCharset: Self = "unknown-charset"
    static let invalidQuotedPrintable: Self = "invalid-quoted-printable"
    static let invalidBase64: Self = "invalid-base64"
    static let encodingInWrongVersion: Self = "encoding-in-wrong-version"
    // Card content
    static let missingVersion: Self = "missing-version"
    static let unsupportedVersion: Self = "unsupported-version"
    static let versionNotFirst: Self = "version-not-first"
    static let duplicateVersion: Self = "duplicate-version"
    static let missingFormattedName: Self = "missing-fn"
    static let missingVersionAndFormattedName: Self = "missing-version-and-fn"
    static let missingName: Self = "missing-n"
    static let duplicateUID: Self = "duplicate-uid"
    static let duplicateSingleProperty: Self = "duplicate-property"
    static let propertyNotInVersion: Self = "property-not-in-version"
    static let invalidValue: Self = "invalid-value"
    static let limitExceeded: Self = "limit-exceeded"
}
