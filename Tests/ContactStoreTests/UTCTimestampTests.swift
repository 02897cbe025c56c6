@testable import ContactStore
import Testing

/// One spelling of UTC times for the journal and the remote document: written with
/// milliseconds and `Z`, read in the RFC 3339 UTC forms other programs write.
struct UTCTimestampTests {
    @Test func writesMillisecondsAndZ() {
        #expect(UTCTimestamp.format(milliseconds: 1_764_063_000_123) == "2025-11-25T09:30:00.123Z")
        #expect(UTCTimestamp.format(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(UTCTimestamp.format(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
    }

    @Test(arguments: [
        ("2025-11-25T09:30:00.123Z", Int64(1_764_063_000_123)),
        ("2025-11-25T09:30:00Z", 1_764_063_000_000),
        ("2025-11-25t09:30:00.1z", 1_764_063_000_100),
        ("2025-11-25T09:30:00.123456789+00:00", 1_764_063_000_123),
        ("2024-02-29T00:00:00.000Z", 1_709_164_800_000),
    ])
    func readsTheUTCFormsOfRFC3339(text: String, milliseconds: Int64) {
        #expect(UTCTimestamp.parse(text.utf8) == milliseconds)
    }

    @Test(arguments: ["", "2025-11-25", "2025-11-25T09:30:00", "2025-11-25T09:30:00.Z", "2025-11-25T09:30:00+01:00",
                      "2025-13-25T09:30:00Z", "2025-11-25T24:00:00Z", "2025-11-25 09:30:00Z", "2025-11-25T09:30:00ZZ"])
    func refusesEverythingElse(text: String) {
        #expect(UTCTimestamp.parse(text.utf8) == nil)
    }

    @Test func readsWhatItWrites() {
        for milliseconds: Int64 in [0, 1, 999, 86_399_999, 951_782_400_000, 4_102_444_799_999] {
            #expect(UTCTimestamp.parse(UTCTimestamp.format(milliseconds: milliseconds).utf8) == milliseconds)
        }
    }

    @Test func theBytesAppendedAreTheFormattedText() {
        for milliseconds: Int64 in [0, -1, 1_764_063_000_123, 253_402_300_799_999, 253_402_300_800_000, -62_135_596_800_001, -62_135_596_800_000] {
            var out: [UInt8] = [0x7B]
            UTCTimestamp.append(milliseconds: milliseconds, to: &out)
            #expect(out == [0x7B] + Array(UTCTimestamp.format(milliseconds: milliseconds).utf8), "\(milliseconds)")
        }
        #expect(UTCTimestamp.format(milliseconds: 253_402_300_800_000) == "10000-01-01T00:00:00.000Z")
    }
}
