import Testing
@testable import VCardKit

/// The byte-level shortcuts of the reader and writer give what the plain code they replace gives:
/// line ends found eight bytes at a time, registered names found without a `String`, and a card
/// written back as one block only while nothing in it changed.
@Suite struct FastPathTests {
    /// The first CR or LF, compared with a byte-by-byte search at every start and in every
    /// position of a word.
    @Test func findsTheFirstLineBreakAtEveryOffset() {
        for length in 0..<40 {
            for breakAt in 0...length {
                for breakByte: UInt8 in [0x0A, 0x0D] {
                    var bytes = [UInt8](repeating: 0x41, count: length)
                    // Bytes next to CR and LF in value (0x0B, 0x0C, 0x0E, 0x09) and above 0x7F must not match.
                    for k in stride(from: 0, to: length, by: 3) { bytes[k] = [0x0B, 0x0C, 0x0E, 0x09, 0x8A, 0x8D][k % 6] }
                    if breakAt < length { bytes[breakAt] = breakByte }
                    for start in 0...length {
                        let expected = (start..<length).first { bytes[$0] == 0x0A || bytes[$0] == 0x0D } ?? length
                        let found = bytes.withUnsafeBufferPointer { $0.firstLineBreak(from: start, to: length) }
                        #expect(found == expected, "length \(length), break at \(breakAt), start \(start)")
                    }
                }
            }
        }
    }

    /// Comparing names ignoring ASCII case, on the strings' bytes, agrees with upper-casing both
    /// for every pair of bytes that differ only in bit 0x20 (letters, and the symbols and
    /// non-ASCII bytes that must not be taken for letters), in small and native strings.
    @Test func comparesNamesIgnoringOnlyASCIICase() {
        let bytes: [UInt8] = Array(0x20...0x7E) + [0xC3, 0x89, 0xA9]
        for x in bytes {
            for y in [x, x ^ 0x20] {
                for padding in [0, 3, 20] {
                    let prefix = [UInt8](repeating: 0x41, count: padding)
                    let a = String(decoding: prefix + [x], as: UTF8.self), b = String(decoding: prefix.map { $0 | 0x20 } + [y], as: UTF8.self)
                    let expected = a.uppercased() == b.uppercased() && a.utf8.count == b.utf8.count
                    #expect(a.equalsIgnoringASCIICase(b) == expected, "\(x) \(y) \(padding)")
                }
            }
        }
        #expect("ÉMAIL".equalsIgnoringASCIICase("éMAIL") == false)
        #expect("X-EVOLUTION-FILE-AS".equalsIgnoringASCIICase("x-evolution-file-as"))
        #expect(!"TYPE".equalsIgnoringASCIICase("TYP"))
        let sliced = String("--encoding--".dropFirst(2).dropLast(2))
        #expect(sliced.equalsIgnoringASCIICase("ENCODING"))
    }

    /// Every registered name in any case, and names that only look like one, get the traits of
    /// the full table lookup; a registered name's traits know it by its index, and any other
    /// name's upper-cased text is read from the name itself.
    @Test func findsRegisteredNamesInAnyCase() {
        let names = ["FN", "fn", "Fn", "N", "n", "TEL", "tel", "EMAIL", "eMail", "VERSION", "version", "ADR", "PHOTO", "photo",
                     "X-ABLABEL", "x-ablabel", "X-PHONETIC-FIRST-NAME", "x-phonetic-first-name", "SORT-STRING", "sort-string",
                     "CLIENTPIDMAP", "X-CUSTOM", "x-custom", "TELL", "TE", "FN2", "F", "X-", "{N", "N@", "[TEL", "`fn",
                     "N\u{0}", "ÉMAIL", "EMAİL", String(repeating: "A", count: 25), "X-EVOLUTION-FILE-AS", "LABEL", "label"]
        for name in names {
            let (read, traits) = Array(name.utf8).withUnsafeBufferPointer { PropertyTraits.named($0) }
            let expected = PropertyTraits.of(name)
            #expect(read == name)
            #expect(traits == expected, "\(name)")
            #expect((traits.registeredName ?? PropertyTraits.upperName(of: name)) == name.asciiUppercased, "\(name)")
            #expect(traits.registeredName == nil || !traits.isKnown == name.asciiUppercased.hasPrefix("X-"), "\(name)")
        }
        // The packed search finds every registered name of up to 24 bytes, in any case, and nothing else.
        let registered = PropertyAvailability.known.union(["X-EVOLUTION-FILE-AS", "X-PHONETIC-FIRST-NAME", "X-PHONETIC-LAST-NAME", "X-ABLABEL"])
        for name in registered where name.utf8.count <= 24 {
            for spelling in [name, name.lowercased(), name.prefix(1) + name.dropFirst().lowercased()] {
                let found = Array(spelling.utf8).withUnsafeBufferPointer { PropertyTraits.registeredTraits(of: $0) }
                #expect(found == PropertyTraits.of(name) && found?.registeredName == name, "\(spelling)")
            }
        }
        for name in ["X-CUSTOM", "TELL", "TE", "FN2", "X-", "NOTES", "X-SOCIALPROFILE", "EMAIL-", "ZZZZZZZZZZZZZZZZZZZZZZZZ"] {
            #expect(Array(name.utf8).withUnsafeBufferPointer { PropertyTraits.registeredTraits(of: $0) } == nil, "\(name)")
            let traits = Array(name.lowercased().utf8).withUnsafeBufferPointer { PropertyTraits.traits(of: $0) }
            #expect(traits == PropertyTraits.of(name) && traits.registeredName == nil, "\(name)")
            #expect(PropertyTraits.upperName(of: name.lowercased()) == name, "\(name)")
            #expect(traits.isExtension == (name.hasPrefix("X-") && name.count > 2), "\(name)")
        }
        #expect(PropertyTraits.of("x-custom").isExtension && !PropertyTraits.of("XCUSTOM").isExtension && !PropertyTraits.of("x-").isExtension)
        #expect(PropertyTraits.of("tel").role == .telephone)
        #expect(PropertyTraits.of("Fn").role == .formattedName)
        #expect(PropertyTraits.of("NOTE").role == .other)
        #expect(PropertyTraits.of("rev").singularBit != 0 && PropertyTraits.of("uid").singularBit != PropertyTraits.of("rev").singularBit)
        #expect(PropertyTraits.of("TEL").singularBit == 0)
    }

    /// A card read and written back in its version is copied as one block; any change to its
    /// properties makes the writer write property by property again.
    @Test func writesAnUneditedCardAsItsTextAndAnEditedOneByProperty() throws {
        let text = "BEGIN:VCARD\r\nVERSION:4.0\nFN:Ada\r\n Lovelace\r\nTEL;type=cell:+1 555\r\n\r\nEND:VCARD\r\n"
        var card = try #require(VCardReader.read(Array(text.utf8)).cards.first)
        #expect(card.originalText.map(Array.init) == Array(text.utf8))
        #expect(VCardWriter().string(for: card) == text)
        card.properties[1].rawValue = "Ada King"
        #expect(card.originalText == nil)
        #expect(VCardWriter().string(for: card) == "BEGIN:VCARD\r\nVERSION:4.0\nFN:Ada King\r\nTEL;type=cell:+1 555\r\n\r\nEND:VCARD\r\n")
        var forgotten = try #require(VCardReader.read(Array(text.utf8)).cards.first)
        forgotten.forgetOriginalFormatting()
        #expect(forgotten.originalText == nil)
        #expect(VCardWriter().string(for: forgotten) == "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:AdaLovelace\r\nTEL;TYPE=cell:+1 555\r\nEND:VCARD\r\n")
    }
}
