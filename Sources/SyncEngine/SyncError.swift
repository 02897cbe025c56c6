/// Why a sync could not run or stopped. Carries what to do next; never a password.
public struct SyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The remote URL cannot be used.
        public static let invalidRemote = Code(rawValue: "invalid-remote")
        /// The remote refused the credentials (401) or the operation (403).
        public static let unauthorized = Code(rawValue: "unauthorized")
        /// The remote database does not exist and cannot be created.
        public static let missingDatabase = Code(rawValue: "missing-database")
        /// One side became empty while the other still has the contacts of the last sync.
        public static let emptiedSide = Code(rawValue: "emptied-side")
        /// The remote's TLS certificate was not trusted (or no TLS connection could be made).
        public static let untrustedRemote = Code(rawValue: "untrusted-remote")
        /// The remote could not be reached or kept failing.
        public static let unreachable = Code(rawValue: "unreachable")
        /// The remote answered something a CouchDB server would not.
        public static let protocolError = Code(rawValue: "protocol")
    }

    /// What kind of failure.
    public var code: Code
    /// What happened and what to do, for people.
    public var message: String

    /// An error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
