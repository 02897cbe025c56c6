import JSONText
import Testing

/// `JSONParser.validate` accepts exactly what `JSONParser.parse` accepts and refuses the rest
/// with the same error (code, message, line and column), without building anything.
@Suite struct JSONValidationTests {
    /// Outcome of one reading: `nil` when accepted, else the error.
    private static func parsed(_ bytes: [UInt8], _ options: JSONReadingOptions, depth: Int = 0) -> JSONError? {
        if depth == 0 {
            do throws(JSONError) { _ = try JSONParser.parse(bytes, options: options); return nil } catch { return error }
        }
        // As a member of `depth` nested objects: what a whole-document parse says of the wrapped text,
        // moved back to the bytes of the member (only the opening wrapper precedes them).
        let prefix = Array(String(repeating: #"{"k":"#, count: depth).utf8)
        let wrapped = prefix + bytes + Array(String(repeating: "}", count: depth).utf8)
        do throws(JSONError) { _ = try JSONParser.parse(wrapped, options: options); return nil } catch { return error }
    }

    private static func validated(_ bytes: [UInt8], _ options: JSONReadingOptions, depth: Int = 0) -> JSONError? {
        bytes.withUnsafeBufferPointer { buffer -> JSONError? in
            do throws(JSONError) { try JSONParser.validate(buffer, depth: depth, options: options); return nil } catch { return error }
        }
    }

    static let texts: [[UInt8]] = [
        #"{"a":1,"b":[true,false,null],"c":{"d":"e"},"f":-2.5,"g":1e3,"h":0.5E-2}"#,
        #"["caf\u00e9","\ud83d\ude00","line\nbreak","tab\t","quote\"","back\\slash","\/","\b\f\r"]"#,
        "  {\"empty\":{},\"list\":[],\"s\":\"\"}  ",
        #"{"vcard":"BEGIN:VCARD\r\nFN:Zoë ☎ 名前\r\nEND:VCARD\r\n","n":9007199254740993}"#,
        "\"only a string\"", "-0", "null", "[[[[]]]]", "", " ", "{", "[1,]", "{\"a\" 1}", "{\"a\":1,}", "01", "1.", "-", "1e",
        "tru", "nul", "[1 2]", "{\"a\":1}}", "\"unclosed", "\"bad \\q escape\"", "\"\\u12\"", "\"\\u12G4\"",
        "\"\\ud800\"", "\"\\udc00 and \\ud83d\\u0041\"", "\"tab\tinside\"", "[\"a\",\"b\"] x", "{\"a\":[1,{\"b\":[2,3]}]}",
        #"{"body":"has ,\"body\": inside","x":"\\"}"#,
    ].map { Array($0.utf8) } + [
        Array(#"["ab"#.utf8) + [0xC3, 0x28] + Array(#""]"#.utf8),
        Array(#"["ok \n then bad "#.utf8) + [0xE2, 0x82] + Array(#"" ]"#.utf8),
        Array(#"[""#.utf8) + [0xFF] + Array(#"\q"]"#.utf8),
        Array(#"[""#.utf8) + [0xC3] + Array(#"\n"]"#.utf8),
        Array(#"["\n"#.utf8) + [0xC3, 0xA9, 0xED, 0xA0, 0x80] + Array(#"x"]"#.utf8),
        Array("[\"é\u{1}\"]".utf8),
        [0xEF, 0xBB, 0xBF] + Array("[1]".utf8),
        Array((String(repeating: "[", count: 70) + String(repeating: "]", count: 70)).utf8),
    ]

    static let optionSets: [JSONReadingOptions] = [
        JSONReadingOptions(),
        JSONReadingOptions(maximumDepth: 64, replacesLoneSurrogates: false),
        JSONReadingOptions(maximumBytes: 12, allowsByteOrderMark: true),
    ]

    @Test(arguments: 0..<JSONValidationTests.texts.count)
    func refusesWhatParsingRefusesWithTheSameError(index: Int) {
        let text = Self.texts[index]
        for options in Self.optionSets {
            #expect(Self.validated(text, options) == Self.parsed(text, options),
                    "\(String(decoding: text, as: UTF8.self)) with \(options)")
        }
    }

    /// Seeded random edits of a card-like document (a byte replaced, removed or doubled) read alike.
    @Test func agreesWithParsingOnDamagedDocuments() {
        let document = Array(#"{"type":"contact","uid":"A1","vcard":"BEGIN:VCARD\r\nFN:Zoë \"Z\" Ünal\r\nNOTE:a\\b\/c \u00e9\ud83d\ude00\r\nEND:VCARD\r\n","emails":["z@example.org"],"n":[1,-2.5e3,0,true,false,null],"o":{}}"#.utf8)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        let alphabet = Array(#"{}[]",:\ u0aeE.-+9ntf"#.utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xED, 0xFF]
        var refused = 0
        for _ in 0..<4000 {
            var text = document
            for _ in 0..<(1 + next() % 3) {
                let at = next() % text.count
                switch next() % 3 {
                case 0: text[at] = alphabet[next() % alphabet.count]
                case 1: text.remove(at: at)
                default: text.insert(text[at], at: at)
                }
            }
            let expected = Self.parsed(text, JSONReadingOptions())
            if expected != nil { refused += 1 }
            #expect(Self.validated(text, JSONReadingOptions()) == expected, "\(String(decoding: text, as: UTF8.self))")
        }
        // The edits reach both outcomes.
        #expect(refused > 1000 && refused < 3900)
    }

    /// Every two-byte sequence, and three- and four-byte ones made of every lead byte and the
    /// bytes at the edges of the continuation ranges, inside a string
    /// (after ASCII, so both the word-at-a-time and the byte-at-a-time checks are reached).
    @Test func agreesWithParsingOnEveryShortUTF8Sequence() {
        let edges: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xF4, 0xFF]
        var sequences: [[UInt8]] = []
        for first in 0x80...0xFF {
            for second in 0...0xFF { sequences.append([UInt8(first), UInt8(second)]) }
        }
        for first in 0xE0...0xF7 {
            for second in edges {
                for third in edges {
                    sequences.append([UInt8(first), second, third])
                    if first >= 0xF0 { for fourth in edges { sequences.append([UInt8(first), second, third, fourth]) } }
                }
            }
        }
        var disagreements = 0
        for sequence in sequences {
            let text = Array(#"["plain ascii "#.utf8) + sequence + Array(#" x"]"#.utf8)
            if Self.validated(text, JSONReadingOptions()) != Self.parsed(text, JSONReadingOptions()) { disagreements += 1 }
        }
        #expect(disagreements == 0, "of \(sequences.count) sequences")
    }

    /// Nested as a member (`depth`), the depth limit counts the levels around it.
    @Test func countsTheLevelsAroundTheValue() {
        let options = JSONReadingOptions(maximumDepth: 8)
        let fits = Array("[[[[[[[]]]]]]]".utf8)
        #expect(Self.validated(fits, options, depth: 1) == nil)
        #expect(Self.validated(fits, options, depth: 2)?.code == .tooDeep)
        #expect(Self.parsed(fits, options, depth: 2)?.code == .tooDeep)
        #expect(Self.parsed(fits, options, depth: 1) == nil)
    }
}
