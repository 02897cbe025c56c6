import ContactDiff
import Testing
import VCardKit

struct ContactSetReaderTests {
    @Test func plainTextCardsAreSlicedWithoutParsingAndKeepTheirLines() {
        let text = "\u{FEFF}BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada\r\nEND:VCARD\r\n\r\nbegin:vcard\nVERSION:2.1\nFN:Charles\n"
            + "AGENT:\nBEGIN:VCARD\nVERSION:2.1\nFN:Assistant\nEND:VCARD\nEND:VCARD\n"
        let set = ContactSetReader.read(bytes: Array(text.utf8), name: "two.vcf")
        #expect(set.items.count == 2, "a nested card belongs to its card")
        for item in set.items {
            guard case .text = item else { Issue.record("expected an unparsed slice, got \(item)"); continue }
        }
        #expect(set.parsed().map(\.origin) == ["two.vcf:1", "two.vcf:6"])
        #expect(set.parsed().map(\.displayName) == ["Ada", "Charles"])
    }

    @Test(arguments: [
        "BEGIN:VCARD\r\nFN:Ada\r\nEND:VCARD\r\nstray text\r\n",
        "BEGIN:VCARD\r\nFN:Ada\r\n",
        "END:VCARD\r\nBEGIN:VCARD\r\nFN:Ada\r\nEND:VCARD\r\n",
    ])
    func unusualTextIsLeftToTheParser(text: String) {
        let set = ContactSetReader.read(bytes: Array(text.utf8), name: "odd.vcf")
        for item in set.items {
            guard case .frame = item else { Issue.record("expected a parser frame, got \(item)"); continue }
        }
        #expect(!set.diagnostics.isEmpty, "the parser reports what is odd")
    }

    @Test func utf16TextIsLeftToTheParser() {
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Ada\r\nEND:VCARD\r\n".utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        let set = ContactSetReader.read(bytes: bytes, name: "utf16.vcf")
        #expect(set.parsed().map(\.displayName) == ["Ada"])
        guard case .frame? = set.items.first else { Issue.record("expected a parser frame"); return }
    }
}
