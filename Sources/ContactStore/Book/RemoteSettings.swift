public import Foundation
import JSONText

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
        func damaged(_ reason: String) -> ContactStoreError {
            ContactStoreError(code: .invalidInput, message: "is damaged (\(reason)); set the remote again with `cardsync remote \(directory.path) set URL`",
                              path: path)
        }
        // Read with JSONText rather than Foundation's JSONDecoder, whose set-up costs every sync
        // a few tenths of a millisecond (the file has three members).
        let value: JSONValue
        do throws(JSONError) {
            value = try JSONValue(parsing: bytes)
        } catch {
            throw damaged("\(error)")
        }
        guard let object = value.objectValue else { throw damaged("it is not a JSON object") }
        guard let url = object["url"]?.stringValue else { throw damaged("its `url` is missing or not a string") }
        var settings = RemoteSettings(url: url)
        switch object["passwordFile"] {
        case nil, .null?: break
        case .string(let file)?: settings.passwordFile = file
        default: throw damaged("its `passwordFile` is not a string")
        }
        switch object["insecure"] {
        case nil: break
        case .bool(let insecure)?: settings.insecure = insecure
        default: throw damaged("its `insecure` is not true or false")
        }
        return settings
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
