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

    /// Every member the format has, set at once: the line is JSONText's sorted-key text of the
    /// same members plus the checksum, which is the CRC-32 of that text; it reads back the same.
    @Test func everyMemberIsWrittenInSortedPlaceWithTheChecksumOfTheRest() throws {
        var event = JournalEvent(operation: .update, uid: "u/1 \"é\"", file: "u1.vcf", hash: ContentHash(hexDigits: String(repeating: "0f", count: 32)),
                                 previousHash: ContentHash(hexDigits: String(repeating: "e1", count: 32)), source: .remote, name: "Zoë",
                                 card: Array("BEGIN:VCARD\r\nEND:VCARD\r\n".utf8), isGeneratedUID: true, previousFile: "old.vcf",
                                 restoredSequence: 1_234_567_890_123, duplicateOf: "kept")
        event.sequence = 9_007_199_254_740_993
        event.timestamp = 253_402_300_799_999  // 9999-12-31T23:59:59.999Z
        event.edited = -62_135_596_800_000  // 0001-01-01T00:00:00.000Z
        event.remote = "http://127.0.0.1:5984/contacts"
        event.remoteRevision = "3-abc"
        event.checkpoint = "42-g1AAAA"
        event.summary = "pulled 1"
        let line = JournalLine.encode(event)
        #expect(line.last == 0x0A)
        let text = Array(line.dropLast())
        guard case .object(var members) = try JSONValue(parsing: text) else { Issue.record("not an object"); return }
        let checksum = try #require(members["checksum"]?.stringValue)
        members["checksum"] = nil
        let rest = JSONWriter(sortsKeys: true).bytes(for: .object(members))
        #expect(checksum == String(CRC32.checksum(rest), radix: 16).leftPadded(to: 8))
        var withChecksum = members
        withChecksum["checksum"] = .string(checksum)
        #expect(JSONWriter(sortsKeys: true).bytes(for: .object(withChecksum)) == text)
        #expect(members["time"]?.stringValue == "9999-12-31T23:59:59.999Z" && members["edited"]?.stringValue == "0001-01-01T00:00:00.000Z")
        #expect(members["seq"]?.intValue == 9_007_199_254_740_993 && members["restoredSeq"]?.intValue == 1_234_567_890_123)
        #expect(try JournalLine.decode(text, includingCard: true) == event)
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

    /// Where the processor multiplies without carries, runs of 64 bytes and more are folded;
    /// the result is the tables' at every length up to 700, at every alignment within 16 bytes,
    /// and when a checksum is continued from a split anywhere; and zlib's for long inputs.
    @Test(.enabled(if: CRC32.foldingAvailable, "this processor cannot fold (no PCLMULQDQ): the tables do all the work"))
    func foldsAsTheTablesDo() {
        let bytes = (0..<720).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }
        var mismatches: [String] = []
        bytes.withUnsafeBytes { all in
            for start in 0..<16 {
                for length in 0...700 {
                    let part = UnsafeRawBufferPointer(rebasing: all[start..<(start + length)])
                    if CRC32.update(0, part, folding: true) != CRC32.update(0, part, folding: false) {
                        mismatches.append("\(start)+\(length)")
                    }
                    // The folding did the work: all of it but the last 0–15 bytes.
                    if CRC32.fold(0xFFFF_FFFF, part).consumed != (length < 64 ? 0 : length / 16 * 16) {
                        mismatches.append("\(start)+\(length) consumed \(CRC32.fold(0xFFFF_FFFF, part).consumed)")
                    }
                }
            }
            let whole = UnsafeRawBufferPointer(rebasing: all[0..<700])
            let expected = CRC32.update(0, whole, folding: false)
            for split in 0...700 {
                let first = CRC32.update(0, UnsafeRawBufferPointer(rebasing: whole[0..<split]), folding: true)
                if CRC32.update(first, UnsafeRawBufferPointer(rebasing: whole[split...]), folding: true) != expected {
                    mismatches.append("split at \(split)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) differ, first: \(mismatches.prefix(5))")
        // zlib.crc32 in Python.
        let counting = (0..<1024).map { UInt8(truncatingIfNeeded: $0) }
        #expect(counting.withUnsafeBytes { CRC32.update(0, $0, folding: true) } == 0xB70B_4C26)
        #expect([UInt8](repeating: 0x61, count: 100_000).withUnsafeBytes { CRC32.update(0, $0, folding: true) } == 0x1BE2_FA87)
    }

    @Test func refusesALineWhoseContentChanged() {
        let changed = Self.pythonLine.replacingOccurrences(of: "\"seq\":7", with: "\"seq\":8")
        #expect(throws: JournalLineError.self) { try JournalLine.decode(Array(changed.utf8), includingCard: false) }
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
