public import Foundation

/// The remote an address book syncs with, kept in `.cardsync/remote.json` (mode 0600).
///
/// Never holds a password: the URL is stored without one, and the password comes at sync time
/// from `CARDSYNC_PASSWORD` or from the file named by ``passwordFile``.
public struct RemoteSettings: Codable, Sendable, Hashable {
    /// The database URL, with the user name but without password.
    public var url: String
    /// A file whose first line is the password, when one was given.
    public var passwordFile: String?
    /// Whether TLS certificates are not verified (`--insecure`).
    public var insecure: Bool

    /// Settings.
    public init(url: String, passwordFile: String? = nil, insecure: Bool = false) {
        self.url = url
        self.passwordFile = passwordFile
        self.insecure = insecure
    }

    static let fileName = "remote.json"

    /// The settings of the book at `directory`, or `nil` when no remote is set.
    ///
    /// - Throws: ``ContactStoreError`` when the folder is not an address book or the file is damaged.
    public static func load(book directory: URL) throws(ContactStoreError) -> RemoteSettings? {
        let meta = try metaDirectory(of: directory)
        let path = meta + "/" + fileName
        guard POSIX.exists(path) else { return nil }
        let bytes = try POSIX.readFile(path).bytes
        do {
            return try JSONDecoder().decode(RemoteSettings.self, from: Data(bytes))
        } catch {
            throw ContactStoreError(code: .invalidInput, message: "is damaged (\(error)); set the remote again with `cardsync remote \(directory.path) set URL`",
                                    path: path)
        }
    }

    /// Saves (or with `nil`, removes) the settings of the book at `directory`, atomically.
    public static func save(_ settings: RemoteSettings?, book directory: URL) throws(ContactStoreError) {
        let meta = try metaDirectory(of: directory)
        guard let settings else {
            if unlink(meta + "/" + fileName) != 0 && errno != ENOENT { throw .io(meta + "/" + fileName, "cannot remove", errno: errno) }
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do { data = try encoder.encode(settings) } catch {
            throw ContactStoreError(code: .io, message: "cannot encode the remote settings: \(error)", path: meta)
        }
        try POSIX.writeAtomically(Array(data) + [0x0A], directory: meta, name: fileName, mode: 0o600, replacing: true)
    }

    private static func metaDirectory(of directory: URL) throws(ContactStoreError) -> String {
        let path = AddressBook.normalize(directory)
        let meta = path + "/.cardsync"
        guard POSIX.isDirectory(meta) else {
            throw ContactStoreError(code: .notAnAddressBook,
                                    message: "is not an address book (no .cardsync folder); make it one with `cardsync init \(path)`", path: path)
        }
        return meta
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
