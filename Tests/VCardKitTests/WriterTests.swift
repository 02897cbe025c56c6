import Testing
@testable import VCardKit

/// The writer's rules: canonical form, escaping, folding, byte-exact write-back.
@Suite struct WriterTests {
    private func card(_ version: VCardVersion, _ properties: VCardProperty...) -> VCard {
        VCard(version: version, properties: properties)
    }

    @Test func foldsAt75OctetsWithCRLFAndASpace() {
        let note = String(repeating: "a", count: 200)
        let text = VCardWriter(target: .v4_0).string(for: card(.v4_0, VCardProperty(name: "NOTE", text: note)))
        let lines = text.components(separatedBy: "\r\n").dropLast()
        #expect(lines.allSatisfy { $0.utf8.count <= 75 })
        #expect(lines.contains { $0.hasPrefix(" ") })
        let reread = try? VCardReader.read(text).cards.first?.first("NOTE")?.textValue
        #expect(reread == note)
    }

    @Test(arguments: ["é", "日", "😀", "👩‍👩‍👧"])
    func neverSplitsAUTF8SequenceWhenFolding(_ character: String) throws {
        for prefixLength in 0..<5 {
            let note = String(repeating: "x", count: prefixLength) + String(repeating: character, count: 60)
            let bytes = VCardWriter(target: .v4_0).bytes(for: card(.v4_0, VCardProperty(name: "NOTE", text: note)))
            var lineStart = 0
            for index in bytes.indices where bytes[index] == 0x0A {
                let line = Array(bytes[lineStart..<(index - 1)])
                #expect(line.count <= 75)
                #expect(String(validating: line, as: UTF8.self) != nil, "a physical line is not valid UTF-8 on its own")
                lineStart = index + 1
            }
            #expect(try VCardReader.read(bytes).cards.first?.first("NOTE")?.textValue == note)
        }
    }

    @Test func foldsALineOfExactly75OctetsNotAtAll() {
        let value = String(repeating: "b", count: 75 - "NOTE:".count)
        let text = VCardWriter(target: .v4_0).string(for: card(.v4_0, VCardProperty(name: "NOTE", rawValue: value)))
        #expect(text.contains("\r\nNOTE:\(value)\r\n"))
        let longer = VCardWriter(target: .v4_0).string(for: card(.v4_0, VCardProperty(name: "NOTE", rawValue: value + "c")))
        #expect(longer.contains("\r\nNOTE:\(value)\r\n c\r\n"))
    }

    @Test(arguments: [VCardVersion.v3_0, .v4_0])
    func escapesTextValues(_ version: VCardVersion) throws {
        let text = "a,b;c\\d\ne"
        let written = VCardWriter(target: version).string(for: card(version, VCardProperty(name: "NOTE", text: text)))
        #expect(written.contains("NOTE:a\\,b\\;c\\\\d\\ne\r\n"))
        #expect(try VCardReader.read(written).cards.first?.first("NOTE")?.textValue == text)
    }

    @Test func keepsCommasBetweenListItemsAndEscapesCommasInside() throws {
        var categories = VCardProperty(name: "CATEGORIES", rawValue: "")
        categories.rawValue = ["Work", "Clients, EU"].map(TextEscaping.escape).joined(separator: ",")
        let written = VCardWriter(target: .v4_0).string(for: card(.v4_0, categories))
        #expect(written.contains("CATEGORIES:Work,Clients\\, EU\r\n"))
        #expect(try VCardReader.read(written).cards.first?.categories == ["Work", "Clients, EU"])
    }

    @Test func encodesParameterValuesWithRFC6868CaretsAndQuotes() throws {
        var adr = VCardProperty(name: "ADR", rawValue: ";;1 Main St;;;;")
        adr.parameters = [VCardParameter(name: "LABEL", value: "1 Main St\nTown, \"Here\" ^")]
        let written = VCardWriter(target: .v4_0).string(for: card(.v4_0, adr))
        #expect(written.contains("ADR;LABEL=\"1 Main St^nTown, ^'Here^' ^^\":;;1 Main St;;;;\r\n"))
        #expect(try VCardReader.read(written).cards.first?.addresses.first?.label == "1 Main St\nTown, \"Here\" ^")
    }

    @Test func writesAnUneditedCardBackByteForByte() throws {
        let text = "BEGIN:VCARD\nversion:3.0\nN:Doe;Jane;;;\nfn:Jane Doe\nNOTE:folded\n  oddly\nitem1.TEL;type=CELL;TYPE=pref:+1\n\nEND:VCARD"
        let result = try VCardReader.read(text)
        #expect(VCardWriter().string(for: result.cards[0]) == text)
    }

