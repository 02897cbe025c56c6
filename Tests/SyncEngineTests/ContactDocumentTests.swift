import CouchClient
import Foundation
import JSONText
import SyncEngine
import Testing
import TestSupport
import VCardKit

/// The remote document: ids, derived fields recomputed from the text, times.
@Suite struct ContactDocumentTests {
    @Test(arguments: ["ada", "_design", "_local/x", "a/b c?d", "Zoë-☎"])
    func documentIDsMapUIDsReversibly(uid: String) {
        let id = ContactDocument.documentID(forUID: uid)
        #expect(!id.hasPrefix("_"))
        #expect(ContactDocument.uid(fromDocumentID: id) == uid)
    }

    @Test func derivedFieldsAreRecomputedFromTheTextNotTrusted() throws {
        let text = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:ada\r\nFN:Ada Lovelace\r\nEMAIL:ada@example.com\r\nEND:VCARD\r\n"
        let document: JSONObject = ["_id": "contact:ada", "_rev": "3-0123456789abcdef0123456789abcdef", "vcard": .string(text),
                                             "hash": .string(String(repeating: "0", count: 64)), "fn": "Someone Else",
                                             "updated": "2026-11-22T05:09:44.120Z"]
        let decoded = try ContactDocument.decode(document)
        let card = try VCardReader.read(Array(text.utf8), sourceName: "t").cards[0]
        #expect(decoded.hash == ContentHash(of: card))
        #expect(decoded.card.formattedName == "Ada Lovelace")
        #expect(decoded.updated == 1_795_324_184_120)
        #expect(decoded.revision == "3-0123456789abcdef0123456789abcdef")
    }

    /// A document cardsync wrote carries the digest of its text beside its hash; while the text
    /// still gives that digest, the hash is taken as the document has it and not computed again.
    @Test func aHashBesideADigestTheTextStillMatchesIsTakenAsItIs() throws {
        let text = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:ada\r\nFN:Ada Lovelace\r\nEMAIL:ada@example.com\r\nEND:VCARD\r\n"
        let card = try VCardReader.read(Array(text.utf8), sourceName: "t").cards[0]
        var document = ContactDocument.document(uid: "ada", bytes: Array(text.utf8), card: card, hash: ContentHash(of: card),
                                                revision: "1-0123456789abcdef0123456789abcdef", updated: 0)
        #expect(document["vcardDigest"]?.stringValue == TextDigest(of: Array(text.utf8)).hexDigits)
        #expect(try ContactDocument.decode(document).hash == ContentHash(of: card))
        // Shown with a hash the text would not give: it is read, not recomputed.
        let recorded = String(repeating: "ab", count: 32)
        document["hash"] = .string(recorded)
        #expect(try ContactDocument.decode(document).hash.hexDigits == recorded)
    }

    /// Another client edits the text and leaves `hash` and `vcardDigest` as they were: the text
    /// no longer gives the digest, so the hash is computed from the text.
    @Test func aTextEditedElsewhereHasItsHashComputedAgain() throws {
        let text = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:ada\r\nFN:Ada Lovelace\r\nEND:VCARD\r\n"
        let card = try VCardReader.read(Array(text.utf8), sourceName: "t").cards[0]
        var document = ContactDocument.document(uid: "ada", bytes: Array(text.utf8), card: card, hash: ContentHash(of: card),
                                                revision: "1-0123456789abcdef0123456789abcdef", updated: 0)
        let edited = text.replacingOccurrences(of: "FN:Ada Lovelace", with: "FN:Ada King")
        document["vcard"] = .string(edited)
        let editedCard = try VCardReader.read(Array(edited.utf8), sourceName: "t").cards[0]
        let decoded = try ContactDocument.decode(document)
        #expect(decoded.hash == ContentHash(of: editedCard) && decoded.hash != ContentHash(of: card))
        // A malformed digest, or the edited text's bare SHA-256 (no version line), does not match.
        for digest in ["not hex", "73718aea0b72aac73133d3d936b0a505c68938b413030bcdefd8523df3d78b9f"] {
            document["vcardDigest"] = .string(digest)
            document["hash"] = .string(String(repeating: "ab", count: 32))
            #expect(try ContactDocument.decode(document).hash == ContentHash(of: editedCard), "\(digest)")
        }
    }

