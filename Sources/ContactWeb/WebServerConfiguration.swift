public import Foundation
public import HTTPServerSupport

/// How `cardsync web` serves an address book.
public struct WebServerConfiguration: Sendable {
    /// The address book's folder.
    public var bookDirectory: URL
    /// The address to listen on (loopback: other addresses need a password and TLS).
    public var host: String
    /// The port; 0 picks a free one.
    public var port: Int
    /// Contacts per list page.
    public var pageSize: Int
    /// The largest request body accepted (uploads), in bytes.
    public var maximumUploadSize: Int
    /// Whether a password is the one that signs in; `nil` serves without a password (loopback
    /// only). The command gives a check against a PBKDF2 hash, never the password itself.
    public var checksPassword: (@Sendable (String) -> Bool)?
    /// The PEM certificate chain and private key to serve https with; `nil` serves http.
    public var tls: TLSFiles?
    /// The PEM certificate chain and private key of a TLS server.
    public typealias TLSFiles = HTTPServerSupport.TLSFiles

    /// Creates a configuration.
    public init(bookDirectory: URL, host: String = "127.0.0.1", port: Int = 8080, pageSize: Int = 50,
                maximumUploadSize: Int = 32 << 20) {
        self.bookDirectory = bookDirectory
        self.host = host
        self.port = port
        self.pageSize = pageSize
        self.maximumUploadSize = maximumUploadSize
    }

    /// Whether `host` is a loopback address (only this computer can connect).
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }
}
