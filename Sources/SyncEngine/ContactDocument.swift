import ContactStore
public import CouchClient
import Foundation
public import JSONText
public import VCardKit

/// The remote form of a contact: one CouchDB document per contact (see
/// `Schemas/couch-contact.schema.json`).
///
/// The vCard text is authoritative. `hash`, `fn`, `emails` and `phones` are derived from it
/// for people and views; other clients may edit the text without updating them, so reading a
/// document recomputes them from the text. The one exception is `hash` beside a `vcardDigest`
/// (``TextDigest``) that the text still matches: the text is then exactly the one the hash was
/// computed from, with the same version of the canonical form, and the hash is taken as it is
/// (computing it is most of what reading a document costs).
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

    /// The properties ``document(uid:bytes:card:hash:revision:updated:edited:)`` reads from its
    /// card (for `fn`, `emails` and `phones`): a card holding only these gives the same document.
    public static let propertiesRead: Set<String> = ["FN", "EMAIL", "TEL"]

    /// The document for a contact's card.
    ///
    /// - Parameters:
    ///   - uid: the contact's identity (its UID, or the one cardsync generated).
    ///   - bytes: the card exactly as stored.
    ///   - card: the parsed card, for the derived fields (only its ``propertiesRead`` are used).
    ///   - revision: the last known `_rev`, to update the document; `nil` to create it.
    ///   - updated: when the contact last changed here, in milliseconds since 1970.
    ///   - edited: when this version was made (``ContactRecord/editTime``), in milliseconds
    ///     since 1970; the time `--conflict newest` compares on both sides. `nil` leaves it out.
    public static func document(uid: String, bytes: [UInt8], card: VCard, hash: ContentHash, revision: String?,
                                updated: Int64, edited: Int64? = nil) -> JSONObject {
        var document: JSONObject = [
            "_id": .string(documentID(forUID: uid)),
            "type": "contact",
            "schemaVersion": 1,
            "uid": .string(uid),
            "vcard": .string(String(decoding: bytes, as: UTF8.self)),
            "hash": .string(hash.hexDigits),
            "vcardDigest": .string(TextDigest(of: bytes).hexDigits),
            "fn": .string(card.formattedName ?? ""),
            "emails": .array(card.emailAddresses.map(JSONValue.string)),
            "phones": .array(card.telephoneNumbers.map(JSONValue.string)),
            "updated": .string(UTCTimestamp.format(milliseconds: updated)),
        ]
        if let revision { document["_rev"] = .string(revision) }
        if let edited { document["edited"] = .string(UTCTimestamp.format(milliseconds: edited)) }
        return document
    }

    /// ``document(uid:bytes:card:hash:revision:updated:edited:)`` written straight to JSON text,
    /// the same bytes (`JSONWriter`'s text of that object), without building the object: a sync
    /// sends these by the thousand.
    public static func serializedDocument(uid: String, bytes: [UInt8], card: VCard, hash: ContentHash, revision: String?,
                                          updated: Int64, edited: Int64? = nil) -> SerializedDocument {
        let id = documentID(forUID: uid)
        // The card's text once or a little more (escaped line ends), and the other members.
        var writer = JSONObjectWriter(reservingCapacity: bytes.count + bytes.count / 16 + 2 * uid.count + 320)
        writer.append("_id", string: id)
        writer.append("type", string: "contact")
        writer.append("schemaVersion", 1)
        writer.append("uid", string: uid)
        bytes.withUnsafeBufferPointer { text in
            // Ill-formed bytes are written as `document` writes them: repaired (U+FFFD).
            if text.isValidUTF8 { writer.append("vcard", validUTF8: text) } else { writer.append("vcard", string: String(decoding: bytes, as: UTF8.self)) }
        }
        writer.append("hash", string: hash.hexDigits)
        writer.append("vcardDigest", string: TextDigest(of: bytes).hexDigits)
        writer.append("fn", string: card.formattedName ?? "")
        writer.append("emails", strings: card.emailAddresses)
        writer.append("phones", strings: card.telephoneNumbers)
        writer.append("updated", string: UTCTimestamp.format(milliseconds: updated))
        if let revision { writer.append("_rev", string: revision) }
        if let edited { writer.append("edited", string: UTCTimestamp.format(milliseconds: edited)) }
        return SerializedDocument(id: id, text: writer.finished())
    }

    /// The tombstone that deletes a contact's document at `revision`; `edited`: when the
    /// contact was deleted, when known.
    public static func tombstone(uid: String, revision: String, updated: Int64, edited: Int64? = nil) -> JSONObject {
        var document: JSONObject = [
            "_id": .string(documentID(forUID: uid)), "_rev": .string(revision), "_deleted": true,
            "type": "contact", "schemaVersion": 1, "uid": .string(uid), "updated": .string(UTCTimestamp.format(milliseconds: updated)),
        ]
        if let edited { document["edited"] = .string(UTCTimestamp.format(milliseconds: edited)) }
        return document
    }

    /// A contact read from a document: its card, recomputed fields, and when it changed.
    public struct Decoded: Sendable {
        /// The contact's identity.
        public var uid: String
        /// The card's bytes as the document holds them.
        public var bytes: [UInt8]
        /// The parsed card.
        public var card: VCard
        /// Its content hash: computed from the text, or the document's own when its
        /// `vcardDigest` shows the text is the one that hash was computed from.
        public var hash: ContentHash
        /// Whether the card has no UID of its own.
        public var isGeneratedUID: Bool
        /// The document's revision.
        public var revision: String
        /// The document's `updated` time in milliseconds since 1970, when it has one.
        public var updated: Int64?
        /// The document's `edited` time (when this version was made) in milliseconds since
        /// 1970, when it has one (documents written before cardsync kept it do not).
        public var edited: Int64?

        /// When this version was made, as far as the document tells: `edited`, else `updated`.
        public var editTime: Int64? { edited ?? updated }
    }

    /// Reads a (live) contact document: its card, and the card's content hash (the document's
    /// `hash` when its `vcardDigest` matches the text, else computed from the text).
    ///
    /// - Throws: a message naming what is wrong when the document is not a usable contact.
    public static func decode(_ document: JSONObject) throws(DocumentProblem) -> Decoded {
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
            result = try VCardReader.read(bytes, sourceName: id, options: .deferringPlainCards)
        } catch {
            throw DocumentProblem(documentID: id, message: "its vcard text cannot be read: \(error)")
        }
        if let error = result.diagnostics.first(where: { $0.severity == .error }) {
            throw DocumentProblem(documentID: id, message: "its vcard text is invalid at line \(error.location.line): \(error.message)")
        }
        guard result.cards.count == 1, let card = result.cards.first else {
            throw DocumentProblem(documentID: id, message: "its vcard text holds \(result.cards.count) cards; a contact document holds exactly one")
        }
        let cardUID = card.normalizedUID
        if let cardUID, cardUID != uid {
            throw DocumentProblem(documentID: id, message: "its card's UID (\(cardUID)) is not the UID of its id (\(uid)); fix one of them on the server")
        }
        let updated = document["updated"]?.stringValue.flatMap { UTCTimestamp.parse($0.utf8) }
        let edited = document["edited"]?.stringValue.flatMap { UTCTimestamp.parse($0.utf8) }
        let hash: ContentHash
        if let recorded = document["hash"]?.stringValue.flatMap({ ContentHash(hexDigits: $0) }),
           let digest = document["vcardDigest"]?.stringValue.flatMap({ TextDigest(hexDigits: $0) }),
           digest == TextDigest(of: bytes) {
            hash = recorded
        } else {
            hash = ContentHash(of: card)
        }
        return Decoded(uid: uid, bytes: bytes, card: card, hash: hash, isGeneratedUID: cardUID == nil,
                       revision: revision, updated: updated, edited: edited)
    }

    /// A document that is not a usable contact, and why.
    public struct DocumentProblem: Error, Sendable, Hashable, CustomStringConvertible {
        /// The document id.
        public var documentID: String
        /// What is wrong.
        public var message: String
        public var description: String { "\(documentID): \(message)" }
    }
}
