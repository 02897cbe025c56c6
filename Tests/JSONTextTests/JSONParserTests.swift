import Foundation
import JSONText
import Testing

/// The parser reads exactly RFC 8259, keeps what the text said, and says where it stopped.
@Suite struct JSONParserTests {
    @Test(arguments: [
        #"{"a":1,"b":[true,false,null],"c":{"d":"e"},"f":-2.5,"g":1e3,"h":0.5E-2}"#,
        #"["caf\u00e9","\ud83d\ude00","line\nbreak","tab\t","quote\"","back\\slash","\/","\b\f\r"]"#,
        #"  {"empty":{},"list":[],"s":""}  "#,
        #"{"vcard":"BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Zoë ☎ 名前\r\nEND:VCARD\r\n","n":9007199254740993}"#,
        "\"only a string\"", "-0", "null", "[[[[]]]]",
    ])
    func parsesWhatFoundationParses(text: String) throws {
        let ours = try JSONValue(parsing: Array(text.utf8))
        let foundation = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        #expect(Self.same(ours, foundation), "\(ours)")
        #expect(try JSONValue(parsing: ours.serialized()) == ours)
    }

    @Test func keepsNumberTextAndMemberOrder() throws {
        let value = try JSONValue(parsing: Array(#"{"z":1.0,"a":9007199254740993,"m":-0,"e":1E+2}"#.utf8))
        #expect(value.objectValue?.keys == ["z", "a", "m", "e"])
        #expect(value["z"] == .number("1.0"))
        #expect(value["a"]?.intValue == 9_007_199_254_740_993)
        #expect(String(decoding: value.serialized(), as: UTF8.self) == #"{"z":1.0,"a":9007199254740993,"m":-0,"e":1E+2}"#)
    }

    /// Broken text: the problem, at its line and column (columns count characters, not bytes).
    @Test(arguments: [
        (#"{"a":}"#, "expected a JSON value", 1, 6),
        ("[1,2", "an array is not closed with ']'", 1, 5),
        (#"{"a":1}x"#, "unexpected text after the JSON document", 1, 8),
        ("\"unterminated", "a string is not closed with '\"'", 1, 14),
        (#"{"a":"\u12"}"#, "\\u needs four hex digits", 1, 8),
        ("{\"é\":\"a\u{01}b\"}", "a control character must be escaped in a JSON string", 1, 8),
        ("", "the JSON document ends too early", 1, 1),
        ("[\n  1,\n  ]", "expected a JSON value", 3, 3),
        ("[01]", "expected ',' or ']' in an array", 1, 3),
        ("[1.]", "expected a digit in a number", 1, 4),
        ("[.5]", "expected a JSON value", 1, 2),
        ("[+1]", "expected a JSON value", 1, 2),
        ("[-]", "expected a digit in a number", 1, 3),
        ("[1e]", "expected a digit in a number", 1, 4),
        ("[tru]", "expected true", 1, 2),
        ("[NaN]", "expected a JSON value", 1, 2),
        ("{'a':1}", "expected a member name in double quotes", 1, 2),
        (#"{"a" 1}"#, "expected ':' after a member name", 1, 6),
        (#"{"a":1,}"#, "expected a member name in double quotes", 1, 8),
        (#"{"a":1 "b":2}"#, "expected ',' or '}' in an object", 1, 8),
        (#"["\q"]"#, "unknown escape in a JSON string", 1, 4),
        ("[1] // comment", "unexpected text after the JSON document", 1, 5),
        ("\u{FEFF}[]", "expected a JSON value", 1, 1),
    ])
    func refusesWhatIsNotJSON(text: String, message: String, line: Int, column: Int) {
        #expect {
            try JSONValue(parsing: Array(text.utf8))
        } throws: { error in
            guard let error = error as? JSONError else { return false }
            return error.code == .invalidJSON && error.message == message && error.line == line && error.column == column
        }
    }

    /// Columns count characters, however long the line and whatever its mix of one- to four-byte
    /// characters (positions are counted eight bytes at a time where no line feed is).
    @Test(arguments: [0, 1, 7, 8, 9, 63])
    func countsColumnsInCharactersOnLongLines(padding: Int) {
        let line = String(repeating: "a", count: padding) + String(repeating: "é☎😀x", count: 20)
        let text = "[\n\"" + line + "\",\n \"" + line + "\" x]"
        #expect {
            try JSONValue(parsing: Array(text.utf8))
        } throws: { error in
            guard let error = error as? JSONError else { return false }
            return error.line == 3 && error.column == line.unicodeScalars.count + 5 && error.position.offset == text.utf8.count - 2
        }
    }

    /// Strings are searched eight bytes at a time for their end and escapes: whatever the
    /// position of an escape or a control character (in the first words of the string or a
    /// later one), the same result as byte by byte.
    @Test(arguments: 0..<48)
    func findsEscapesAndControlCharactersAtAnyPosition(offset: Int) throws {
        let before = String(repeating: "é", count: offset / 2) + String(repeating: "a", count: offset % 2)
        for (escape, decoded) in [(#"\""#, "\""), (#"\\"#, "\\"), (#"\n"#, "\n"), (#"\u00e9"#, "é"), (#"\ud83d\ude00"#, "😀")] {
            let text = "[\"" + before + escape + String(repeating: "z", count: 37) + "\"]"
            #expect(try JSONValue(parsing: Array(text.utf8)) == .array([.string(before + decoded + String(repeating: "z", count: 37))]))
        }
        let control = Array(("[\"" + before + "\u{1F}" + String(repeating: "z", count: 37) + "\"]").utf8)
        #expect {
            try JSONValue(parsing: control)
        } throws: { error in
            (error as? JSONError).map { $0.column == 3 + before.count && $0.message.contains("control character") } ?? false
        }
    }

    @Test func refusesAStringThatIsNotUTF8() {
        let bytes: [UInt8] = Array(#"["ab"#.utf8) + [0xC3, 0x28] + Array(#""]"#.utf8)
        #expect(throws: JSONError.self) { try JSONValue(parsing: bytes) }
    }

    @Test func aByteOrderMarkIsPassedOverWhenAllowed() throws {
        let bytes = Array("\u{FEFF}[\n 1, x]".utf8)
        #expect {
            try JSONValue(parsing: bytes, options: JSONReadingOptions(allowsByteOrderMark: true))
        } throws: { error in
            (error as? JSONError).map { $0.line == 2 && $0.column == 5 && $0.position.offset == 9 } ?? false
        }
        #expect(try JSONValue(parsing: Array("\u{FEFF}[]".utf8), options: JSONReadingOptions(allowsByteOrderMark: true)) == .array([]))
    }

    @Test(arguments: [
        (#"\udadd\udade"#, "\u{FFFD}\u{FFFD}"),
        (#"\ud83d\u0041"#, "\u{FFFD}A"),
        (#"\ud83d\ude00"#, "😀"),
        (#"\udc00"#, "\u{FFFD}"),
        (#"\ud800"#, "\u{FFFD}"),
    ])
    func aLoneSurrogateBecomesAReplacementCharacterOrAnError(escaped: String, expected: String) throws {
        let text = Array(("[\"" + escaped + "\"]").utf8)
        #expect(try JSONValue(parsing: text) == .array([.string(expected)]))
        if expected.contains("\u{FFFD}") {
            #expect(throws: JSONError.self) { try JSONValue(parsing: text, options: JSONReadingOptions(replacesLoneSurrogates: false)) }
        }
    }

    @Test func refusesDeepNestingWithoutExhaustingTheStack() {
        let deep = Array((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8)
        #expect {
            try JSONValue(parsing: deep, options: JSONReadingOptions(maximumDepth: 64))
        } throws: { error in
            (error as? JSONError).map { $0.code == .tooDeep && $0.column == 65 } ?? false
        }
        #expect(throws: JSONError.self) { try JSONValue(parsing: deep) }
        #expect(throws: Never.self) { try JSONValue(parsing: Array((String(repeating: "[", count: 64) + String(repeating: "]", count: 64)).utf8),
                                                    options: JSONReadingOptions(maximumDepth: 64)) }
    }

    @Test func refusesTextOverTheSizeLimit() {
        #expect {
            try JSONValue(parsing: Array("[1, 2, 3]".utf8), options: JSONReadingOptions(maximumBytes: 8))
        } throws: { error in
            (error as? JSONError)?.code == .tooLarge
        }
    }

    static func same(_ value: JSONValue, _ other: Any) -> Bool {
        switch value {
        case .null: return other is NSNull
        case .bool(let flag): return (other as? Bool) == flag
        case .number(let text):
            guard let number = other as? NSNumber else { return false }
            if let integer = Int64(text) { return number.int64Value == integer }
            return number.doubleValue == Double(text)
        case .string(let text): return (other as? String) == text
        case .array(let items):
            guard let list = other as? [Any], list.count == items.count else { return false }
            return zip(items, list).allSatisfy { same($0, $1) }
        case .object(let object):
            guard let dictionary = other as? [String: Any], dictionary.count == object.count else { return false }
            return object.members.allSatisfy { member in dictionary[member.key].map { same(member.value, $0) } ?? false }
        }
    }
}
