import Testing
@testable import VCardKit

/// The in-place UTF-8 check that decides whether a value can be read without decoding agrees
/// with `String(validating:as:)` on every input.
@Suite struct UTF8ValidationTests {
    static func expectAgreement(_ bytes: [UInt8], sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let expected = String(validating: bytes, as: UTF8.self) != nil
        let found = bytes.withUnsafeBufferPointer(\.isValidUTF8)
        if found != expected {
            Issue.record("\(bytes.map { String($0, radix: 16) }) is \(expected ? "" : "not ")valid UTF-8, the check says otherwise",
                         sourceLocation: sourceLocation)
        }
    }

    @Test func agreesOnEverySequenceOfOneAndTwoBytes() {
        for first in 0...255 {
            Self.expectAgreement([UInt8(first)])
            for second in 0...255 { Self.expectAgreement([UInt8(first), UInt8(second)]) }
        }
    }

    /// Every lead and second byte, with third and fourth bytes at the edges of the ranges.
    @Test func agreesOnThreeAndFourByteSequencesAtTheEdges() {
        let edges: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF]
        for lead in 0...255 {
            for second in 0...255 {
                for third in edges {
                    Self.expectAgreement([UInt8(lead), UInt8(second), third])
                    if lead >= 0xF0 {
                        for fourth in edges { Self.expectAgreement([UInt8(lead), UInt8(second), third, fourth]) }
                    }
                }
            }
        }
    }

    /// Sequences cut short or complete, inside runs of ASCII long enough to take the eight-byte
    /// path on either side.
    @Test func agreesInsideLongerText() {
        var generator = SystemRandomNumberGenerator()
        let pieces: [[UInt8]] = [
            Array("héllo wörld — 𝄞 ✓ ".utf8), [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xC3], [0x80], [0xED, 0xA0, 0x80],
            [0xF4, 0x90, 0x80, 0x80], [0xC0, 0xAF], [0xEF, 0xBF, 0xBF], [0xF4, 0x8F, 0xBF, 0xBF], [0xFF],
            Array("plain ASCII text of some length ".utf8),
        ]
        for _ in 0..<20_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                bytes += pieces.randomElement(using: &generator)!
            }
            Self.expectAgreement(bytes)
        }
    }
}