    @Test func rewritesOnlyTheEditedProperty() throws {
        let text = "BEGIN:VCARD\nVERSION:3.0\nN:Doe;Jane;;;\nFN:Jane Doe\nNOTE:old\nTEL;type=CELL:+1\nEND:VCARD\n"
        var edited = try #require(try VCardReader.read(text).cards.first)
        let index = try #require(edited.properties.firstIndex { $0.hasName("NOTE") })
        edited.properties[index].setText("new, edited")
        #expect(VCardWriter().string(for: edited)
            == "BEGIN:VCARD\nVERSION:3.0\nN:Doe;Jane;;;\nFN:Jane Doe\nNOTE:new\\, edited\r\nTEL;type=CELL:+1\nEND:VCARD\n")
    }

    @Test func convertsPreferenceBetweenVersions() throws {
        let v3 = "BEGIN:VCARD\r\nVERSION:3.0\r\nN:x;;;;\r\nFN:x\r\nTEL;TYPE=CELL,pref:+1\r\nEND:VCARD\r\n"
        let card3 = try #require(try VCardReader.read(v3).cards.first)
        let v4 = VCardWriter(target: .v4_0).string(for: card3)
        #expect(v4.contains("TEL;TYPE=CELL;PREF=1:+1\r\n"))
        let back = VCardWriter(target: .v3_0).string(for: try #require(try VCardReader.read(v4).cards.first))
        #expect(back.contains("TEL;TYPE=CELL;TYPE=pref:+1\r\n"))
    }

    @Test func convertsInlineBinaryToDataURIsAndBack() throws {
        let v3 = "BEGIN:VCARD\r\nVERSION:3.0\r\nN:x;;;;\r\nFN:x\r\nPHOTO;ENCODING=b;TYPE=JPEG:/9j/4AAQ\r\nEND:VCARD\r\n"
        let v4 = VCardWriter(target: .v4_0).string(for: try #require(try VCardReader.read(v3).cards.first))
        #expect(v4.contains("PHOTO:data:image/jpeg;base64,/9j/4AAQ\r\n"))
        let back = VCardWriter(target: .v3_0).string(for: try #require(try VCardReader.read(v4).cards.first))
        #expect(back.contains("PHOTO;ENCODING=b;TYPE=JPEG:/9j/4AAQ\r\n"))
    }

    @Test func movesLabelBetweenPropertyAndAddressParameter() throws {
        let v3 = "BEGIN:VCARD\r\nVERSION:3.0\r\nN:x;;;;\r\nFN:x\r\nADR;TYPE=HOME:;;1 Main St;Town;;;\r\nLABEL;TYPE=HOME:1 Main St\\nTown\r\nEND:VCARD\r\n"
        let v4 = VCardWriter(target: .v4_0).string(for: try #require(try VCardReader.read(v3).cards.first))
        #expect(v4.contains("ADR;TYPE=HOME;LABEL=1 Main St^nTown:;;1 Main St;Town;;;\r\n"))
        #expect(!v4.contains("\r\nLABEL"))
        let back = VCardWriter(target: .v3_0).string(for: try #require(try VCardReader.read(v4).cards.first))
        #expect(back.contains("ADR;TYPE=HOME:;;1 Main St;Town;;;\r\nLABEL;TYPE=HOME:1 Main St\\nTown\r\n"))
    }

    @Test func movesSortStringIntoTheNameAndBack() throws {
        let v3 = "BEGIN:VCARD\r\nVERSION:3.0\r\nN:Wójcik;Zdeňka;;;\r\nFN:Zdeňka Wójcik\r\nSORT-STRING:Wojcik\r\nEND:VCARD\r\n"
        let v4 = VCardWriter(target: .v4_0).string(for: try #require(try VCardReader.read(v3).cards.first))
        #expect(v4.contains("N;SORT-AS=Wojcik:Wójcik;Zdeňka;;;\r\n"))
        #expect(!v4.contains("SORT-STRING"))
        let back = VCardWriter(target: .v3_0).string(for: try #require(try VCardReader.read(v4).cards.first))
        #expect(back.contains("N:Wójcik;Zdeňka;;;\r\nSORT-STRING:Wojcik\r\n"))
    }

    @Test func keepsWhatTheTargetVersionLacksAndSaysSo() throws {
        let v4 = "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:x\r\nKIND:individual\r\nANNIVERSARY:19900101\r\nRELATED;TYPE=spouse:urn:uuid:1\r\nEND:VCARD\r\n"
        let card4 = try #require(try VCardReader.read(v4).cards.first)
        var output: [UInt8] = []
        let notes = VCardWriter(target: .v3_0).write(card4, into: &output)
        let text = String(decoding: output, as: UTF8.self)
        #expect(text.contains("KIND:individual") && text.contains("ANNIVERSARY:19900101") && text.contains("RELATED;TYPE=spouse:urn:uuid:1"))
        #expect(Set(notes.map(\.code.rawValue)) == ["property-not-in-version"])
        #expect(notes.count == 3)
    }

    @Test func converts21QuotedPrintableAndCharsetToUTF8() throws {
        let v21 = "BEGIN:VCARD\r\nVERSION:2.1\r\nN;CHARSET=ISO-8859-1;ENCODING=QUOTED-PRINTABLE:M=FCller;J=FCrgen\r\nNOTE;ENCODING=QUOTED-PRINTABLE:a, b=0D=0Ac\r\nEND:VCARD\r\n"
        let v4 = VCardWriter(target: .v4_0).string(for: try #require(try VCardReader.read(v21).cards.first))
        #expect(v4 == "BEGIN:VCARD\r\nVERSION:4.0\r\nN:Müller;Jürgen\r\nNOTE:a\\, b\\nc\r\nEND:VCARD\r\n")
    }

    @Test func writesTheVersionFirstWhenConverting() throws {
        let text = "BEGIN:VCARD\r\nFN:x\r\nVERSION:3.0\r\nN:x;;;;\r\nEND:VCARD\r\n"
        let v4 = VCardWriter(target: .v4_0).string(for: try #require(try VCardReader.read(text).cards.first))
        #expect(v4.hasPrefix("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:x\r\n"))
    }
}
