public import Foundation
public import Logging

/// The databases of a data folder: creates, opens (once, lazily), lists and deletes them.
///
/// Layout: `DATA/databases/<name>/journal.jsonl`, where a `/` in a database name is written
/// `%2F` (CouchDB names cannot contain `%`, so the mapping is reversible).
public actor DatabaseCatalog {
    /// The data folder.
    public nonisolated let directory: URL
    private nonisolated let databasesDirectory: URL
    private let revisionsLimit: Int
    private let logger: Logger
    private var opened: [String: Database] = [:]

    /// Opens the catalog of `directory`, creating the folder when missing.
    ///
    /// - Throws: ``CouchError`` (`storage_failure`) when the folder cannot be created.
    public init(directory: URL, revisionsLimit: Int = 1000, logger: Logger) throws(CouchError) {
        self.directory = directory
        self.databasesDirectory = directory.appendingPathComponent("databases")
        self.revisionsLimit = revisionsLimit
        self.logger = logger
        do {
            try FileManager.default.createDirectory(at: databasesDirectory, withIntermediateDirectories: true)
        } catch {
            throw CouchError(.storageFailure, reason: "cannot create \(databasesDirectory.path): \(error)")
        }
        // Leftovers of a create or delete cut short by a crash.
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: databasesDirectory.path)) ?? []
        for name in leftovers where name.hasPrefix(".") {
            try? FileManager.default.removeItem(at: databasesDirectory.appendingPathComponent(name))
        }
    }

    /// Whether `name` follows CouchDB's rules: lowercase letter first, then `a-z 0-9 _ $ ( ) + - /`.
    public static func isValidName(_ name: String) -> Bool {
        let systemNames: Set<String> = ["_users", "_replicator", "_global_changes"]
        if systemNames.contains(name) { return true }
        guard let first = name.utf8.first, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z"), name.utf8.count <= 238
        else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || "_$()+-/".utf8.contains(byte)
        }
    }

    static func invalidNameError(_ name: String) -> CouchError {
        CouchError(.illegalDatabaseName, reason: "Name: '\(name)'. Only lowercase characters (a-z), digits (0-9), and any of the characters _, $, (, ), +, -, and / are allowed. Must begin with a letter.")
    }

    private nonisolated func folder(for name: String) -> URL {
        databasesDirectory.appendingPathComponent(name.replacingOccurrences(of: "/", with: "%2F"))
    }

    /// The open database `name`.
    ///
    /// - Throws: ``CouchError`` `not_found` when it does not exist.
    public func database(named name: String) throws(CouchError) -> Database {
        if let database = opened[name] { return database }
        let folder = folder(for: name)
        guard Self.isValidName(name), FileManager.default.fileExists(atPath: folder.appendingPathComponent(Database.journalName).path)
        else { throw CouchError.missingDatabase }
        let database = try Database.open(named: name, in: folder, revisionsLimit: revisionsLimit)
        let recovery = database.recovery
        if let aside = recovery.setAsideFile {
            logger.warning("set aside a torn last line of database \(name)", metadata: ["file": "\(aside)", "bytes": "\(recovery.setAsideBytes)"])
        }
        if !recovery.skippedLineOffsets.isEmpty {
            logger.error("skipped damaged journal lines of database \(name)", metadata: ["offsets": "\(recovery.skippedLineOffsets)"])
        }
        opened[name] = database
        return database
    }

    /// Creates database `name`.
    ///
    /// - Throws: ``CouchError`` `illegal_database_name`, `file_exists` (412), or `storage_failure`.
    @discardableResult
    public func createDatabase(named name: String) throws(CouchError) -> Database {
        guard Self.isValidName(name) else { throw Self.invalidNameError(name) }
        let folder = folder(for: name)
        if opened[name] != nil || FileManager.default.fileExists(atPath: folder.path) {
            throw CouchError(.fileExists, reason: "The database could not be created, the file already exists.")
        }
        // Build it beside, then rename: a crash leaves either nothing or a whole database.
        let staging = databasesDirectory.appendingPathComponent(".creating-\(Database.randomHex())")
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
        } catch {
            throw CouchError(.storageFailure, reason: "cannot create \(staging.path): \(error)")
        }
        let database: Database
        do throws(CouchError) {
            _ = try Database.create(named: name, in: staging, revisionsLimit: revisionsLimit)
            try FileIO.syncDirectory(staging.path)
            if rename(staging.path, folder.path) != 0 { throw FileIO.failure("cannot rename", staging.path) }
            try FileIO.syncDirectory(databasesDirectory.path)
            database = try Database.open(named: name, in: folder, revisionsLimit: revisionsLimit)
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw error
        }
        opened[name] = database
        return database
    }

    /// Deletes database `name` and its folder.
    ///
    /// - Throws: ``CouchError`` `not_found` when it does not exist.
    public func deleteDatabase(named name: String) async throws(CouchError) {
        let database = try self.database(named: name)
        opened[name] = nil
        await database.close()
        let folder = folder(for: name)
        let trash = databasesDirectory.appendingPathComponent(".deleting-\(Database.randomHex())")
        if rename(folder.path, trash.path) != 0 { throw FileIO.failure("cannot rename", folder.path) }
        try FileIO.syncDirectory(databasesDirectory.path)
        try? FileManager.default.removeItem(at: trash)
    }

    /// Every database name, sorted.
    public func databaseNames() -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: databasesDirectory.path)) ?? []
        return entries.filter { !$0.hasPrefix(".") }
            .map { $0.replacingOccurrences(of: "%2F", with: "/") }
            .filter(Self.isValidName)
            .sorted()
    }
}
