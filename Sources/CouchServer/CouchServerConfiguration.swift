public import Foundation
public import HTTPServerSupport

/// How `cardsync serve` runs: where the data is, where to listen, who the admin is, and the
/// CouchDB limits it applies.
public struct CouchServerConfiguration: Sendable {
    /// An admin given on the command line: the name, and the password when one was given
    /// (without it, the hash stored in the data folder is used).
    public struct Admin: Sendable, Hashable {
        /// The user name.
        public var name: String
        /// The password, or `nil` to use the stored hash.
        public var password: String?

        /// An admin.
        public init(name: String, password: String?) {
            self.name = name
            self.password = password
        }
    }

    /// The data folder (created when missing).
    public var dataDirectory: URL
    /// The address to bind; loopback by default.
    public var host: String
    /// The port; 0 picks a free one.
    public var port: Int
    /// The admin, or `nil` to use the one stored in the data folder (if any; with none, every
    /// request is allowed, as in CouchDB's old "admin party").
    public var admin: Admin?
    /// CouchDB's `max_document_size` (bytes of a document's JSON).
    public var maximumDocumentSize: Int
    /// The largest request body read.
    public var maximumRequestSize: Int
    /// CouchDB's `revs_limit`.
    public var revisionsLimit: Int
    /// Seconds an `AuthSession` cookie stays valid.
    public var sessionTimeout: Int
    /// PBKDF2 rounds for a newly stored admin password.
    public var passwordIterations: Int
    /// Serve https with this certificate and key instead of plain http.
    public var tls: TLSFiles?
    /// The PEM certificate chain and private key of a TLS server.
    public typealias TLSFiles = HTTPServerSupport.TLSFiles

    /// A configuration with CouchDB's defaults.
    public init(dataDirectory: URL, host: String = "127.0.0.1", port: Int = 5984, admin: Admin? = nil,
                maximumDocumentSize: Int = 8_000_000, maximumRequestSize: Int = 64 * 1024 * 1024,
                revisionsLimit: Int = 1000, sessionTimeout: Int = 600,
                passwordIterations: Int = PasswordHash.defaultIterations) {
        self.dataDirectory = dataDirectory
        self.host = host
        self.port = port
        self.admin = admin
        self.maximumDocumentSize = maximumDocumentSize
        self.maximumRequestSize = maximumRequestSize
        self.revisionsLimit = revisionsLimit
        self.sessionTimeout = sessionTimeout
        self.passwordIterations = passwordIterations
    }
}
