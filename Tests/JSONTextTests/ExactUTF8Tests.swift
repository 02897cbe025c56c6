import JSONText
import Testing

/// `String(exactUTF8:)` gives what `String(validating:as: UTF8.self)` gives, for every input.
@Suite struct ExactUTF8Tests {
    /// Each case: the bytes, and whether they are valid UTF-8.
    static let cases: [(name: String, bytes: [UInt8], valid: Bool)] = [
        ("empty", [], true),
        ("ASCII", Array("BEGIN:VCARD".utf8), true),
        ("a NUL byte", [0x61, 0x00, 0x62], true),
        ("two-byte sequence", [0x4A, 0xC3, 0xBC], true),
        ("three-byte sequence", [0xE2, 0x98, 0x8E], true),
        ("four-byte sequence", [0xF0, 0x9F, 0x98, 0x80], true),
        ("the last scalar, U+10FFFF", [0xF4, 0x8F, 0xBF, 0xBF], true),
        ("U+FFFD itself", [0xEF, 0xBF, 0xBD], true),
        ("longer than a small string", Array("FN:Zoë ☎ 名前, Jürgen Müller 😀 and some more text".utf8), true),
        ("a byte that never starts a sequence", [0x61, 0xFF, 0x62], false),
        ("a lone continuation byte", [0x80], false),
        ("a two-byte sequence cut short at the end", [0x61, 0xC3], false),
        ("a three-byte sequence cut short", [0xE2, 0x82], false),
        // Replaced by one U+FFFD, three bytes for three: the same length, other bytes.
        ("a four-byte sequence cut short after three bytes", [0xF0, 0x9F, 0x98], false),
        ("a four-byte sequence cut short before more text", [0xF0, 0x9F, 0x98, 0x41, 0x42, 0x43], false),
        ("an overlong two-byte slash", [0xC0, 0xAF], false),
        ("an overlong three-byte slash", [0xE0, 0x80, 0xAF], false),
        ("an overlong four-byte slash", [0xF0, 0x80, 0x80, 0xAF], false),
        ("a UTF-16 surrogate", [0xED, 0xA0, 0x80], false),
        ("above U+10FFFF", [0xF4, 0x90, 0x80, 0x80], false),
        ("a five-byte lead", [0xF8, 0x88, 0x80, 0x80, 0x80], false),
        ("invalid inside a long string", Array("FN:Jürgen Müller and some more text ".utf8) + [0xC3, 0x28] + Array(" END".utf8), false),
    ]

    @Test(arguments: cases.indices)
    func agreesWithTheStandardValidation(at position: Int) {
        let (name, bytes, valid) = Self.cases[position]
        let expected = String(validating: bytes, as: UTF8.self)
        #expect((expected != nil) == valid, "the case \(name) is mislabelled")
        #expect(String(exactUTF8: bytes) == expected, "\(name)")
        #expect(bytes.withUnsafeBufferPointer { String(exactUTF8: $0) } == expected, "\(name), from a buffer")
        let padded = [0x20] + bytes + [0x20]
        #expect(String(exactUTF8: padded[1..<(padded.count - 1)]) == expected, "\(name), from a slice")
        if let text = String(exactUTF8: bytes) { #expect(Array(text.utf8) == bytes, "\(name)") }
    }

    /// Seeded random bytes, drawn mostly from lead and continuation bytes so that almost-valid
    /// sequences are common.
    @Test func agreesWithTheStandardValidationOnRandomBytes() {
        let alphabet: [UInt8] = [0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEF,
                                 0xF0, 0xF4, 0xF5, 0xFF, 0xBD]
        var state: UInt64 = 0x5EED_CA2D
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var validSeen = 0, invalidSeen = 0
        for _ in 0..<20_000 {
            let length = Int(next() % 24)
            let bytes = (0..<length).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] }
            let expected = String(validating: bytes, as: UTF8.self)
            if expected == nil { invalidSeen += 1 } else { validSeen += 1 }
            #expect(String(exactUTF8: bytes) == expected, "\(bytes)")
        }
        #expect(validSeen > 500 && invalidSeen > 500, "valid \(validSeen), invalid \(invalidSeen)")
    }
}