    /// A card of ill-formed UTF-8 is sent repaired; its digest is of the bytes as stored, which
    /// the repaired text does not give, so its hash is computed from the text read.
    @Test func aRepairedTextHasItsHashComputedFromWhatWasRead() throws {
        let bytes = Array("BEGIN:VCARD\r\nVERSION:4.0\r\nUID:ada\r\nFN:Ada\r\nNOTE:caf".utf8) + [0xE9, 0xFF]
            + Array("\r\nEND:VCARD\r\n".utf8)
        let card = try VCardReader.read(bytes, sourceName: "t").cards[0]
        var document = ContactDocument.document(uid: "ada", bytes: bytes, card: card, hash: ContentHash(of: card), revision: nil, updated: 0)
        document["_rev"] = "1-0123456789abcdef0123456789abcdef"
        let repaired = try #require(document["vcard"]?.stringValue)
        let read = try VCardReader.read(Array(repaired.utf8), sourceName: "t").cards[0]
        #expect(try ContactDocument.decode(document).hash == ContentHash(of: read))
    }

    /// The digest's text, pinned: SHA-256 of `cardsync-content-v1`, a line feed, and the bytes.
    @Test func theTextDigestIsTheSHA256OfTheVersionLineAndTheBytes() {
        let bytes = Array("BEGIN:VCARD\r\nVERSION:4.0\r\nUID:4fbe8971-0bc3-424c-9c26-36c3e1eff6b1\r\nFN:Ada Lovelace\r\nEMAIL:ada@example.org\r\nEND:VCARD\r\n".utf8)
        #expect(TextDigest(of: bytes).hexDigits == "272859d989508590aca453ef1aa6bfee4f90f73c04d73db6baf44cf1e023964c")
        #expect(TextDigest(of: bytes) == TextDigest(hexDigits: "272859D989508590ACA453EF1AA6BFEE4F90F73C04D73DB6BAF44CF1E023964C"))
    }

    /// The edit time travels as `edited`; a document without it (an older cardsync, another
    /// client) is dated by `updated`, as before.
    @Test func theEditTimeIsEditedElseUpdated() throws {
        let text = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:ada\r\nFN:Ada Lovelace\r\nEND:VCARD\r\n"
        let card = try VCardReader.read(Array(text.utf8), sourceName: "t").cards[0]
        let written = ContactDocument.document(uid: "ada", bytes: Array(text.utf8), card: card, hash: ContentHash(of: card),
                                               revision: nil, updated: 1_795_324_184_120, edited: 1_795_300_000_000)
        #expect(written["edited"]?.stringValue == "2026-11-21T22:26:40.000Z")
        var document = written
        document["_rev"] = "1-0123456789abcdef0123456789abcdef"
        let decoded = try ContactDocument.decode(document)
        #expect(decoded.edited == 1_795_300_000_000 && decoded.updated == 1_795_324_184_120)
        #expect(decoded.editTime == 1_795_300_000_000)
        document["edited"] = nil
        #expect(try ContactDocument.decode(document).editTime == 1_795_324_184_120)
        document["updated"] = nil
        #expect(try ContactDocument.decode(document).editTime == nil)
    }

    @Test func aCardWhoseUIDDisagreesWithItsIDIsRefused() {
        let document: JSONObject = ["_id": "contact:ada", "_rev": "1-0123456789abcdef0123456789abcdef",
                                             "vcard": "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:bob\r\nFN:Bob\r\nEND:VCARD\r\n"]
        #expect(throws: ContactDocument.DocumentProblem.self) { try ContactDocument.decode(document) }
    }

    /// White space around a card's UID (a tab, spaces, a no-break or ideographic space) is not
    /// part of it: the card still belongs to its id, and a UID of white space only is none.
    @Test(arguments: [("ada", "ada"), (" ada\t", "ada"), ("\u{00A0}ada", "ada"), ("ada\u{3000}", "ada"), ("é-1 ", "é-1"),
                      ("  ", "t")])
    func whiteSpaceAroundTheCardsUIDIsNotPartOfIt(cardUID: String, idUID: String) throws {
        let document: JSONObject = ["_id": .string("contact:" + idUID), "_rev": "1-0123456789abcdef0123456789abcdef",
                                    "vcard": .string("BEGIN:VCARD\r\nVERSION:4.0\r\nUID:\(cardUID)\r\nFN:A\r\nEND:VCARD\r\n")]
        let decoded = try ContactDocument.decode(document)
        #expect(decoded.uid == idUID)
        #expect(decoded.isGeneratedUID == cardUID.allSatisfy(\.isWhitespace))
    }

    @Test(arguments: [Int64(0), 1_795_324_184_120, 951_782_400_000, -1, 4_102_444_799_999])
    func timesRoundTripThroughTheirText(milliseconds: Int64) throws {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let expected = formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        let document: JSONObject = ["_id": "contact:t", "_rev": "1-0123456789abcdef0123456789abcdef", "updated": .string(expected),
                                             "vcard": "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:T\r\nEND:VCARD\r\n"]
        #expect(try ContactDocument.decode(document).updated == milliseconds)
        let written = ContactDocument.document(uid: "t", bytes: Array("x".utf8), card: VCard(), hash: ContentHash(of: VCard()),
                                               revision: nil, updated: milliseconds)
        #expect(written["updated"]?.stringValue == expected)
    }

