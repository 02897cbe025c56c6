import CouchClient
import Foundation
public import JSONText
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
            "fn": .string(card.formattedName ?? ""),
            "emails": .array(card.emailAddresses.map(JSONValue.string)),
            "phones": .array(card.telephoneNumbers.map(JSONValue.string)),
            "updated": .string(timestamp(updated)),
        ]
        if let revision { document["_rev"] = .string(revision) }
        if let edited { document["edited"] = .string(timestamp(edited)) }
        return document
    }

    /// The tombstone that deletes a contact's document at `revision`; `edited`: when the
    /// contact was deleted, when known.
    public static func tombstone(uid: String, revision: String, updated: Int64, edited: Int64? = nil) -> JSONObject {
        var document: JSONObject = [
            "_id": .string(documentID(forUID: uid)), "_rev": .string(revision), "_deleted": true,
            "type": "contact", "schemaVersion": 1, "uid": .string(uid), "updated": .string(timestamp(updated)),
        ]
        if let edited { document["edited"] = .string(timestamp(edited)) }
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
        /// Its content hash, computed from the text.
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

    /// Reads a (live) contact document.
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
        let edited = document["edited"]?.stringValue.flatMap(milliseconds(fromTimestamp:))
        return Decoded(uid: uid, bytes: bytes, card: card, hash: ContentHash(of: card), isGeneratedUID: cardUID?.isEmpty ?? true,
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

    /// `2026-11-22T05:09:44.123Z` for milliseconds since 1970.
    static func timestamp(_ milliseconds: Int64) -> String {
        let seconds = Int(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
        let millis = Int(milliseconds - Int64(seconds) * 1000)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Civil from days (proleptic Gregorian), after Howard Hinnant's algorithm.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let milliText = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(year)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)).\(milliText)Z"
    }

    /// Milliseconds since 1970 of an RFC 3339 UTC time (`2026-11-22T05:09:44.123Z`, fraction
    /// optional; `+00:00` accepted), or `nil`.
    static func milliseconds(fromTimestamp text: String) -> Int64? {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard bytes.count >= 20, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54 || bytes[10] == 0x74,
              bytes[13] == 0x3A, bytes[16] == 0x3A,
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var millis = 0
        if bytes[index] == 0x2E {
            index += 1
            var digits = 0
            while index < bytes.count, bytes[index] >= 0x30 && bytes[index] <= 0x39 {
                if digits < 3 { millis = millis * 10 + Int(bytes[index] - 0x30) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            if digits < 3 { for _ in digits..<3 { millis *= 10 } }
        }
        let rest = String(decoding: bytes[index...], as: UTF8.self)
        guard rest == "Z" || rest == "z" || rest == "+00:00" else { return nil }
        // Days from civil (proleptic Gregorian), after Howard Hinnant's algorithm.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Int64(((days * 24 + hour) * 60 + minute) * 60 + second) * 1000 + Int64(millis)
    }
}
