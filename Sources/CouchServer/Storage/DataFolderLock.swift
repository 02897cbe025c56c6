#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The exclusive lock a running server holds on its data folder, and the `endpoint.json` that
/// says where it listens.
struct DataFolderLock: Sendable {
    private let descriptor: Int32
    private let directory: String

    static let lockName = "lock"
    static let endpointName = "endpoint.json"

    /// Takes the lock, or fails at once naming the server that holds it.
    init(directory url: URL) throws {
        let directory = url.standardizedFileURL.path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let fd = open(directory + "/" + Self.lockName, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CouchError(.storageFailure, reason: "cannot open \(directory)/\(Self.lockName): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            let running = Self.runningEndpoint(in: url).map { " (listening on \($0.absoluteString))" } ?? ""
            throw CouchError(.storageFailure, reason: "another cardsync serve is using the data folder \(directory)\(running); stop it first, or use it")
        }
        self.descriptor = fd
        self.directory = directory
    }

    /// Writes `endpoint.json` with the URL the server listens on.
    func publish(url: String) {
        let text = "{\"pid\":\(getpid()),\"url\":\"\(url)\"}\n"
        let path = directory + "/" + Self.endpointName
        let temporary = path + ".tmp"
        guard let data = text.data(using: .utf8), FileManager.default.createFile(atPath: temporary, contents: data) else { return }
        rename(temporary, path)
    }

    /// Removes `endpoint.json` and releases the lock.
    func release() {
        unlink(directory + "/" + Self.endpointName)
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// The URL in `endpoint.json` when another process holds the lock.
    static func runningEndpoint(in url: URL) -> URL? {
        let directory = url.standardizedFileURL.path
        let fd = open(directory + "/" + lockName, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return nil
        }
        guard let data = FileManager.default.contents(atPath: directory + "/" + endpointName),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let text = object["url"] as? String else { return nil }
        return URL(string: text)
    }
}
