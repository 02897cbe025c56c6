import Testing
import VCardKit

/// Inline binary values decode as vCard writers spell them, and encode in the standard form.
struct Base64Tests {
    @Test(arguments: [
        ("SGVsbG8=", "Hello"),
        ("SGVsbG8", "Hello"),                          // no padding
        ("SGVs\r\n bG8=", "Hello"),                    // a folded or indented PHOTO value
        ("SG Vs\tbG\n8=", "Hello"),
        ("SGVsbG8=IGlnbm9yZWQ=", "Hello"),             // text after the first '=' is ignored
        ("P-_-", "?\u{EF}\u{FE}"),                     // the URL-safe alphabet, as "P+/+"
        ("SGVsbG8h", "Hello!"),
        ("SGVsbG8hQ", "Hello!"),                       // a last digit alone is no byte
        ("", ""),
    ])
    func decodesLeniently(text: String, expected: String) {
        #expect(Base64.decode(text) == Array(expected.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }))
    }

    @Test(arguments: ["SGVs*bG8=", "SGVsbG8\u{0B}", "SGVs.bG8", "é"])
    func refusesOtherCharacters(text: String) {
        #expect(Base64.decode(text) == nil)
    }

    @Test func encodesWithPaddingAndNoLineBreaks() {
        #expect(Base64.encode(Array("Hello".utf8)) == "SGVsbG8=")
        #expect(Base64.encode(Array("Hello!".utf8)) == "SGVsbG8h")
        #expect(Base64.encode([UInt8]()) == "")
        #expect(Base64.encode([0xFB, 0xFF]) == "+/8=")
    }

    /// Seeded: any bytes, encoded, broken into indented lines as a 3.0 writer folds them, decode back.
    @Test func decodesWhatItEncodesWhateverTheLineBreaks() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        for length in [0, 1, 2, 3, 4, 75, 76, 77, 1000, 4097] {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: next()) }
            let encoded = Base64.encode(bytes)
            var folded = ""
            for (index, character) in encoded.enumerated() {
                if index > 0 && index % Int(1 + next() % 80) == 0 { folded += "\r\n " }
                folded.append(character)
            }
            #expect(Base64.decode(folded) == bytes, "\(length) bytes")
        }
    }
}

/// Text with an `=` inside: only what comes before the first one counts, at any position.
struct Base64PaddingTests {
    @Test(arguments: 0..<20)
    func readsUpToTheFirstEqualsSign(digits: Int) {
        let text = String(repeating: "QUJD", count: 5).prefix(digits)
        let expected = Base64.decode(String(text))
        #expect(Base64.decode(text + "=QUJD") == expected)
        #expect(Base64.decode(text + "==") == expected)
        #expect(Base64.decode(text + "=*") == expected)
    }
}
