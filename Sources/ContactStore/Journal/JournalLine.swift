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
        var head: [UInt8] = [0x7B]
        head.reserveCapacity(256 + (event.card?.count ?? 0) * 11 / 10)
        if let card = event.card {
            if let text = String(validating: card, as: UTF8.self) {
                appendMember("card", string: text, to: &head)
            } else {
                appendMember("cardBase64", string: Base64.encode(card), to: &head)
            }
            head.append(0x2C)
        }
        if let checkpoint = event.checkpoint {
            appendMember("checkpoint", string: checkpoint, to: &head)
            head.append(0x2C)
        }
        var tail: [UInt8] = []
        tail.reserveCapacity(320)
        if let duplicateOf = event.duplicateOf { appendMember("duplicateOf", string: duplicateOf, to: &tail); tail.append(0x2C) }
        if let edited = event.edited { appendMember("edited", string: Timestamp.format(milliseconds: edited), to: &tail); tail.append(0x2C) }
        let hasContact = event.operation != .checkpoint
        if hasContact {
            appendMember("file", string: event.file, to: &tail)
            if event.isGeneratedUID { tail.append(contentsOf: #","generatedUID":true"#.utf8) }
            tail.append(0x2C)
        }
        appendMember("hash", string: event.hash?.hexDigits, to: &tail)
        if let name = event.name { tail.append(0x2C); appendMember("name", string: name, to: &tail) }
        tail.append(0x2C)
        appendMember("op", string: event.operation.rawValue, to: &tail)
        if let previousFile = event.previousFile { tail.append(0x2C); appendMember("previousFile", string: previousFile, to: &tail) }
        tail.append(0x2C)
        appendMember("previousHash", string: event.previousHash?.hexDigits, to: &tail)
        if let remote = event.remote { tail.append(0x2C); appendMember("remote", string: remote, to: &tail) }
        if let restored = event.restoredSequence { tail.append(contentsOf: ",\"restoredSeq\":\(restored)".utf8) }
        if let revision = event.remoteRevision { tail.append(0x2C); appendMember("rev", string: revision, to: &tail) }
        tail.append(contentsOf: ",\"schemaVersion\":\(event.schemaVersion),\"seq\":\(event.sequence),".utf8)
        appendMember("source", string: event.source.rawValue, to: &tail)
        tail.append(0x2C)
        appendMember("time", string: event.time, to: &tail)
        if hasContact {
            tail.append(0x2C)
            appendMember("uid", string: event.uid, to: &tail)
        }
        tail.append(0x7D)
        var crc = head.withUnsafeBytes { CRC32.update(0, $0) }
        crc = tail.withUnsafeBytes { CRC32.update(crc, $0) }
        head.append(contentsOf: "\"checksum\":\"\(CRC32.hex(crc))\",".utf8)
        head.append(contentsOf: tail)
        head.append(0x0A)
        return head
    }

    private static func appendMember(_ key: String, string value: String?, to out: inout [UInt8]) {
        out.append(0x22)
        out.append(contentsOf: key.utf8)
        out.append(contentsOf: "\":".utf8)
        guard let value else {
            out.append(contentsOf: "null".utf8)
            return
        }
        appendString(value, to: &out)
    }

    /// A JSON string as Python's `json.dumps(..., ensure_ascii=False)` spells it.
    static func appendString(_ value: String, to out: inout [UInt8]) {
        out.append(0x22)
        let hex = Array("0123456789abcdef".utf8)
        for byte in value.utf8 {
            switch byte {
            case 0x22: out.append(0x5C); out.append(0x22)
            case 0x5C: out.append(0x5C); out.append(0x5C)
            case 0x0A: out.append(0x5C); out.append(0x6E)
            case 0x0D: out.append(0x5C); out.append(0x72)
            case 0x09: out.append(0x5C); out.append(0x74)
            case 0x08: out.append(0x5C); out.append(0x62)
            case 0x0C: out.append(0x5C); out.append(0x66)
            case 0..<0x20:
                out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(0x22)
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
        let object = try FlatJSONObject(line)
        guard let checksumMember = object.checksumRange, let checksumText = object.text("checksum")
        else { throw JournalLineError(reason: "the line has no checksum") }
        var crc = CRC32.update(0, UnsafeRawBufferPointer(rebasing: line[0..<checksumMember.lowerBound]))
        crc = CRC32.update(crc, UnsafeRawBufferPointer(rebasing: line[checksumMember.upperBound..<line.count]))
        guard CRC32.hex(crc) == checksumText else {
            throw JournalLineError(reason: "the checksum does not match the line's content (stored \(checksumText), computed \(CRC32.hex(crc)))")
        }
        guard case .integer(let version)? = object.value("schemaVersion") else {
            throw JournalLineError(reason: "schemaVersion is missing")
        }
        guard version <= JournalEvent.currentSchemaVersion, version >= 1 else {
            throw JournalLineError(reason: "schemaVersion \(version) is newer than this cardsync understands (\(JournalEvent.currentSchemaVersion)); use a newer cardsync",
                                   isNewerFormat: true)
        }
        guard case .integer(let sequence)? = object.value("seq"), sequence > 0 else { throw JournalLineError(reason: "seq is missing") }
        guard let op = object.text("op"), let source = object.text("source"), let time = object.text("time")
        else { throw JournalLineError(reason: "a required member (op, source, time) is missing") }
        let isCheckpoint = op == JournalEvent.Operation.checkpoint.rawValue
        guard let uid = object.text("uid") ?? (isCheckpoint ? "" : nil), let file = object.text("file") ?? (isCheckpoint ? "" : nil)
        else { throw JournalLineError(reason: "a required member (uid, file) is missing") }
        guard let timestamp = Timestamp.parse(time.utf8) else { throw JournalLineError(reason: "time \"\(time)\" is not a UTC timestamp") }
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
        if let edited = object.text("edited") {
            guard let milliseconds = Timestamp.parse(edited.utf8) else { throw JournalLineError(reason: "edited \"\(edited)\" is not a UTC timestamp") }
            event.edited = milliseconds
        }
        if case .integer(let restored)? = object.value("restoredSeq") { event.restoredSequence = restored }
        if case .boolean(true)? = object.value("generatedUID") { event.isGeneratedUID = true }
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

/// A JSON object whose values are strings, integers, booleans or null: all a journal line holds.
/// Strings are decoded only when asked for.
struct FlatJSONObject {
    enum Value {
        case string(String)
        case rawString(Range<Int>, escaped: Bool)
        case integer(Int)
        case boolean(Bool)
        case null
    }

    private let bytes: UnsafeRawBufferPointer
    private var members: [(key: String, value: Value)] = []
    /// The bytes of the `"checksum":"…",` member, comma included.
    private(set) var checksumRange: Range<Int>?

    init(_ bytes: UnsafeRawBufferPointer) throws(JournalLineError) {
        self.bytes = bytes
        var index = 0
        let count = bytes.count
        func skipSpace() { while index < count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0D { index += 1 } }
        func fail(_ what: String) -> JournalLineError { JournalLineError(reason: "not a JSON object: \(what) at byte \(index + 1)") }
        func scanString() throws(JournalLineError) -> (Range<Int>, Bool) {
            guard index < count, bytes[index] == 0x22 else { throw fail("expected '\"'") }
            index += 1
            let start = index
            var escaped = false
            while index < count {
                let byte = bytes[index]
                if byte == 0x22 { let range = start..<index; index += 1; return (range, escaped) }
                if byte == 0x5C { escaped = true; index += 2; continue }
                if byte < 0x20 { throw fail("control character in a string") }
                index += 1
            }
            throw fail("unterminated string")
        }
        skipSpace()
        guard index < count, bytes[index] == 0x7B else { throw fail("expected '{'") }
        index += 1
        skipSpace()
        if index < count, bytes[index] == 0x7D { index += 1 } else {
            while true {
                skipSpace()
                let memberStart = index
                let (keyRange, keyEscaped) = try scanString()
                let key = keyEscaped ? try Self.unescape(bytes, keyRange) : String(decoding: UnsafeRawBufferPointer(rebasing: bytes[keyRange]), as: UTF8.self)
                skipSpace()
                guard index < count, bytes[index] == 0x3A else { throw fail("expected ':'") }
                index += 1
                skipSpace()
                guard index < count else { throw fail("missing value") }
                let value: Value
                switch bytes[index] {
                case 0x22:
                    let (range, escaped) = try scanString()
                    value = .rawString(range, escaped: escaped)
                case 0x2D, 0x30...0x39:
                    var number = 0
                    var negative = false
                    if bytes[index] == 0x2D { negative = true; index += 1 }
                    let digitsStart = index
                    while index < count, bytes[index] >= 0x30 && bytes[index] <= 0x39 {
                        let (product, overflow) = number.multipliedReportingOverflow(by: 10)
                        guard !overflow else { throw fail("number too large") }
                        number = product + Int(bytes[index] - 0x30)
                        index += 1
                    }
                    guard index > digitsStart else { throw fail("expected a digit") }
                    if index < count, bytes[index] == 0x2E || bytes[index] == 0x65 || bytes[index] == 0x45 { throw fail("expected an integer") }
                    value = .integer(negative ? -number : number)
                case 0x74 where Self.matches(bytes, index, "true"): index += 4; value = .boolean(true)
                case 0x66 where Self.matches(bytes, index, "false"): index += 5; value = .boolean(false)
                case 0x6E where Self.matches(bytes, index, "null"): index += 4; value = .null
                default: throw fail("unexpected character")
                }
                members.append((key, value))
                skipSpace()
                guard index < count else { throw fail("unterminated object") }
                if bytes[index] == 0x2C {
                    index += 1
                    if key == "checksum" { checksumRange = memberStart..<index }
                    continue
                }
                if bytes[index] == 0x7D { index += 1; break }
                throw fail("expected ',' or '}'")
            }
        }
        skipSpace()
        guard index == count else { throw fail("text after the object") }
    }

    private static func matches(_ bytes: UnsafeRawBufferPointer, _ index: Int, _ word: String) -> Bool {
        let utf8 = Array(word.utf8)
        guard index + utf8.count <= bytes.count else { return false }
        for offset in 0..<utf8.count where bytes[index + offset] != utf8[offset] { return false }
        return true
    }

    func value(_ key: String) -> Value? {
        members.first { $0.key == key }?.value
    }

    func has(_ key: String) -> Bool { value(key) != nil }

    /// The value of a string member, decoded; `.null` or absent gives `nil`.
    func text(_ key: String) -> String? {
        switch value(key) {
        case .rawString(let range, let escaped)?:
            if !escaped { return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
            return try? Self.unescape(bytes, range)
        case .string(let text)?: return text
        default: return nil
        }
    }

    func hash(_ key: String) throws(JournalLineError) -> ContentHash? {
        switch value(key) {
        case nil, .null?: return nil
        case .rawString(let range, _)?:
            guard let hash = ContentHash(hexDigits: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self))
            else { throw JournalLineError(reason: "\(key) is not 64 hexadecimal digits") }
            return hash
        default: throw JournalLineError(reason: "\(key) is not a string")
        }
    }

    static func unescape(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) throws(JournalLineError) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(range.count)
        var index = range.lowerBound
        func hex4(_ at: Int) throws(JournalLineError) -> UInt32 {
            guard at + 4 <= range.upperBound else { throw JournalLineError(reason: "truncated \\u escape") }
            var value: UInt32 = 0
            for offset in 0..<4 {
                let byte = bytes[at + offset]
                let digit: UInt32
                switch byte {
                case 0x30...0x39: digit = UInt32(byte - 0x30)
                case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
                case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
                default: throw JournalLineError(reason: "bad \\u escape")
                }
                value = value << 4 | digit
            }
            return value
        }
        while index < range.upperBound {
            let byte = bytes[index]
            guard byte == 0x5C else { out.append(byte); index += 1; continue }
            guard index + 1 < range.upperBound else { throw JournalLineError(reason: "truncated escape") }
            let escape = bytes[index + 1]
            index += 2
            switch escape {
            case 0x22: out.append(0x22)
            case 0x5C: out.append(0x5C)
            case 0x2F: out.append(0x2F)
            case 0x6E: out.append(0x0A)
            case 0x72: out.append(0x0D)
            case 0x74: out.append(0x09)
            case 0x62: out.append(0x08)
            case 0x66: out.append(0x0C)
            case 0x75:
                var scalar = try hex4(index)
                index += 4
                if (0xD800..<0xDC00).contains(scalar), index + 6 <= range.upperBound, bytes[index] == 0x5C, bytes[index + 1] == 0x75 {
                    let low = try hex4(index + 2)
                    if (0xDC00..<0xE000).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        index += 6
                    }
                }
                out.append(contentsOf: String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8)
            default: throw JournalLineError(reason: "unknown escape")
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
