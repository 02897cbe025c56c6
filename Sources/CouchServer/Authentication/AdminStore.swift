import Foundation

/// Reads and writes `admin.json` in the data folder: the admin's name and PBKDF2 hash.
enum AdminStore {
    static let fileName = "admin.json"

    /// The stored hash, if there is one.
    static func stored(in directory: URL) -> PasswordHash? {
        let url = directory.appendingPathComponent(fileName)
        return (try? Data(contentsOf: url)).flatMap { try? JSONDecoder().decode(PasswordHash.self, from: $0) }
    }

    /// The admin to enforce: the one given (its hash stored when new or changed), else the stored one.
    static func resolve(_ admin: CouchServerConfiguration.Admin?, in directory: URL, iterations: Int) throws -> PasswordHash? {
        let url = directory.appendingPathComponent(fileName)
        let stored = stored(in: directory)
        guard let admin else { return stored }
        guard let password = admin.password else {
            guard let stored, stored.name == admin.name else {
                throw CouchError(.unauthorized, reason: "no password given for admin '\(admin.name)' and none stored in \(directory.path); give --admin \(admin.name):PASSWORD or set CARDSYNC_ADMIN_PASSWORD")
            }
            return stored
        }
        if let stored, stored.name == admin.name, stored.verifies(password: password) { return stored }
        let hash = try PasswordHash(name: admin.name, password: password, iterations: iterations)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try FileIO.writeFileAtomically(Array(try encoder.encode(hash)), to: url.path, directory: directory.path)
        chmod(url.path, 0o600)
        return hash
    }
}

/// `server.json` in the data folder: the server's uuid and the secret that signs session cookies.
struct ServerSettings: Codable {
    var uuid: String
    var secret: String

    static let fileName = "server.json"

    static func loadOrCreate(in directory: URL) throws -> ServerSettings {
        let url = directory.appendingPathComponent(fileName)
        if let data = try? Data(contentsOf: url), let settings = try? JSONDecoder().decode(ServerSettings.self, from: data) {
            return settings
        }
        let settings = ServerSettings(uuid: Database.randomHex(), secret: Database.randomHex() + Database.randomHex())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try FileIO.writeFileAtomically(Array(try encoder.encode(settings)), to: url.path, directory: directory.path)
        chmod(url.path, 0o600)
        return settings
    }
}
