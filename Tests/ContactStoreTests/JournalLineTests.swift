@testable import ContactStore
import Foundation
import JSONText
import Testing
import VCardKit

/// The journal's line format is compact JSON with sorted keys, byte for byte what Python's
/// `json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False)` writes, so
/// books written by any earlier cardsync read the same.
struct JournalLineTests {
    static func event() -> JournalEvent {
        var event = JournalEvent(operation: .add, uid: "ada", file: "ada.vcf", hash: ContentHash(hexDigits: String(repeating: "ab", count: 32)),
                                 previousHash: nil, source: .import, name: "Ada \"Lovelace\"\tÜ\u{08}é",
                                 card: Array("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Ada \"Lovelace\"\tÜ\u{08}é\r\nEND:VCARD\r\n".utf8))
        event.sequence = 7
        event.timestamp = 1_764_063_000_123
        return event
    }

    /// Written by Python from the same event (the checksum is zlib's CRC-32 of the line without it).
    static let pythonLine = #"{"card":"BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Ada \"Lovelace\"\tÜ\bé\r\nEND:VCARD\r\n","checksum":"1b77463c","file":"ada.vcf","hash":"abababababababababababababababababababababababababababababababab","name":"Ada \"Lovelace\"\tÜ\bé","op":"add","previousHash":null,"schemaVersion":1,"seq":7,"source":"import","time":"2025-11-25T09:30:00.123Z","uid":"ada"}"#

    @Test func encodesAnEventAsPythonWritesIt() {
        #expect(String(decoding: JournalLine.encode(Self.event()), as: UTF8.self) == Self.pythonLine + "\n")
    }

    @Test func decodesTheLineBackWithAndWithoutTheCard() throws {
        let line = Array(Self.pythonLine.utf8)
        #expect(try JournalLine.decode(line, includingCard: true) == Self.event())
        var withoutCard = Self.event()
        withoutCard.card = []
        #expect(try JournalLine.decode(line, includingCard: false) == withoutCard)
    }

    @Test func theLineIsWhatJSONTextWritesWithSortedKeys() throws {
        let line = Array(Self.pythonLine.utf8)
        #expect(JSONWriter(sortsKeys: true).bytes(for: try JSONValue(parsing: line)) == line)
    }

    @Test func aCheckpointKeepsTheSyncsSummaryInSortedPlace() throws {
        var event = JournalEvent.checkpoint(remote: "http://127.0.0.1:5984/contacts", position: "12",
                                            summary: "pulled 1 added, 0 updated, 0 deleted; pushed 0 added, 2 updated, 0 deleted; 0 conflicts, 0 errors")
        event.sequence = 9
        event.timestamp = 1_764_063_000_123
        let line = JournalLine.encode(event)
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.contains(#""source":"remote","summary":"pulled 1 added, 0 updated, 0 deleted; pushed 0 added, 2 updated, 0 deleted; 0 conflicts, 0 errors","time":"#))
        #expect(JSONWriter(sortsKeys: true).bytes(for: try JSONValue(parsing: Array(line.dropLast()))) == Array(line.dropLast()))
        #expect(try JournalLine.decode(Array(line.dropLast()), includingCard: true) == event)
    }

    @Test(arguments: [
        (#"{"checksum":"00000000","op":"add"}"#, "the checksum does not match"),
        (#"{"op":"add","checksum":"00000000"}"#, "the line has no checksum"),
        (#"{"op":"add","#, "not a JSON object"),
        (#"["op"]"#, "not a JSON object"),
    ])
    func refusesADamagedLine(text: String, reason: String) {
        #expect {
            try JournalLine.decode(Array(text.utf8), includingCard: true)
        } throws: { error in
            (error as? JournalLineError)?.reason.hasPrefix(reason) ?? false
        }
    }

    /// zlib's CRC-32, eight bytes at a time, at every length and alignment.
    @Test func checksumsAsZlibDoes() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }
        for start in 0..<9 {
            for end in stride(from: start, through: bytes.count, by: 7) {
                var bitwise: UInt32 = 0xFFFF_FFFF
                for byte in bytes[start..<end] {
                    bitwise ^= UInt32(byte)
                    for _ in 0..<8 { bitwise = bitwise & 1 == 1 ? 0xEDB8_8320 ^ (bitwise >> 1) : bitwise >> 1 }
                }
                #expect(CRC32.checksum(bytes[start..<end]) == ~bitwise, "\(start)..<\(end)")
            }
        }
    }

    @Test func refusesALineWhoseContentChanged() {
        let changed = Self.pythonLine.replacingOccurrences(of: "\"seq\":7", with: "\"seq\":8")
        #expect(throws: JournalLineError.self) { try JournalLine.decode(Array(changed.utf8), includingCard: false) }
    }
}
