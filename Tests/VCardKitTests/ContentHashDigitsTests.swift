import Testing
import VCardKit

/// A content hash is spelled as 64 lower-case hexadecimal digits, word by word, most
/// significant digit first, and read back from them.
@Suite struct ContentHashDigitsTests {
    let hash = ContentHash(words: (0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210, 0, .max))

    @Test func spellsEachWordMostSignificantDigitFirst() {
        #expect(hash.hexDigits == "0123456789abcdef" + "fedcba9876543210" + String(repeating: "0", count: 16) + String(repeating: "f", count: 16))
    }

    @Test func appendsItsDigitsAfterWhatIsAlreadyThere() {
        var out = Array(#""hash":""#.utf8)
        hash.appendHexDigits(to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #""hash":""# + hash.hexDigits)
    }

    @Test func readsBackWhatItSpellsInEitherCase() {
        var state: UInt64 = 0xC0FFEE
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state ^ (state >> 29)
        }
        for _ in 0..<200 {
            let random = ContentHash(words: (next(), next(), next(), next()))
            #expect(ContentHash(hexDigits: random.hexDigits) == random)
            #expect(ContentHash(hexDigits: random.hexDigits.uppercased()) == random)
        }
        #expect(ContentHash(hexDigits: String(hash.hexDigits.dropLast())) == nil)
        #expect(ContentHash(hexDigits: String(hash.hexDigits.dropLast()) + "g") == nil)
    }
}
