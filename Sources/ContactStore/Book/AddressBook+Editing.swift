#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import VCardKit

/// A contact's file as it is on disk: the bytes an editor shows and an edit is based on.
public struct ContactFile: Sendable {
    /// What the book knows about the contact.
    public var record: ContactRecord
    /// The file's bytes, exactly as stored.
    public var bytes: [UInt8]
    /// The card read from ``bytes`` (its properties remember their bytes, so writing it back
    /// unchanged gives ``bytes`` again).
    public var card: VCard
    /// A fingerprint of ``bytes`` (the content hash of the file's text, not of the card's canonical
    /// form): an edit names it to say which version it was based on.
    public var version: String { FileVersion.of(bytes) }
}

/// Fingerprints of file bytes, for telling whether a file changed between showing and saving.
public enum FileVersion {
    /// The fingerprint of `bytes`: 64-bit FNV-1a over every byte, in hex.
    public static func of(_ bytes: some Sequence<UInt8>) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

extension AddressBook {
    /// The file of the live contact `uid`, when it holds that contact alone.
    ///
    /// ```swift
    /// let file = try await book.contactFile(uid: "ada")
    /// print(file.version, file.card.formattedName ?? "")
    /// ```
    /// - Throws: ``ContactStoreError`` — `notFound` when no live contact has the UID, `unsupported`
    ///   when its file holds other contacts too, `io` or `invalidInput` when the file cannot be read.
    public func contactFile(uid: String) throws(ContactStoreError) -> ContactFile {
        guard let record = index.live(uid) else {
            throw ContactStoreError(code: .notFound, message: "no live contact has UID \(uid); `cardsync list \(directory)` shows them")
        }
        guard (index.uidsByFile[record.file]?.count ?? 0) <= 1 else {
            throw ContactStoreError(code: .unsupported,
                                    message: "\(uid) shares \(record.file) with other contacts; move it to a file of its own to edit it", path: record.file)
        }
        let bytes = try POSIX.readFile(directory + "/" + record.file).bytes
        let cards: [VCard]
        do {
            cards = try VCardReader.read(bytes, sourceName: record.file).cards
        } catch {
            throw ContactStoreError(code: .invalidInput, message: "cannot be read: \(error)", path: record.file)
        }
        guard cards.count == 1, let card = cards.first else {
            throw ContactStoreError(code: .invalidInput, message: "holds \(cards.count) cards where one was expected; run `cardsync scan \(directory)`",
                                    path: record.file)
        }
        return ContactFile(record: record, bytes: bytes, card: card)
    }

    /// Replaces the contact's file with `bytes`, an edit of the version named `basedOn`, and
    /// journals it as an `update` (source `user`), like any other change: `cardsync log` shows
    /// it and `cardsync sync` sends it.
    ///
    /// When the file changed since that version (another program or a sync wrote it), nothing is
    /// written: the folder is scanned so that the newer version is journaled, and the edit is
    /// refused with ``ContactStoreError/Code/stale``.
    ///
    /// ```swift
    /// let shown = try await book.contactFile(uid: "ada")
    /// let event = try await book.replaceContact(uid: "ada", with: edited, basedOn: shown.version)
    /// ```
    /// - Parameters:
    ///   - uid: the contact.
    ///   - bytes: the new file: exactly one card, with the contact's UID (or none, for a
    ///     contact whose UID cardsync generated).
    ///   - basedOn: the ``ContactFile/version`` the edit started from.
    /// - Returns: the `update` event, or `nil` when `bytes` are the file's bytes already.
    /// - Throws: ``ContactStoreError`` — `stale`, `invalidInput` (not one card, another UID),
    ///   `notFound`, `unsupported`, `io`.
    @discardableResult
    public func replaceContact(uid: String, with bytes: [UInt8], basedOn version: String) async throws(ContactStoreError) -> JournalEvent? {
        let current = try contactFile(uid: uid)
        guard current.version == version else {
            _ = try await scan()
            throw ContactStoreError(code: .stale,
                                    message: "\(current.record.file) was changed by another program or a sync after this version was shown; nothing was saved",
                                    path: current.record.file)
        }
        if bytes == current.bytes { return nil }
        let card = try Self.singleCard(bytes, file: current.record.file)
        let record = current.record
        let expectedUID: String? = record.isGeneratedUID ? nil : uid
        guard card.normalizedUID == expectedUID else {
            throw ContactStoreError(code: .invalidInput,
                                    message: "the edited card has UID \(card.normalizedUID ?? "(none)") where \(expectedUID ?? "none") was expected; the UID cannot be changed",
                                    path: record.file)
        }
        let hash = ContentHash(of: card)
        try POSIX.writeAtomically(bytes, directory: directory, name: record.file, replacing: true)
        let event = JournalEvent(operation: .update, uid: uid, file: record.file, hash: hash, previousHash: record.hash, source: .user,
                                 name: card.formattedName ?? record.name, card: index.cardOffsets[hash] == nil ? bytes : nil,
                                 isGeneratedUID: record.isGeneratedUID)
        let written = try await self.record([event])
        stampWrittenFile(record.file)
        return written[0].withoutCard
    }

