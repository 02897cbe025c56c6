import JSONText
import VCardKit

/// Why a journal line could not be read.
package struct JournalLineError: Error, Sendable {
    package var reason: String
    /// The line was written by a newer cardsync, rather than damaged.
    var isNewerFormat = false
}

/// The byte form of a ``JournalEvent``: one JSON object with sorted keys and no white space,
/// ended by a line feed.
///
/// `checksum` is the CRC-32 (zlib's) of the line without its own member: the compact, key-sorted
/// JSON of the other members, exactly as Python writes it with
/// `json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`.
package enum JournalLine {
    /// The line for `event`, with its line feed.
    package static func encode(_ event: JournalEvent) -> [UInt8] {
        encode(event, sequence: event.sequence, timestamp: event.timestamp, schemaVersion: event.schemaVersion, includingCard: true)
    }

    /// The line for `event` numbered `sequence`, at `timestamp`, in line format `schemaVersion`,
    /// and without its card text unless `includingCard`: the line of an event changed that way,
    /// without a copy of the event.
    package static func encode(_ event: JournalEvent, sequence: Int, timestamp: Int64, schemaVersion: Int,
                               includingCard: Bool) -> [UInt8] {
        let card = includingCard ? event.card : nil
        // One array, written in key order. The checksum's member sits between the members
        // before it (card, checkpoint) and the rest, and has a fixed length: its place is kept
        // and filled in at the end, so the rest is written where it belongs instead of into a
        // second array copied in after. Hashes and times are written as digits in place (no
        // String made for them; a number's or the checksum's String is small and made in place).
        var out: [UInt8] = [0x7B]
        out.reserveCapacity(384 + (card?.count ?? 0) * 11 / 10)
        if let card {
            // Escaped from its bytes when they are UTF-8 (no String is made of them).
            if card.withUnsafeBufferPointer({ $0.isValidUTF8 }) {
                append(#""card":""#, to: &out)
                card.withUnsafeBufferPointer { JSONWriter.writeEscaped($0, to: &out) }
                out.append(0x22)
            } else {
                appendMember("cardBase64", string: Base64.encode(card), to: &out)
            }
            out.append(0x2C)
        }
        if let checkpoint = event.checkpoint {
            appendMember("checkpoint", string: checkpoint, to: &out)
            out.append(0x2C)
        }
        let checksumAt = out.count
        out.append(contentsOf: checksumMember)
        let restAt = out.count
        if let duplicateOf = event.duplicateOf { appendMember("duplicateOf", string: duplicateOf, to: &out); out.append(0x2C) }
        if let edited = event.edited { appendMember("edited", milliseconds: edited, to: &out); out.append(0x2C) }
        let hasContact = event.operation != .checkpoint
        if hasContact {
            appendMember("file", string: event.file, to: &out)
            if event.isGeneratedUID { append(#","generatedUID":true"#, to: &out) }
            out.append(0x2C)
        }
        appendMember("hash", hash: event.hash, to: &out)
        if let name = event.name { out.append(0x2C); appendMember("name", string: name, to: &out) }
        out.append(0x2C)
        appendMember("op", string: event.operation.rawValue, to: &out)
        if let previousFile = event.previousFile { out.append(0x2C); appendMember("previousFile", string: previousFile, to: &out) }
        out.append(0x2C)
        appendMember("previousHash", hash: event.previousHash, to: &out)
        if let remote = event.remote { out.append(0x2C); appendMember("remote", string: remote, to: &out) }
        if let restored = event.restoredSequence { append(#","restoredSeq":"#, to: &out); appendDecimal(restored, to: &out) }
        if let revision = event.remoteRevision { out.append(0x2C); appendMember("rev", string: revision, to: &out) }
        append(#","schemaVersion":"#, to: &out)
        appendDecimal(schemaVersion, to: &out)
        append(#","seq":"#, to: &out)
        appendDecimal(sequence, to: &out)
        out.append(0x2C)
        appendMember("source", string: event.source.rawValue, to: &out)
        if let summary = event.summary { out.append(0x2C); appendMember("summary", string: summary, to: &out) }
        out.append(0x2C)
        appendMember("time", milliseconds: timestamp, to: &out)
        if hasContact {
            out.append(0x2C)
            appendMember("uid", string: event.uid, to: &out)
        }
        out.append(0x7D)
        let crc = out.withUnsafeBytes { line in
            CRC32.update(CRC32.update(0, UnsafeRawBufferPointer(rebasing: line[..<checksumAt])), UnsafeRawBufferPointer(rebasing: line[restAt...]))
        }
        let digits = checksumAt + checksumDigitsOffset
        out.withUnsafeMutableBufferPointer { CRC32.writeHex(crc, into: $0, at: digits) }
        out.append(0x0A)
        return out
    }

    /// `"checksum":"…",` with room for its eight digits, which start `checksumDigitsOffset` in.
    private static let checksumMember = Array(#""checksum":"00000000","#.utf8)
    private static let checksumDigitsOffset = 12

    private static func appendMember(_ key: StaticString, string value: String?, to out: inout [UInt8]) {
        appendKey(key, to: &out)
        guard let value else {
            append("null", to: &out)
            return
        }
        // JSONText writes strings as Python's json.dumps(..., ensure_ascii=False) does.
        JSONWriter.writeString(value, to: &out)
    }

    /// A content hash as its 64 lower-case hexadecimal digits, or `null`.
    private static func appendMember(_ key: StaticString, hash: ContentHash?, to out: inout [UInt8]) {
        appendKey(key, to: &out)
        guard let hash else {
            append("null", to: &out)
            return
        }
        out.append(0x22)
        hash.appendHexDigits(to: &out)
        out.append(0x22)
    }

    /// A time as `UTCTimestamp` spells it.
    private static func appendMember(_ key: StaticString, milliseconds: Int64, to out: inout [UInt8]) {
        appendKey(key, to: &out)
        out.append(0x22)
        UTCTimestamp.append(milliseconds: milliseconds, to: &out)
        out.append(0x22)
    }

    private static func appendKey(_ key: StaticString, to out: inout [UInt8]) {
        out.append(0x22)
        append(key, to: &out)
        out.append(0x22)
        out.append(0x3A)
    }

    /// Appends the UTF-8 of a literal straight from where the binary holds it (appending a
    /// String's `utf8` view costs a hundred-odd instructions a call, and a line makes twenty).
    private static func append(_ literal: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Appends `value` in decimal, as `String(value)` spells it, without making the String.
    private static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = 0x30 + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 { out.append(0x2D) }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// Reads one line held in an array (without its line feed) and checks its checksum.
    package static func decode(_ line: [UInt8], includingCard: Bool) throws(JournalLineError) -> JournalEvent {
        let result = line.withUnsafeBytes { raw -> Result<JournalEvent, JournalLineError> in
            do throws(JournalLineError) { return .success(try decode(raw, includingCard: includingCard)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Reads one line (without its line feed) and checks its checksum.
    /// - Parameter includingCard: decode the card's text (replay does not need it, and skips the work).
    static func decode(_ line: UnsafeRawBufferPointer, includingCard: Bool) throws(JournalLineError) -> JournalEvent {
        let object = try JournalMembers(line, includingCard: includingCard)
        guard let checksumMember = object.checksumRange, let checksumText = object.text("checksum")
        else { throw JournalLineError(reason: "the line has no checksum") }
        var crc = CRC32.update(0, UnsafeRawBufferPointer(rebasing: line[0..<checksumMember.lowerBound]))
        crc = CRC32.update(crc, UnsafeRawBufferPointer(rebasing: line[checksumMember.upperBound..<line.count]))
        guard CRC32.hex(crc) == checksumText else {
            throw JournalLineError(reason: "the checksum does not match the line's content (stored \(checksumText), computed \(CRC32.hex(crc)))")
        }
        guard let version = try object.integer("schemaVersion") else {
            throw JournalLineError(reason: "schemaVersion is missing")
        }
        guard version <= JournalEvent.currentSchemaVersion, version >= 1 else {
            throw JournalLineError(reason: "schemaVersion \(version) is newer than this cardsync understands (\(JournalEvent.currentSchemaVersion)); use a newer cardsync",
                                   isNewerFormat: true)
        }
        guard let sequence = try object.integer("seq"), sequence > 0 else { throw JournalLineError(reason: "seq is missing") }
        guard let op = object.text("op"), let source = object.text("source"), let time = object.text("time")
        else { throw JournalLineError(reason: "a required member (op, source, time) is missing") }
        let isCheckpoint = op == JournalEvent.Operation.checkpoint.rawValue
        guard let uid = object.text("uid") ?? (isCheckpoint ? "" : nil), let file = object.text("file") ?? (isCheckpoint ? "" : nil)
        else { throw JournalLineError(reason: "a required member (uid, file) is missing") }
        guard let timestamp = UTCTimestamp.parse(time.utf8) else { throw JournalLineError(reason: "time \"\(time)\" is not a UTC timestamp") }
        var event = JournalEvent(operation: .init(rawValue: op), uid: uid, file: file,
                                 hash: try object.hash("hash"), previousHash: try object.hash("previousHash"),
                                 source: .init(rawValue: source))
        event.sequence = sequence
        event.timestamp = timestamp
        event.schemaVersion = version
        event.name = object.text("name")
        event.previousFile = object.text("previousFile")
        event.duplicateOf = object.text("duplicateOf")
        event.remote = object.text("remote")
        event.remoteRevision = object.text("rev")
        event.checkpoint = object.text("checkpoint")
        event.summary = object.text("summary")
        if let edited = object.text("edited") {
            guard let milliseconds = UTCTimestamp.parse(edited.utf8) else { throw JournalLineError(reason: "edited \"\(edited)\" is not a UTC timestamp") }
            event.edited = milliseconds
        }
        if let restored = try object.integer("restoredSeq") { event.restoredSequence = restored }
        if object.value("generatedUID") == .bool(true) { event.isGeneratedUID = true }
        if includingCard {
            if let text = object.text("card") {
                event.card = Array(text.utf8)
            } else if let encoded = object.text("cardBase64") {
                guard let bytes = Base64.decode(encoded) else { throw JournalLineError(reason: "cardBase64 is not base64") }
                event.card = bytes
            }
        } else if object.has("card") || object.has("cardBase64") {
            event.card = []
        }
        return event
    }
}

/// The members of a journal line, read with JSONText's stream reader, and where the
/// `"checksum":"…",` member is. The card's text is passed over unread unless it is asked for.
struct JournalMembers {
    private var members: [JSONObject.Member] = []
    /// The bytes of the `"checksum":"…",` member, comma included.
    private(set) var checksumRange: Range<Int>?

    init(_ line: UnsafeRawBufferPointer, includingCard: Bool) throws(JournalLineError) {
        var reader = JSONStreamReader(options: JSONReadingOptions(maximumDepth: 16))
        reader.feed(line)
        reader.finish()
        do throws(JSONError) {
            guard try reader.next() == .startObject else {
                throw JSONError(.invalidJSON, "expected '{'", at: reader.eventPosition)
            }
            while case .key(let key)? = try reader.next() {
                let memberStart = reader.eventPosition.offset
                if !includingCard && (key == "card" || key == "cardBase64") {
                    _ = try reader.skipValue()
                    members.append(JSONObject.Member(key: key, value: .null))
                    continue
                }
                guard case .value(let value)? = try reader.nextValue() else {
                    throw JSONError(.invalidJSON, "expected a value", at: reader.position)
                }
                members.append(JSONObject.Member(key: key, value: value))
                if key == "checksum" {
                    // The member and the comma after it: the checksum is of the line without them.
                    var end = reader.position.offset
                    while end < line.count, line[end] == 0x20 || line[end] == 0x09 || line[end] == 0x0D { end += 1 }
                    checksumRange = end < line.count && line[end] == 0x2C ? memberStart..<end + 1 : nil
                }
            }
            guard try reader.next() == .endOfDocument else {
                throw JSONError(.invalidJSON, "text after the object", at: reader.eventPosition)
            }
        } catch {
            throw JournalLineError(reason: "not a JSON object: \(error.message) at byte \(error.position.offset + 1)")
        }
    }

    func value(_ key: String) -> JSONValue? {
        members.first { $0.key == key }?.value
    }

    func has(_ key: String) -> Bool { value(key) != nil }

    /// The value of a string member; `null`, another type or absent gives `nil`.
    func text(_ key: String) -> String? {
        value(key)?.stringValue
    }

    /// The value of an integer member; `nil` when absent or `null`.
    func integer(_ key: String) throws(JournalLineError) -> Int? {
        switch value(key) {
        case nil, .null?: return nil
        case .number(let text)?:
            guard let integer = Int(text) else { throw JournalLineError(reason: "\(key) is not an integer") }
            return integer
        default: throw JournalLineError(reason: "\(key) is not an integer")
        }
    }

    func hash(_ key: String) throws(JournalLineError) -> ContentHash? {
        switch value(key) {
        case nil, .null?: return nil
        case .string(let digits)?:
            guard let hash = ContentHash(hexDigits: digits) else { throw JournalLineError(reason: "\(key) is not 64 hexadecimal digits") }
            return hash
        default: throw JournalLineError(reason: "\(key) is not a string")
        }
    }
}
