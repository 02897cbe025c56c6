import JSONText
import Testing

/// Compact text, only the escapes RFC 8259 needs, and keys sorted as Python sorts them.
@Suite struct JSONWriterTests {
    @Test func writesCompactTextInMemberOrder() {
        let value: JSONValue = ["b": "x\u{01}\"\\", "a": [1, 2.5, nil, true], "c": [:]]
        #expect(String(decoding: value.serialized(), as: UTF8.self) == #"{"b":"x\u0001\"\\","a":[1,2.5,null,true],"c":{}}"#)
    }

    @Test func escapesAsPythonsJSONDumpsWithoutEnsureASCII() {
        let text = "tab\t nl\n cr\r bs\u{08} ff\u{0C} nul\u{00} us\u{1F} del\u{7F} é ☎ 😀 / <"
        var output: [UInt8] = []
        JSONWriter.writeString(text, to: &output)
        // json.dumps(text, ensure_ascii=False)
        #expect(String(decoding: output, as: UTF8.self) == #""tab\t nl\n cr\r bs\b ff\f nul\u0000 us\u001f del\#u{7F} é ☎ 😀 / <""#)
    }

    /// Eight bytes at a time or one by one, the escapes are the same: every byte value at every
    /// offset of runs of several lengths (up to several words, ending inside a word or at its
    /// end), and seeded random buffers, against a byte-by-byte writer.
    @Test func escapesEveryByteWhereverItStands() {
        func reference(_ bytes: [UInt8]) -> [UInt8] {
            var out: [UInt8] = []
            for byte in bytes {
                switch byte {
                case 0x22: out += [0x5C, 0x22]
                case 0x5C: out += [0x5C, 0x5C]
                case 0x0A: out += Array(#"\n"#.utf8)
                case 0x0D: out += Array(#"\r"#.utf8)
                case 0x09: out += Array(#"\t"#.utf8)
                case 0x08: out += Array(#"\b"#.utf8)
                case 0x0C: out += Array(#"\f"#.utf8)
                case 0..<0x20: out += Array(#"\u00"#.utf8) + Array("0123456789abcdef".utf8)[Int(byte >> 4)...Int(byte >> 4)]
                    + Array("0123456789abcdef".utf8)[Int(byte & 0xF)...Int(byte & 0xF)]
                default: out.append(byte)
                }
            }
            return out
        }
        func written(_ bytes: [UInt8]) -> [UInt8] {
            var out: [UInt8] = []
            bytes.withUnsafeBufferPointer { JSONWriter.writeEscaped($0, to: &out) }
            return out
        }
        for length in [1, 7, 8, 9, 15, 16, 17, 23, 31, 32, 33, 41] {
            for offset in 0..<length {
                for value in 0...255 {
                    var bytes = [UInt8](repeating: 0x61, count: length)
                    bytes[offset] = UInt8(value)
                    #expect(written(bytes) == reference(bytes), "byte \(value) at \(offset) of \(length)")
                }
            }
        }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(state % 70) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                // Mostly letters, with quotes, backslashes, control bytes and bytes above 0x7F among them.
                let pick = UInt8(truncatingIfNeeded: state >> 33)
                bytes.append(pick % 4 == 0 ? [0x22, 0x5C, 0x0A, 0x0D, 0x01, 0x1F, 0x20, 0x7F, 0x80, 0xA2, 0xFF][Int(pick >> 2) % 11] : 0x61 + pick % 26)
            }
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            #expect(written(bytes) == reference(bytes))
        }
    }

    /// A card's line ends (CR LF, two escapes side by side), a CR without its LF, and one at the
    /// very end.
    @Test func escapesLineEndsWholeOrAlone() {
        func written(_ text: String) -> String {
            var out: [UInt8] = []
            Array(text.utf8).withUnsafeBufferPointer { JSONWriter.writeEscaped($0, to: &out) }
            return String(decoding: out, as: UTF8.self)
        }
        #expect(written("BEGIN:VCARD\r\nFN:A\r\nEND:VCARD\r\n") == #"BEGIN:VCARD\r\nFN:A\r\nEND:VCARD\r\n"#)
        #expect(written("\r\n") == #"\r\n"#)
        #expect(written("a\r") == #"a\r"#)
        #expect(written("\r\r\n\n\r") == #"\r\r\n\n\r"#)
        #expect(written("\r\"\n") == #"\r\"\n"#)
    }

    @Test func sortsKeysByCodePointAndKeepsEqualNamesInOrder() {
        let object = JSONObject([.init(key: "é", value: 1), .init(key: "z", value: 2), .init(key: "Z", value: 3),
                                 .init(key: "a", value: 4), .init(key: "a", value: 5), .init(key: "\u{1F600}", value: 6), .init(key: "ｚ", value: 7)])
        let sorted = JSONWriter(sortsKeys: true).bytes(for: .object(object))
        // sorted(keys) in Python: code points, so "Z" < "a" < "z" < "é" < "ｚ" < "😀".
        #expect(String(decoding: sorted, as: UTF8.self) == #"{"Z":3,"a":4,"a":5,"z":2,"é":1,"ｚ":7,"😀":6}"#)
    }

    @Test func sortsNestedObjectsToo() {
        let value: JSONValue = ["b": ["y": 1, "x": [["d": 1, "c": 2]]], "a": nil]
        #expect(String(decoding: JSONWriter(sortsKeys: true).bytes(for: value), as: UTF8.self) == #"{"a":null,"b":{"x":[{"c":2,"d":1}],"y":1}}"#)
    }

    @Test(arguments: [
        #"{"a":[1,-2.5e10,"\u0000\ud83d\ude00"],"b":{"c":null,"d":true}}"#,
        #"["\"\\\/\b\f\n\r\t",0,-0.0,1E-7]"#,
    ])
    func whatItWritesParsesToTheSameValue(text: String) throws {
        let value = try JSONValue(parsing: Array(text.utf8))
        let written = value.serialized()
        #expect(try JSONValue(parsing: written) == value)
        #expect(try JSONValue(parsing: written).serialized() == written)
    }

    /// The object writer writes what the writer writes for the same object, member by member.
    @Test func theObjectWriterWritesWhatTheWriterWritesForTheSameObject() {
        var writer = JSONObjectWriter(reservingCapacity: 8)
        writer.append("_id", string: "contact:Zoë \"☎\"")
        writer.append("text", string: "BEGIN:VCARD\r\nNOTE:tab\there\u{01}\r\nEND:VCARD\r\n"[...])
        writer.append("n", 1)
        writer.append("none", strings: [])
        writer.append("two", strings: ["a\\b", "é"])
        writer.append("nested", ["x": [true, nil]])
        let object: JSONObject = ["_id": "contact:Zoë \"☎\"", "text": "BEGIN:VCARD\r\nNOTE:tab\there\u{01}\r\nEND:VCARD\r\n", "n": 1,
                                  "none": [], "two": ["a\\b", "é"], "nested": ["x": [true, nil]]]
        #expect(writer.finished() == object.serialized())
        var fromBytes = JSONObjectWriter()
        Array("line\r\n\"é\"".utf8).withUnsafeBufferPointer { fromBytes.append("text", validUTF8: $0) }
        let expected: JSONObject = ["text": "line\r\n\"é\""]
        #expect(fromBytes.finished() == expected.serialized())
        #expect(JSONObjectWriter().finished() == Array("{}".utf8))
    }
}