    /// Adds a new contact from `bytes` (exactly one card with a UID no live contact has) in a
    /// file of its own, journaled as an `add` (source `user`).
    ///
    /// ```swift
    /// let event = try await book.addContact(Array("BEGIN:VCARD\r\nVERSION:4.0\r\nUID:ada\r\nFN:Ada\r\nEND:VCARD\r\n".utf8))
    /// ```
    /// - Returns: the `add` event.
    /// - Throws: ``ContactStoreError`` — `invalidInput` (not one card, no UID, a UID in use), `io`.
    @discardableResult
    public func addContact(_ bytes: [UInt8]) async throws(ContactStoreError) -> JournalEvent {
        let card = try Self.singleCard(bytes, file: "new contact")
        guard let uid = card.normalizedUID else {
            throw ContactStoreError(code: .invalidInput, message: "a new contact needs a UID")
        }
        if let existing = index.records[uid] {
            throw ContactStoreError(code: .invalidInput,
                                    message: "UID \(uid) is \(existing.isDeleted ? "a deleted contact's; restore it instead" : "in use by \(existing.file)")")
        }
        let file = freshFileName(for: uid)
        let hash = ContentHash(of: card)
        try POSIX.writeAtomically(bytes, directory: directory, name: file, replacing: false)
        let event = JournalEvent(operation: .add, uid: uid, file: file, hash: hash, previousHash: nil, source: .user,
                                 name: card.formattedName, card: index.cardOffsets[hash] == nil ? bytes : nil, isGeneratedUID: false)
        let written = try await record([event])
        stampWrittenFile(file)
        return written[0].withoutCard
    }

    /// Deletes the contact `uid` (its file is removed), journaled as a `delete` (source `user`);
    /// ``restore(uid:sequence:)`` brings it back.
    ///
    /// - Parameters:
    ///   - uid: the contact.
    ///   - basedOn: the ``ContactFile/version`` the user saw; a file changed since is not deleted
    ///     (``ContactStoreError/Code/stale``). `nil` deletes whatever the file holds.
    /// - Returns: the `delete` event.
    @discardableResult
    public func deleteContact(uid: String, basedOn version: String? = nil) async throws(ContactStoreError) -> JournalEvent {
        let current = try contactFile(uid: uid)
        if let version, current.version != version {
            _ = try await scan()
            throw ContactStoreError(code: .stale,
                                    message: "\(current.record.file) was changed by another program or a sync after this version was shown; nothing was deleted",
                                    path: current.record.file)
        }
        let record = current.record
        guard unlink(directory + "/" + record.file) == 0 || errno == ENOENT else {
            throw .io(directory + "/" + record.file, "cannot remove", errno: errno)
        }
        try POSIX.sync(directory)
        let event = JournalEvent(operation: .delete, uid: uid, file: record.file, hash: nil, previousHash: record.hash, source: .user,
                                 name: record.name, isGeneratedUID: record.isGeneratedUID)
        return try await self.record([event])[0].withoutCard
    }

    /// The text of the card a journal event recorded (`nil` for a deletion, or when compacted away).
    public func cardBytes(recordedBy event: JournalEvent) throws(ContactStoreError) -> [UInt8]? {
        guard let hash = event.hash else { return nil }
        return try storedCard(hash)
    }

    private static func singleCard(_ bytes: [UInt8], file: String) throws(ContactStoreError) -> VCard {
        let result: VCardReadResult
        do {
            result = try VCardReader.read(bytes, sourceName: file)
        } catch {
            throw ContactStoreError(code: .invalidInput, message: "\(error)", path: file)
        }
        if let problem = result.diagnostics.first(where: { $0.severity == .error }) {
            throw ContactStoreError(code: .invalidInput, message: problem.description, path: file)
        }
        guard result.cards.count == 1 else {
            throw ContactStoreError(code: .invalidInput, message: "holds \(result.cards.count) cards where one was expected", path: file)
        }
        return result.cards[0]
    }
}