    /// `Schemas/couch-contact.schema.json` accepts what the client writes, tombstones included,
    /// and still refuses a live document without its text or hash and a tombstone carrying a card.
    @Test func writtenDocumentsAndTombstonesFollowTheSchemaWhichStaysStrict() throws {
        try #require(SchemaValidator.isAvailable, "python3 with jsonschema is needed to check documents against the schema")
        let text = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:ada\r\nFN:Ada Lovelace\r\nEND:VCARD\r\n"
        let card = try VCardReader.read(Array(text.utf8), sourceName: "t").cards[0]
        let revision = "2-0123456789abcdef0123456789abcdef"
        let live = ContactDocument.document(uid: "ada", bytes: Array(text.utf8), card: card, hash: ContentHash(of: card),
                                            revision: revision, updated: 1_795_324_184_120, edited: 1_795_300_000_000)
        let tombstone = ContactDocument.tombstone(uid: "ada", revision: revision, updated: 1_795_324_184_120, edited: 1_795_324_184_000)
        func problems(_ document: JSONObject) throws -> [String] {
            try SchemaValidator.problems(validating: Data(JSONValue.object(document).serialized()), against: "couch-contact.schema.json")
        }
        #expect(try problems(live) == [])
        #expect(try problems(tombstone) == [])
        // A tombstone as a plain DELETE leaves it.
        #expect(try problems(["_id": "contact:ada", "_rev": .string(revision), "_deleted": true]) == [])
        var withoutHash = live
        withoutHash["hash"] = nil
        #expect(try !problems(withoutHash).isEmpty)
        var badDigest = live
        badDigest["vcardDigest"] = "F00"
        #expect(try !problems(badDigest).isEmpty)
        var notDeleted = tombstone
        notDeleted["_deleted"] = false
        #expect(try !problems(notDeleted).isEmpty)
        var carryingCard = tombstone
        carryingCard["vcard"] = .string(text)
        #expect(try !problems(carryingCard).isEmpty)
    }

    /// What a push sends, written straight to text, is the document's text: with and without a
    /// revision and an edit time, for a card with several e-mail addresses and phones, escapes and
    /// non-ASCII text.
    @Test(arguments: [(nil, nil), ("2-0123456789abcdef0123456789abcdef", 1_795_300_000_000)] as [(String?, Int64?)])
    func theSerializedDocumentIsTheDocumentsText(revision: String?, edited: Int64?) throws {
        let text = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:zoë\r\nFN:Zoë \"Z\" O\\'Neil\r\nEMAIL;TYPE=work:z@example.org\r\n"
            + "EMAIL:zoe@example.com\r\nTEL;TYPE=cell:+44 20 7946 0000\r\nTEL:+1 555 0100\r\nNOTE:line\\nbreak\r\nEND:VCARD\r\n"
        let card = try VCardReader.read(Array(text.utf8), sourceName: "t").cards[0]
        let hash = ContentHash(of: card)
        let object = ContactDocument.document(uid: "zoë", bytes: Array(text.utf8), card: card, hash: hash, revision: revision,
                                              updated: 1_795_324_184_120, edited: edited)
        let serialized = ContactDocument.serializedDocument(uid: "zoë", bytes: Array(text.utf8), card: card, hash: hash,
                                                            revision: revision, updated: 1_795_324_184_120, edited: edited)
        #expect(serialized.id == "contact:zoë")
        #expect(serialized.text == object.serialized())
        #expect(try JSONValue(parsing: serialized.text)["emails"] == ["z@example.org", "zoe@example.com"])
    }

    /// A card whose bytes are not well-formed UTF-8 is sent as the document sends it: repaired.
    @Test func aCardOfIllFormedUTF8IsSentRepairedAsTheDocumentHasIt() throws {
        let bytes = Array("BEGIN:VCARD\r\nVERSION:4.0\r\nUID:ada\r\nFN:Ada\r\nNOTE:caf".utf8) + [0xE9, 0xFF]
            + Array("\r\nEND:VCARD\r\n".utf8)
        let card = try VCardReader.read(bytes, sourceName: "t").cards[0]
        let hash = ContentHash(of: card)
        let object = ContactDocument.document(uid: "ada", bytes: bytes, card: card, hash: hash, revision: nil, updated: 0)
        let serialized = ContactDocument.serializedDocument(uid: "ada", bytes: bytes, card: card, hash: hash, revision: nil, updated: 0)
        #expect(serialized.text == object.serialized())
        #expect(try JSONValue(parsing: serialized.text)["vcard"]?.stringValue?.contains("caf\u{FFFD}\u{FFFD}") == true)
    }
}

