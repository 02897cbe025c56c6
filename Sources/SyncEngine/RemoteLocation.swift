public import Foundation
public import CouchClient

/// Where a sync goes: a CouchDB-compatible server and one database on it.
///
/// Parsed from a URL whose last path segment is the database, e.g.
/// `https://alice@couch.example.com:6984/contacts`. Credentials in the URL are taken out: they
/// are never part of ``key`` (which the journal records), nor of any message.
public struct RemoteLocation: Sendable, Hashable, CustomStringConvertible {
    /// The server's URL, without credentials or database.
    public var serverURL: URL
    /// The database name.
    public var database: String
    /// Credentials, from the URL or given separately.
    public var credentials: CouchClient.Credentials?

    /// The remote's identity in the journal and in messages: `scheme://host:port/path/database`,
    /// without credentials.
    public var key: String {
        var base = serverURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/" + (database.addingPercentEncoding(withAllowedCharacters: Self.segmentCharacters) ?? database)
    }

    public var description: String { key }

    /// A remote from `text`.
    ///
    /// - Parameters:
    ///   - text: an `http` or `https` URL ending with the database name.
    ///   - password: a password that wins over the URL's (from `CARDSYNC_PASSWORD` or a file).
    /// - Throws: ``SyncError`` with code `invalidRemote` and a message that says what to give.
    public init(parsing text: String, password: String? = nil) throws(SyncError) {
        guard var components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else {
            throw SyncError(.invalidRemote, "\(Self.redacted(text)) is not an http(s) URL; give the database's URL, for example http://127.0.0.1:5984/contacts")
        }
        var segments = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let last = segments.popLast(), let database = last.removingPercentEncoding, !database.isEmpty else {
            throw SyncError(.invalidRemote, "\(Self.redacted(text)) names no database; add it to the path, for example \(scheme)://\(host)\(components.port.map { ":\($0)" } ?? "")/contacts")
        }
        guard Self.isValidDatabaseName(database) else {
            throw SyncError(.invalidRemote, "'\(database)' is not a CouchDB database name: it must start with a lower-case letter and hold only a-z, 0-9 and _ $ ( ) + - /")
        }
        var credentials: CouchClient.Credentials?
        if let user = components.percentEncodedUser {
            let name = user.removingPercentEncoding ?? user
            let fromURL = components.percentEncodedPassword.map { $0.removingPercentEncoding ?? $0 }
            credentials = CouchClient.Credentials(name: name, password: password ?? fromURL ?? "")
        }
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        components.percentEncodedPath = segments.isEmpty ? "" : "/" + segments.joined(separator: "/")
        guard let url = components.url else { throw SyncError(.invalidRemote, "\(Self.redacted(text)) cannot be read as a URL") }
        self.serverURL = url
        self.database = database
        self.credentials = credentials
    }

    /// `text` with any password replaced by `***`, for messages.
    public static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? "(a URL)"
    }

    /// The URL without its password (the user name kept), for settings and messages.
    public var urlWithoutPassword: String {
        guard let credentials, var components = URLComponents(url: serverURL, resolvingAgainstBaseURL: false) else { return key }
        components.user = credentials.name
        return (components.string ?? serverURL.absoluteString).trimmingSuffix("/") + "/" + database
    }

    static func isValidDatabaseName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || "_$()+-/".unicodeScalars.contains($0) }
    }

    private static let segmentCharacters: CharacterSet = {
        var set = CharacterSet.urlPathAllowed
        set.remove(charactersIn: "/")
        return set
    }()
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        var text = self
        while text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        return text
    }
}
