public import Foundation

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
