import ContactStore
import CouchServer
import JSONText
import VCardKit
import VCardXML

/// The readers cardsync fuzzes, each with the invariants its fuzz target checks on every input.
///
/// Beyond "no crash", each target checks that what it read writes out and reads back the same
/// (the writer's output is a fixed point: write → read → write gives the same bytes) and that
/// the number of cards or values survives. Memory per input is bounded by libFuzzer's
/// `-malloc_limit_mb`/`-rss_limit_mb` (see `.ci/fuzz.sh`).
public enum FuzzTarget: String, Sendable, CaseIterable {
    /// The vCard text reader (2.1, 3.0, 4.0) and writer.
    case vcard
    /// The jCard (RFC 7095) reader and writer.
    case jcard
    /// The xCard (RFC 6351) reader over libxml2 and the writer.
    case xcard
    /// One journal line: decode (with its checksum), encode, decode.
    case journal
    /// Any JSON text (JSONText): parse, write, parse; the sorted-keys writer; and the stream
    /// reader, fed in small chunks, reads what the parser reads or fails where it fails; the
    /// validator accepts what the parser accepts and refuses the rest with the same error.
    case json
    /// A document body as `cardsync serve` receives it: JSON parse, serialize, the document
    /// rules (`_id`, `_rev`, `_deleted`, `_revisions`, reserved members) and the size check.
    case couchBody = "couch-body"

    /// Runs one input through the target.
    ///
    /// - Throws: ``FuzzFailure`` when an invariant does not hold (rejecting the input as
    ///   malformed is not a failure).
    public func check(_ input: [UInt8]) throws(FuzzFailure) {
        switch self {
        case .vcard: try Self.checkVCard(input)
        case .jcard: try Self.checkJCard(input)
        case .xcard: try Self.checkXCard(input)
        case .journal: try Self.checkJournal(input)
        case .json: try Self.checkJSON(input)
        case .couchBody: try Self.checkCouchBody(input)
        }
    }

    private static func checkVCard(_ input: [UInt8]) throws(FuzzFailure) {
        guard let first = try? VCardReader.read(input) else { return }
        let writer = VCardWriter()
        let written = writer.bytes(for: first.cards)
        guard let second = try? VCardReader.read(written) else { throw FuzzFailure("the written text cannot be read") }
        try expect(second.cards.count == first.cards.count,
                   "read \(first.cards.count) cards, wrote them, read back \(second.cards.count)")
        let rewritten = writer.bytes(for: second.cards)
        try expect(rewritten == written, "write → read → write changed the bytes", written, rewritten)
        try checkPlainCardReader(input, fullRead: first.cards)
        try checkDeferredCards(input, fullRead: first)
    }

    /// Cards read with their properties deferred are the cards read without: the same
    /// diagnostics, the same properties with the same original bytes, the same text written back
    /// and written in 3.0 and 4.0.
    private static func checkDeferredCards(_ input: [UInt8], fullRead first: VCardReadResult) throws(FuzzFailure) {
        var options = VCardReadOptions.lenient
        options.deferredVersions = [.v3_0, .v4_0]
        guard let deferred = try? VCardReader.read(input, options: options) else {
            throw FuzzFailure("the input can be read, but not with deferred cards")
        }
        try expect(deferred.diagnostics == first.diagnostics, "deferring cards changed the diagnostics",
                   Array(deferred.diagnostics.description.utf8), Array(first.diagnostics.description.utf8))
        try expect(deferred.cards.count == first.cards.count, "deferring cards changed how many were read")
        for (card, reference) in zip(deferred.cards, first.cards) {
            // Before the properties are built: the content hash and the UID and FN from the lines alone.
            let canonical = ContentHash.canonicalText(of: card), expectedCanonical = ContentHash.canonicalText(of: reference)
            try expect(canonical == expectedCanonical, "a deferred card's canonical text differs",
                       Array(canonical.utf8), Array(expectedCanonical.utf8))
            try expect(ContentHash(of: card) == ContentHash(of: reference), "a deferred card's content hash differs")
            try expect(card.first("UID") == reference.first("UID") && card.first("FN") == reference.first("FN"),
                       "a deferred card's first UID or FN differs")
            try expect(card.properties == reference.properties && card.properties.map(\.original) == reference.properties.map(\.original)
                       && card.isUnedited == reference.isUnedited,
                       "a deferred card differs from the card built right away")
        }
        let writer = VCardWriter()
        try expect(writer.bytes(for: deferred) == writer.bytes(for: first), "a file of deferred cards is written back differently")
        // Converted, a deferred card copies the lines conversion leaves alone: the same text and notes.
        for target in [VCardVersion.v3_0, .v4_0] {
            let converter = VCardWriter(target: target)
            for (card, reference) in zip(deferred.cards, first.cards) {
                var written: [UInt8] = [], expected: [UInt8] = []
                let notes = converter.write(card, into: &written)
                let expectedNotes = converter.write(reference, into: &expected)
                try expect(written == expected, "a deferred card is written as \(target.rawValue) differently", written, expected)
                try expect(notes == expectedNotes, "a deferred card written as \(target.rawValue) gives other notes",
                           Array(notes.description.utf8), Array(expectedNotes.description.utf8))
            }
        }
    }

