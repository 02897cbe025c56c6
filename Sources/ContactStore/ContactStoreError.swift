/// An error thrown by ContactStore: a folder that is not an address book, a damaged journal, a
/// file that cannot be written, a contact that cannot be found.
///
/// The set of codes is open (`Code` is a struct), so new kinds of errors do not break callers.
/// Every message says what is wrong, where (``path`` and ``line`` when known), and what to do.
///
/// ```swift
/// do {
///     try await AddressBook.withOpen(at: url) { book in try await book.scan() }
/// } catch let error as ContactStoreError where error.code == .notAnAddressBook {
///     print("run `cardsync init \(url.path)` first")
/// }
/// ```
public struct ContactStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The folder has no `.cardsync/` folder: it is not an address book yet.
        public static let notAnAddressBook = Code(rawValue: "not-an-address-book")
        /// `init` was asked to create an address book where one already exists.
        public static let alreadyAnAddressBook = Code(rawValue: "already-an-address-book")
        /// Another process has the address book open.
        public static let locked = Code(rawValue: "locked")
        /// A journal line before the last one is damaged; ``line`` names it.
        public static let journalDamaged = Code(rawValue: "journal-damaged")
        /// The journal was written by a newer cardsync.
        public static let unsupportedJournal = Code(rawValue: "unsupported-journal")
        /// Reading or writing a file failed.
        public static let io = Code(rawValue: "io")
        /// An input holds no readable contact, or is not a contact format.
        public static let invalidInput = Code(rawValue: "invalid-input")
        /// An input path does not exist.
        public static let missingInput = Code(rawValue: "missing-input")
        /// No contact (or journal event) matches what was asked for.
        public static let notFound = Code(rawValue: "not-found")
        /// The request cannot be carried out as asked (for example, restoring a contact that
        /// shares its file with others).
        public static let unsupported = Code(rawValue: "unsupported")
        /// The contact's file changed since the version an edit was based on (another program or
        /// a sync wrote it): the edit was refused, nothing was written.
        public static let stale = Code(rawValue: "stale")
    }

    /// The kind of error.
    public var code: Code
    /// What is wrong and what to do about it.
    public var message: String
    /// The file concerned, when there is one.
    public var path: String?
    /// The 1-based line concerned (of the journal or an input), when there is one.
    public var line: Int?

    /// Creates an error.
    public init(code: Code, message: String, path: String? = nil, line: Int? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.line = line
    }

    /// `path:line: message`, or just the message.
    public var description: String {
        switch (path, line) {
        case let (path?, line?): "\(path):\(line): \(message)"
        case let (path?, nil): "\(path): \(message)"
        default: message
        }
    }

    static func io(_ path: String, _ what: String, errno number: Int32) -> Self {
        ContactStoreError(code: .io, message: "\(what): \(POSIX.describe(number))", path: path)
    }
}
