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
}
