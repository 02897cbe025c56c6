/// Why bytes are not the JSON that was expected, and where.
///
/// ```swift
/// do {
///     _ = try JSONValue(parsing: Array(#"{"a":}"#.utf8))
/// } catch {
///     print(error)   // 1:6: expected a JSON value [invalid-json]
/// }
/// ```
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem this is. New codes may be added.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The text breaks RFC 8259's grammar (or holds a string that is not UTF-8).
        public static let invalidJSON = Code(rawValue: "invalid-json")
        /// Arrays and objects are nested deeper than ``JSONReadingOptions/maximumDepth``.
        public static let tooDeep = Code(rawValue: "too-deep")
        /// The text, or one value of it, is larger than ``JSONReadingOptions/maximumBytes``.
        public static let tooLarge = Code(rawValue: "too-large")

        public var description: String { rawValue }
    }

    /// What kind of problem this is.
    public var code: Code
    /// What is wrong, as a sentence fragment (`expected ':' after a member name`).
    public var message: String
    /// Where: the byte the problem was found at (the first byte of a value that is too large).
    public var position: JSONPosition

    /// Makes an error.
    public init(_ code: Code, _ message: String, at position: JSONPosition) {
        self.code = code
        self.message = message
        self.position = position
    }

    /// The line of ``position``, from 1.
    public var line: Int { position.line }
    /// The column of ``position``, from 1, counted in Unicode scalars.
    public var column: Int { position.column }

    /// `line:column: message [code]`.
    public var description: String { "\(position): \(message) [\(code)]" }
}
