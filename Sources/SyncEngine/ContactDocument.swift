public import CouchClient
import Foundation
public import VCardKit

/// The remote form of a contact: one CouchDB document per contact (see
/// `Schemas/couch-contact.schema.json`).
///
/// The vCard text is authoritative. `hash`, `fn`, `emails` and `phones` are derived from it
/// for people and views; other clients may edit the text without updating them, so reading a
/// document always recomputes them from the text.
public enum ContactDocument {
    /// The prefix of every contact document id. It also makes ids of UIDs that start with `_`
    /// (reserved by CouchDB) valid, reversibly.
    public static let idPrefix = "contact:"

    /// The document id for a contact UID.
    public static func documentID(forUID uid: String) -> String { idPrefix + uid }

    /// The UID a document id stands for, or `nil` when the document is not a contact.
    public static func uid(fromDocumentID id: String) -> String? {
        guard id.hasPrefix(idPrefix), id.count > idPrefix.count else { return nil }
        return String(id.dropFirst(idPrefix.count))
    }

    /// The document for a contact's card.
    ///
    /// - Parameters:
    ///   - uid: the contact's identity (its UID, or the one cardsync generated).
    ///   - bytes: the card exactly as stored.
    ///   - card: the parsed card, for the derived fields.
    ///   - revision: the last known `_rev`, to update the document; `nil` to create it.
    ///   - updated: when the contact last changed, in milliseconds since 1970.
    public static func document(uid: String, bytes: [UInt8], card: VCard, hash: ContentHash, revision: String?,
                                updated: Int64) -> [String: CouchJSON] {
        var document: [String: CouchJSON] = [
            "_id": .string(documentID(forUID: uid)),
            "type": "contact",
            "schemaVersion": 1,
            "uid": .string(uid),
            "vcard": .string(String(decoding: bytes, as: UTF8.self)),
            "hash": .string(hash.hexDigits),
            "fn": .string(card.formattedName ?? ""),
            "emails": .array(card.emailAddresses.map(CouchJSON.string)),
            "phones": .array(card.telephoneNumbers.map(CouchJSON.string)),
            "updated": .string(timestamp(updated)),
        ]
        if let revision { document["_rev"] = .string(revision) }
        return document
    }

    /// The tombstone that deletes a contact's document at `revision`.
    public static func tombstone(uid: String, revision: String, updated: Int64) -> [String: CouchJSON] {
        ["_id": .string(documentID(forUID: uid)), "_rev": .string(revision), "_deleted": true,
         "type": "contact", "schemaVersion": 1, "uid": .string(uid), "updated": .string(timestamp(updated))]
    }

    /// A contact read from a document: its card, recomputed fields, and when it changed.
    public struct Decoded: Sendable {
        /// The contact's identity.
        public var uid: String
        /// The card's bytes as the document holds them.
        public var bytes: [UInt8]
        /// The parsed card.
        public var card: VCard
        /// Its content hash, computed from the text.
        public var hash: ContentHash
        /// Whether the card has no UID of its own.
        public var isGeneratedUID: Bool
        /// The document's revision.
        public var revision: String
        /// The document's `updated` time in milliseconds since 1970, when it has one.
        public var updated: Int64?
    }

    /// Reads a (live) contact document.
    ///
    /// - Throws: a message naming what is wrong when the document is not a usable contact.
    public static func decode(_ document: [String: CouchJSON]) throws(DocumentProblem) -> Decoded {
        guard let id = document["_id"]?.stringValue, let uid = uid(fromDocumentID: id) else {
            throw DocumentProblem(documentID: document["_id"]?.stringValue ?? "?", message: "is not a contact document (its id does not start with \(idPrefix))")
        }
        guard let revision = document["_rev"]?.stringValue else { throw DocumentProblem(documentID: id, message: "has no _rev") }
        guard let text = document["vcard"]?.stringValue, !text.isEmpty else {
            throw DocumentProblem(documentID: id, message: "has no vcard text")
        }
        let bytes = Array(text.utf8)
        let result: VCardReadResult
        do {
            result = try VCardReader.read(bytes, sourceName: id)
        } catch {
            throw DocumentProblem(documentID: id, message: "its vcard text cannot be read: \(error)")
        }
        if let error = result.diagnostics.first(where: { $0.severity == .error }) {
            throw DocumentProblem(documentID: id, message: "its vcard text is invalid at line \(error.location.line): \(error.message)")
        }
        guard result.cards.count == 1, let card = result.cards.first else {
            throw DocumentProblem(documentID: id, message: "its vcard text holds \(result.cards.count) cards; a contact document holds exactly one")
        }
        let cardUID = card.uid?.trimmingCharacters(in: .whitespaces)
        if let cardUID, !cardUID.isEmpty, cardUID != uid {
            throw DocumentProblem(documentID: id, message: "its card's UID (\(cardUID)) is not the UID of its id (\(uid)); fix one of them on the server")
        }
        let updated = document["updated"]?.stringValue.flatMap(milliseconds(fromTimestamp:))
        return Decoded(uid: uid, bytes: bytes, card: card, hash: ContentHash(of: card), isGeneratedUID: cardUID?.isEmpty ?? true,
                       revision: revision, updated: updated)
    }

    /// A document that is not a usable contact, and why.
    public struct DocumentProblem: Error, Sendable, Hashable, CustomStringConvertible {
        /// The document id.
        public var documentID: String
        /// What is wrong.
        public var message: String
        public var description: String { "\(documentID): \(message)" }
    }

    static func timestamp(_ milliseconds: Int64) -> String {
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let millis = Int(((milliseconds % 1000) + 1000) % 1000)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!, millis)
    }

    static func milliseconds(fromTimestamp text: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return Int64((date.timeIntervalSince1970 * 1000).rounded()) }
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return Int64((date.timeIntervalSince1970 * 1000).rounded()) }
        return nil
    }
}
