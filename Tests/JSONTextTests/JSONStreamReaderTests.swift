import Foundation
import JSONText
import Testing
import TestSupport

/// The incremental reader: the parser's values and errors in any chunk size, events in order,
/// and memory bounded by the largest value rather than the document.
@Suite struct JSONStreamReaderTests {
    /// Documents, valid and broken.
    static let documents: [String] = [
        #"{"results":[{"seq":1,"id":"a","changes":[{"rev":"1-x"}]},{"seq":2,"id":"b","deleted":true}],"last_seq":"2-g","pending":0}"#,
        "[\n  [\"vcard\",[[\"fn\",{},\"text\",\"Ä\"]]],\n  [\"vcard\",[]]\n]\n",
        #"  "a string"  "#, "-12.5e3", "true", "null", "[]", "{}", #"{"a":{"b":{"c":[1,[2,[3]]]}}}"#,
        #"["\ud83d\ude00","\u00e9\\\"",1e-7,-0]"#,
        "[\n  [\"vcard\",[[\"fn\",{},\"text\",\"A\"]]]\n  [\"vcard\",[]]\n]",
        "[[\"vcard\",[]],\n]", "[1, 2", "[\"open", "[1] x", "[\n,1]", "{\"a\" 1}", "{\"a\":1,}", "[tru]", "[01]",
        "{\"a\":[1}", "[{]", "", " \n ", "[1,2]]", "{\"a\":\"b\"", "[\"a\\q\"]", "[\"\u{01}\"]", "[-]", "[1.5e+]",
    ]

    static let corpusDocuments: [String] = CorpusIndex.entries.filter { $0.version == "jcard" }.compactMap {
        (try? Data(contentsOf: $0.url)).flatMap { String(data: $0, encoding: .utf8) }
    }

    /// `bytes` handed over `size` at a time.
    struct Chunks {
        var bytes: [UInt8]
        var size: Int
        var offset = 0

        mutating func next() -> ArraySlice<UInt8>? {
            guard offset < bytes.count else { return nil }
            defer { offset += size }
            return bytes[offset..<min(offset + size, bytes.count)]
        }
    }

    /// Reads `text` in chunks with `nextValue()` at the top level and inside a top-level
    /// array or object, building what the parser builds.
    static func readValues(_ text: String, chunkSize: Int, options: JSONReadingOptions = JSONReadingOptions()) -> Result<JSONValue, JSONError> {
        var chunks = Chunks(bytes: Array(text.utf8), size: chunkSize)
        var reader = JSONStreamReader(options: options)
        var elements: [JSONValue] = []
        var object = JSONObject()
        var key: String?
        var topValue: JSONValue?
        do throws(JSONError) {
            let first = try reader.next(feeding: { chunks.next() })
            while true {
                let event = first == .startArray || first == .startObject ? try reader.nextValue(feeding: { chunks.next() }) : .endOfDocument
                switch event {
                case .value(let value) where first == .startArray: elements.append(value)
                case .key(let name): key = name
                case .value(let value): object.append(key!, value)
                case .endArray: topValue = .array(elements)
                case .endObject: topValue = .object(object)
                case .endOfDocument:
                    if case .value(let value) = first { topValue = value }
                    guard try reader.next(feeding: { chunks.next() }) == .endOfDocument else { Issue.record("not at the end"); return .success(.null) }
                    return .success(topValue!)
                case .startArray, .startObject: Issue.record("unexpected \(event)")
                }
            }
        } catch {
            return .failure(error)
        }
    }