    /// The fast reader of plain cards gives what the full reader gives, or leaves the card to it.
    private static func checkPlainCardReader(_ input: [UInt8], fullRead cards: [VCard]) throws(FuzzFailure) {
        let selected: Set<String> = ["FN", "N", "EMAIL", "TEL"]
        for names in [nil, selected] {
            guard let plain = PlainCardReader.read(input[...], sourceName: "<input>", selecting: names) else { continue }
            try expect(cards.count == 1, "the plain reader read a card where the full reader read \(cards.count)")
            let expected = cards[0].properties.filter { names == nil || $0.hasName("VERSION") || names!.contains($0.name.uppercased()) }
            try expect(plain.properties == expected && plain.properties.map(\.original) == expected.map(\.original),
                       "the plain reader read the card differently (selecting \(names.map { $0.sorted().joined(separator: ",") } ?? "all"))")
        }
    }

    private static func checkJCard(_ input: [UInt8]) throws(FuzzFailure) {
        guard let first = try? JCardReader.read(input), !first.cards.isEmpty else { return }
        let writer = JCardWriter(unwrapsSingleCard: false)
        let written = writer.bytes(for: first.cards)
        guard let second = try? JCardReader.read(written) else { throw FuzzFailure("the written jCard cannot be read") }
        try expect(second.cards.count == first.cards.count,
                   "read \(first.cards.count) cards, wrote them, read back \(second.cards.count)")
        let rewritten = writer.bytes(for: second.cards)
        try expect(rewritten == written, "write → read → write changed the bytes", written, rewritten)
    }

    private static func checkXCard(_ input: [UInt8]) throws(FuzzFailure) {
        guard let first = try? XCardReader.read(input), !first.cards.isEmpty else { return }
        let writer = XCardWriter(indents: false)
        let written = writer.bytes(for: first.cards)
        guard let second = try? XCardReader.read(written) else { throw FuzzFailure("the written xCard cannot be read") }
        try expect(second.cards.count == first.cards.count,
                   "read \(first.cards.count) cards, wrote them, read back \(second.cards.count)")
        let rewritten = writer.bytes(for: second.cards)
        try expect(rewritten == written, "write → read → write changed the bytes", written, rewritten)
    }

    private static func checkJournal(_ input: [UInt8]) throws(FuzzFailure) {
        var line = input
        if line.last == 0x0A { line.removeLast() }
        guard let event = try? JournalLine.decode(line, includingCard: true) else { return }
        let encoded = JournalLine.encode(event)
        try expect(encoded.last == 0x0A && !encoded.dropLast().contains(0x0A), "an encoded line holds a line feed")
        let decoded: JournalEvent
        do {
            decoded = try JournalLine.decode(Array(encoded.dropLast()), includingCard: true)
        } catch {
            throw FuzzFailure("the encoded line cannot be decoded: \(error.reason)")
        }
        try expect(decoded == event, "decode → encode → decode changed the event")
        try expect(JournalLine.encode(decoded) == encoded, "encode is not stable", encoded, JournalLine.encode(decoded))
    }

