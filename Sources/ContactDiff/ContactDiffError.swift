/// An error thrown by ContactDiff: an input that is missing or holds no contacts, a file that
/// cannot be read, a contact that cannot be found or merged.
///
/// The set of codes is open (`Code` is a struct), so new kinds of errors do not break callers.
///
/// ```swift
/// do {
///     let set = try ContactSetReader.read(path: "old.vcf")
/// } catch let error as ContactDiffError where error.code == .missingInput {
///     print(error)  // "old.vcf: no such file or folder"
/// }
/// ```
public struct ContactDiffError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// An input path does not exist.
        public static let missingInput = Code(rawValue: "missing-input")
        /// An input holds no readable contact.
        public static let invalidInput = Code(rawValue: "invalid-input")
        /// Reading a file failed.
        public static let io = Code(rawValue: "io")
        /// A contact asked for is not there.
        public static let notFound = Code(rawValue: "not-found")
        /// The request cannot be carried out as asked (for example, merging a contact with itself).
        public static let unsupported = Code(rawValue: "unsupported")
    }

    /// The kind of error.
    public var code: Code
    /// What is wrong and what to do about it.
    public var message: String
    /// The file or folder concerned, when there is one.
    public var path: String?

    /// Creates an error.
    public init(code: Code, message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }

    /// `path: message`, or just the message.
    public var description: String {
        path.map { "\($0): \(message)" } ?? message
    }
}