    @Test(arguments: documents + corpusDocuments, [1, 2, 7, 64, 300, 4096])
    func readsWhatTheParserReadsAndFailsWhereItFails(text: String, chunkSize: Int) {
        let options = JSONReadingOptions(maximumDepth: 64, allowsByteOrderMark: true)
        let parsed = Result { () throws(JSONError) in try JSONValue(parsing: Array(text.utf8), options: options) }
        let streamed = Self.readValues(text, chunkSize: chunkSize, options: options)
        switch (parsed, streamed) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure(let a), .failure(let b)): #expect(a == b)
        default: Issue.record("parsed \(parsed), streamed \(streamed)")
        }
    }

    @Test func reportsEventsInDocumentOrderWithTheirPositions() throws {
        var reader = JSONStreamReader()
        reader.feed(Array("{\"a\": [1, {}],\n \"b\": \"é\"}".utf8))
        reader.finish()
        var events: [JSONEvent] = []
        var positions: [String] = []
        while let event = try reader.next() {
            events.append(event)
            positions.append(reader.eventPosition.description)
            if event == .endOfDocument { break }
        }
        #expect(events == [.startObject, .key("a"), .startArray, .value(1), .startObject, .endObject, .endArray,
                           .key("b"), .value("é"), .endObject, .endOfDocument])
        #expect(positions == ["1:1", "1:2", "1:7", "1:8", "1:11", "1:12", "1:13", "2:2", "2:7", "2:10", "2:11"])
    }

    @Test func asksForMoreInputUntilAValueIsComplete() throws {
        var reader = JSONStreamReader()
        reader.feed(Array(#"[12"#.utf8))
        #expect(try reader.next() == .startArray)
        #expect(try reader.next() == nil)   // 12 may go on
        reader.feed(Array(#"3, "ab"#.utf8))
        #expect(try reader.next() == .value(123))
        #expect(try reader.next() == nil)
        reader.feed(Array(#"c"]"#.utf8))
        #expect(try reader.next() == .value("abc"))
        #expect(try reader.next() == .endArray)
        #expect(try reader.next() == nil)   // white space could still come
        reader.finish()
        #expect(try reader.next() == .endOfDocument)
    }

    /// A `_changes` feed of 20,000 rows, fed in 4 KiB chunks: the reader never holds much more
    /// than a chunk and a row.
    @Test func walksALargeFeedWithBoundedMemory() throws {
        var feed = Array(#"{"results":["#.utf8)
        for row in 1...20_000 {
            if row > 1 { feed.append(UInt8(ascii: ",")) }
            feed += Array(#"{"seq":"\#(row)-g1AAAA","id":"contact:\#(row)","changes":[{"rev":"1-\#(String(repeating: "f", count: 32))"}],"doc":{"vcard":"BEGIN:VCARD\r\nFN:Person \#(row)\r\nEND:VCARD\r\n"}}"#.utf8)
        }
        feed += Array(#"],"last_seq":"20000-g1AAAA","pending":0}"#.utf8)
        var reader = JSONStreamReader(options: JSONReadingOptions(maximumBytes: 64 << 10))
        var chunks = Chunks(bytes: feed, size: 4096)
        var rows = 0
        var lastSequence: JSONValue?
        var largestHeld = 0
        var inResults = false
        var key: String?
        reading: while true {
            let event = inResults || key == "last_seq" ? try reader.nextValue(feeding: { chunks.next() }) : try reader.next(feeding: { chunks.next() })
            largestHeld = max(largestHeld, reader.heldByteCount)
            switch event {
            case .key(let name): key = name
            case .startArray where key == "results": inResults = true
            case .value(let row) where inResults:
                rows += 1
                #expect(row["id"]?.stringValue == "contact:\(rows)")
            case .endArray: inResults = false
            case .value(let value) where key == "last_seq": lastSequence = value; key = nil
            case .endOfDocument: break reading
            default: break
            }
        }
        #expect(rows == 20_000)
        #expect(lastSequence == "20000-g1AAAA")
        #expect(feed.count > 3_000_000)
        #expect(largestHeld < 3 * 4096)
    }

    @Test(arguments: [1, 7, 999, 1500, 4096, 8192])
    func passesOverAValueTooLargeAndReadsOn(chunkSize: Int) throws {
        let text = "[\"small\",\n [\"" + String(repeating: "x", count: 5000) + "\", {\"y\": \"]\"}],\n \"after\"]"
        let bytes = Array(text.utf8)
        var reader = JSONStreamReader(options: JSONReadingOptions(maximumBytes: 1000))
        var chunks = Chunks(bytes: bytes, size: chunkSize)
        var values: [JSONValue] = []
        var errors: [JSONError] = []
        var largestHeld = 0
        var opened = false
        reading: while true {
            let event: JSONEvent
            do {
                event = opened ? try reader.nextValue(feeding: { chunks.next() }) : try reader.next(feeding: { chunks.next() })
            } catch {
                errors.append(error)
                continue
            }
            largestHeld = max(largestHeld, reader.heldByteCount)
            switch event {
            case .startArray: opened = true
            case .value(let value): values.append(value)
            case .endOfDocument: break reading
            default: break
            }
        }
        #expect(values == ["small", "after"])
        #expect(errors.map(\.code) == [.tooLarge])
        #expect(errors.first?.line == 2 && errors.first?.column == 2)
        #expect(largestHeld < 2 * 1000 + 2 * chunkSize + 16)
    }

    @Test func skipsAValueWithoutBuildingIt() throws {
        let line = Array(#"{"card":"BEGIN:VCARD\r\n…","checksum":"0a1b2c3d","n":[1,{"x":"}"}]}"#.utf8)
        var reader = JSONStreamReader()
        reader.feed(line)
        reader.finish()
        #expect(try reader.next() == .startObject)
        #expect(try reader.next() == .key("card"))
        #expect(try reader.skipValue() == .value(nil))
        #expect(try reader.next() == .key("checksum"))
        #expect(reader.eventPosition.offset == line.count - #""checksum":"0a1b2c3d","n":[1,{"x":"}"}]}"#.utf8.count)
        #expect(try reader.nextValue() == .value("0a1b2c3d"))
        #expect(try reader.next() == .key("n"))
        #expect(try reader.skipValue() == .value(nil))
        #expect(try reader.next() == .endObject)
        #expect(try reader.next() == .endOfDocument)
    }

    @Test func anErrorIsFinal() throws {
        var reader = JSONStreamReader()
        reader.feed(Array("[1 2]".utf8))
        reader.finish()
        #expect(try reader.next() == .startArray)
        #expect(try reader.next() == .value(1))
        #expect(throws: JSONError.self) { try reader.next() }
        #expect(throws: JSONError.self) { try reader.next() }
    }
}