    private static func checkJSON(_ input: [UInt8]) throws(FuzzFailure) {
        let options = JSONReadingOptions(maximumDepth: 64, allowsByteOrderMark: true)
        let parsed: Result<JSONValue, JSONError>
        do throws(JSONError) { parsed = .success(try JSONValue(parsing: input, options: options)) } catch { parsed = .failure(error) }
        let chunkSize = 1 + (input.first.map(Int.init) ?? 0) % 7
        let streamed = streamWholeValue(input, options: options, chunkSize: chunkSize)
        switch (parsed, streamed) {
        case (.success(let value), .success(let other)):
            try expect(value == other, "the stream reader read another value than the parser (chunks of \(chunkSize))")
        case (.failure(let error), .failure(let other)):
            try expect(error == other, "the stream reader failed otherwise than the parser: \(error) / \(other)")
        default:
            throw FuzzFailure("the parser and the stream reader disagree (chunks of \(chunkSize)): \(parsed) / \(streamed)")
        }
        // The validator accepts exactly what the parser accepts, and refuses with the same error.
        let validated: JSONError? = input.withUnsafeBufferPointer { buffer in
            do throws(JSONError) { try JSONParser.validate(buffer, options: options); return nil } catch { return error }
        }
        switch parsed {
        case .success: try expect(validated == nil, "the validator refused what the parser read: \(validated.map(String.init(describing:)) ?? "")")
        case .failure(let error): try expect(validated == error, "the validator answered otherwise than the parser: \(error) / \(validated.map(String.init(describing:)) ?? "accepted")")
        }
        guard case .success(let value) = parsed else { return }
        let written = value.serialized()
        guard let reparsed = try? JSONValue(parsing: written) else { throw FuzzFailure("written JSON cannot be parsed again") }
        try expect(reparsed == value, "parse → write → parse changed the value")
        try expect(reparsed.serialized() == written, "write is not stable", written, reparsed.serialized())
        let sorted = JSONWriter(sortsKeys: true).bytes(for: value)
        guard let sortedValue = try? JSONValue(parsing: sorted) else { throw FuzzFailure("sorted JSON cannot be parsed again") }
        try expect(JSONWriter(sortsKeys: true).bytes(for: sortedValue) == sorted, "the sorted writer is not stable", sorted,
                   JSONWriter(sortsKeys: true).bytes(for: sortedValue))
    }

    /// The document as the stream reader reads it: the top level with `nextValue()`, fed in chunks.
    private static func streamWholeValue(_ input: [UInt8], options: JSONReadingOptions, chunkSize: Int) -> Result<JSONValue, JSONError> {
        var reader = JSONStreamReader(options: options)
        var value: JSONValue?
        var offset = 0
        func nextChunk() -> ArraySlice<UInt8>? {
            guard offset < input.count else { return nil }
            defer { offset += chunkSize }
            return input[offset..<min(offset + chunkSize, input.count)]
        }
        do throws(JSONError) {
            while true {
                let event = try reader.nextValue(feeding: nextChunk)
                switch event {
                case .value(let whole): value = whole
                case .endOfDocument: return .success(value ?? .null)
                default: return .failure(JSONError(.invalidJSON, "unexpected event \(event)", at: reader.eventPosition))
                }
            }
        } catch {
            return .failure(error)
        }
    }

    private static func checkCouchBody(_ input: [UInt8]) throws(FuzzFailure) {
        guard let value = try? JSONValue(parsing: input) else { return }
        let serialized = value.serialized()
        guard let reparsed = try? JSONValue(parsing: serialized) else {
            throw FuzzFailure("serialized JSON cannot be parsed again")
        }
        try expect(reparsed == value, "parse → serialize → parse changed the value")
        try expect(reparsed.serialized() == serialized, "serialize is not stable", serialized, reparsed.serialized())
        guard case .object(let object) = value, let parsed = try? DocumentRequestBody.parse(object) else { return }
        let id = parsed.id ?? "fuzz-document"
        for newEdits in [true, false] {
            guard let edit = try? DocumentRequestBody.edit(parsed, id: id, newEdits: newEdits, maximumSize: 8_000_000) else { continue }
            try expect(edit.body.serialized().count <= 8_000_000, "an edit over the size limit was accepted")
        }
    }

    private static func expect(_ condition: Bool, _ message: String, _ before: [UInt8]? = nil,
                               _ after: [UInt8]? = nil) throws(FuzzFailure) {
        guard !condition else { return }
        var text = message
        if let before, let after {
            text += "\n--- first\n" + String(decoding: before.prefix(2000), as: UTF8.self)
            text += "\n--- second\n" + String(decoding: after.prefix(2000), as: UTF8.self)
        }
        throw FuzzFailure(text)
    }
}

/// An invariant a fuzz target checks did not hold.
public struct FuzzFailure: Error, Sendable, CustomStringConvertible {
    /// What did not hold, with the bytes that differ when there are any.
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
