import Testing
@testable import VCardKit

/// The reader's rules, one behaviour per test.
@Suite struct ReaderTests {
    private func read(_ text: String, options: VCardReadOptions = .lenient) throws -> VCardReadResult {
        try VCardReader.read(text, sourceName: "test.vcf", options: options)
    }

    private func codes(_ result: VCardReadResult) -> Set<String> {
        Set(result.diagnostics.map(\.code.rawValue))
    }

    @Test(arguments: ["\r\n", "\n", "\r", "\r\r\n"])
    func readsEveryLineEnding(_ lineEnd: String) throws {
        let text = ["BEGIN:VCARD", "VERSION:3.0", "N:Doe;Jane;;;", "FN:Jane Doe", "END:VCARD"].joined(separator: lineEnd) + lineEnd
        let result = try read(text)
        #expect(result.cards.count == 1)
        #expect(result.cards[0].formattedName == "Jane Doe")
        #expect(!result.hasErrors)
    }

    @Test func readsTheLastLineWithoutALineEnd() throws {
        let result = try read("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:A\r\nEND:VCARD")
        #expect(result.cards.count == 1)
        #expect(VCardWriter().string(for: result.cards[0]) == "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:A\r\nEND:VCARD")
    }

    @Test func skipsAUTF8ByteOrderMarkWithAWarning() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Zoë\r\nEND:VCARD\r\n".utf8)
        let result = try VCardReader.read(bytes)
        #expect(result.cards.first?.formattedName == "Zoë")
        #expect(codes(result).contains("byte-order-mark"))
    }

    @Test(arguments: [true, false], [true, false])
    func readsUTF16(littleEndian: Bool, withBOM: Bool) throws {
        let text = "BEGIN:VCARD\r\nVERSION:3.0\r\nN:;Łukasz;;;\r\nFN:Łukasz 😀\r\nEND:VCARD\r\n"
        var bytes: [UInt8] = withBOM ? (littleEndian ? [0xFF, 0xFE] : [0xFE, 0xFF]) : []
        for unit in text.utf16 {
            bytes += littleEndian ? [UInt8(unit & 0xFF), UInt8(unit >> 8)] : [UInt8(unit >> 8), UInt8(unit & 0xFF)]
        }
        let result = try VCardReader.read(bytes)
        #expect(result.cards.first?.formattedName == "Łukasz 😀")
    }

    @Test(arguments: [" ", "\t"])
    func unfoldsLinesStartingWithSpaceOrTab(_ fold: String) throws {
        let result = try read("BEGIN:VCARD\r\nVERSION:4.0\r\nNOTE:Hello\r\n\(fold)World\r\nFN:x\r\nEND:VCARD\r\n")
        #expect(result.cards[0].first("NOTE")?.textValue == "HelloWorld")
    }

    @Test func rejoinsAFoldThatSplitsAUTF8Sequence() throws {
        let bytes = Array("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Caf".utf8) + [0xC3, 0x0D, 0x0A, 0x20, 0xA9] + Array("\r\nEND:VCARD\r\n".utf8)
        let result = try VCardReader.read(bytes)
        #expect(result.cards[0].formattedName == "Café")
    }

    @Test func decodesQuotedPrintableWithSoftLineBreaksAndUnindentedContinuations() throws {
        let text = """
        BEGIN:VCARD\r
        VERSION:2.1\r
        N:Doe;John\r
        NOTE;ENCODING=QUOTED-PRINTABLE;CHARSET=UTF-8:Line one=0D=0ALine =\r
        two is caf=C3=A9=\r
        \r
        END:VCARD\r

        """
        let result = try read(text)
        #expect(result.cards[0].first("NOTE")?.textValue == "Line one\nLine two is café")
    }

    @Test func decodesBareQuotedPrintableParameterOf21() throws {
        let result = try read("BEGIN:VCARD\r\nVERSION:2.1\r\nN;QUOTED-PRINTABLE:M=C3=BCller;Hans\r\nEND:VCARD\r\n")
        #expect(result.cards[0].structuredName?.family == ["Müller"])
        #expect(result.cards[0].first("N")?.parameter("ENCODING")?.isNameless == true)
    }

    @Test(arguments: [
        ("ISO-8859-1", [0x4D, 0xFC, 0x6C, 0x6C, 0x65, 0x72] as [UInt8], "Müller"),
        ("WINDOWS-1252", [0x80, 0x31], "€1"),
        ("SHIFT_JIS", [0x93, 0xFA, 0x96, 0x7B], "日本"),
        ("GB18030", [0xD6, 0xD0, 0xCE, 0xC4], "中文"),
        ("BIG5", [0xA4, 0xA4, 0xA4, 0xE5], "中文"),
        ("KOI8-R", [0xF0, 0xD2, 0xC9, 0xD7, 0xC5, 0xD4], "Привет"),
        ("EUC-JP", [0xC6, 0xFC, 0xCB, 0xDC], "日本"),
    ])
    func decodesCharsets(_ charset: String, _ bytes: [UInt8], _ expected: String) throws {
        let input = Array("BEGIN:VCARD\r\nVERSION:2.1\r\nN:x\r\nFN;CHARSET=\(charset):".utf8) + bytes + Array("\r\nEND:VCARD\r\n".utf8)
        let result = try VCardReader.read(input)
        #expect(result.cards[0].formattedName == expected)
    }

    @Test func warnsAboutAnUnknownCharsetAndFallsBack() throws {
        let input = Array("BEGIN:VCARD\r\nVERSION:2.1\r\nN:x\r\nFN;CHARSET=X-NOPE:".utf8) + [0x4D, 0xFC] + Array("\r\nEND:VCARD\r\n".utf8)
        let result = try VCardReader.read(input)
        #expect(result.cards[0].formattedName == "Mü")
        #expect(codes(result).contains("unknown-charset"))
    }

    @Test func namesBareParametersOf21() throws {
        let result = try read("BEGIN:VCARD\r\nVERSION:2.1\r\nN:x\r\nTEL;HOME;VOICE:+1 555 0100\r\nEND:VCARD\r\n")
        let tel = try #require(result.cards[0].first("TEL"))
        #expect(tel.types == ["home", "voice"])
        #expect(tel.parameters.allSatisfy { $0.isNameless })
        #expect(!codes(result).contains("bare-parameter"))
    }

    @Test func warnsAboutBareParametersOutside21() throws {
        let result = try read("BEGIN:VCARD\r\nVERSION:3.0\r\nN:x;;;;\r\nFN:x\r\nTEL;HOME:+1\r\nEND:VCARD\r\n")
        #expect(codes(result).contains("bare-parameter"))
        #expect(result.cards[0].first("TEL")?.types == ["home"])
    }

    @Test func readsQuotedParameterValuesContainingDelimiters() throws {
        let result = try read("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:x\r\nADR;LABEL=\"1 Main St.;Apt 2, Town: Here\";TYPE=home:;;1 Main St.;;;;\r\nEND:VCARD\r\n")
        let adr = try #require(result.cards[0].first("ADR"))
        #expect(adr.parameter("LABEL")?.values == ["1 Main St.;Apt 2, Town: Here"])
        #expect(adr.types == ["home"])
    }

    @Test func decodesRFC6868CaretEscapes() throws {
        let result = try read("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:x\r\nADR;LABEL=\"a^nb ^^ ^'q^'\":;;;;;;\r\nEND:VCARD\r\n")
        #expect(result.cards[0].first("ADR")?.parameter("LABEL")?.values == ["a\nb ^ \"q\""])
    }

    @Test func readsBase64BlocksWithUnindentedContinuationLines() throws {
        let text = "BEGIN:VCARD\r\nVERSION:2.1\r\nN:x\r\nPHOTO;ENCODING=BASE64;TYPE=JPEG:/9j/4AAQ\r\nSkZJRgAB\r\nAQAAAQ==\r\n\r\nEND:VCARD\r\n"
        let result = try read(text)
        let photo = try #require(result.cards[0].first("PHOTO"))
        #expect(photo.rawValue == "/9j/4AAQSkZJRgABAQAAAQ==")
        #expect(photo.binaryData == [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01])
    }

    @Test func readsSeveralCardsAndReportsTextBetweenThem() throws {
        let text = "junk before\r\nBEGIN:VCARD\r\nVERSION:4.0\r\nFN:A\r\nEND:VCARD\r\n\r\nmore junk\r\nBEGIN:VCARD\r\nVERSION:4.0\r\nFN:B\r\nEND:VCARD\r\n"
        let result = try read(text)
        #expect(result.cards.map(\.formattedName) == ["A", "B"])
        #expect(result.diagnostics.filter { $0.code.rawValue == "text-outside-card" }.map(\.location.line) == [1, 7])
    }

    @Test func readsANested21AgentCard() throws {
        let text = "BEGIN:VCARD\r\nVERSION:2.1\r\nN:Boss\r\nAGENT:\r\nBEGIN:VCARD\r\nVERSION:2.1\r\nN:Assistant\r\nEND:VCARD\r\nTEL:+1\r\nEND:VCARD\r\n"
        let result = try read(text)
        #expect(result.cards.count == 1)
        let agent = try #require(result.cards[0].first("AGENT"))
        #expect(agent.textValue.contains("N:Assistant"))
        #expect(result.cards[0].first("TEL")?.rawValue == "+1")
    }

    @Test func readsLowerCasePropertyNames() throws {
        let result = try read("begin:vcard\r\nversion:3.0\r\nn:Doe;J;;;\r\nfn:J Doe\r\nend:vcard\r\n")
        #expect(result.cards.first?.formattedName == "J Doe")
        #expect(!result.hasErrors)
    }

    @Test func reportsACardWithoutEndAsAnErrorNamingItsLine() throws {
        let result = try read("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:A\r\nEND:VCARD\r\nBEGIN:VCARD\r\nVERSION:4.0\r\nFN:B\r\n")
        #expect(result.cards.map(\.formattedName) == ["A"])
        let error = try #require(result.diagnostics.first { $0.severity == .error })
        #expect(error.code.rawValue == "missing-end")
        #expect(error.location == SourceLocation(source: "test.vcf", line: 5, column: 1))
    }

    @Test func readsNoMoreThanTheMaximumNumberOfCards() throws {
        let text = (1...5).map { "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:N\($0)\r\nEND:VCARD\r\n" }.joined()
        let result = try VCardReader.read(text, sourceName: "test.vcf", options: VCardReadOptions(maximumCards: 3))
        #expect(result.cards.map(\.formattedName) == ["N1", "N2", "N3"])
        let errors = result.diagnostics.filter { $0.severity == .error }
        #expect(errors.map(\.code.rawValue) == ["limit-exceeded"])
        #expect(errors.first?.location == SourceLocation(source: "test.vcf", line: 13, column: 1))
    }

    @Test func reportsInputWithoutCards() throws {
        #expect(try read("hello\r\n").diagnostics.contains { $0.code.rawValue == "missing-begin" && $0.severity == .error })
        #expect(try read("").diagnostics.contains { $0.code.rawValue == "empty-input" && $0.severity == .error })
    }

    @Test func locatesProblemsOnTheFoldedLineAsWritten() throws {
        let result = try read("BEGIN:VCARD\r\nVERSION:3.0\r\nN:x;;;;\r\nFN:x\r\nNOTE:a\r\n b\r\nTEL;TYPE=;HOME:1\r\nEND:VCARD\r\n")
        let bare = try #require(result.diagnostics.first { $0.code.rawValue == "bare-parameter" })
        #expect(bare.location.line == 7)
        #expect(bare.location.column == 11)
    }

    @Test func keepsUnknownXAndGroupedProperties() throws {
        let result = try read("BEGIN:VCARD\r\nVERSION:3.0\r\nN:x;;;;\r\nFN:x\r\nitem1.EMAIL;type=INTERNET:a@b.c\r\nitem1.X-ABLabel:_$!<Other>!$_\r\nX-FOO;X-BAR=1:baz\r\nEND:VCARD\r\n")
        let card = result.cards[0]
        #expect(card.first("EMAIL")?.group == "item1")
        #expect(card.first("X-ABLABEL")?.rawValue == "_$!<Other>!$_")
        #expect(card.first("X-FOO")?.parameter("X-BAR")?.values == ["1"])
    }

    @Test func strictModeStopsAtTheFirstDeviation() throws {
        #expect(throws: VCardError.self) {
            try read("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:x\r\nEND:VCARD\r\n", options: .strict)
        }
        let clean = try read("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:x\r\nEND:VCARD\r\n", options: .strict)
        #expect(clean.cards.count == 1)
    }

    @Test func streamsCardByCardWhateverTheChunkSize() throws {
        let text = (0..<50).map { "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Person \($0)\r\nNOTE:\(String(repeating: "x", count: $0 * 7))\r\nEND:VCARD\r\n" }.joined()
        let bytes = Array(text.utf8)
        for chunkSize in [1, 2, 3, 7, 64, 4096] {
            var parser = VCardParser()
            var names: [String] = []
            var offset = 0
            while offset < bytes.count {
                parser.feed(bytes[offset..<min(offset + chunkSize, bytes.count)])
                while let card = parser.nextCard() { names.append(card.formattedName ?? "") }
                offset += chunkSize
            }
            parser.finish()
            while let card = parser.nextCard() { names.append(card.formattedName ?? "") }
            #expect(names == (0..<50).map { "Person \($0)" }, "chunk size \(chunkSize)")
            let all = try VCardReader.read(bytes).cards
            #expect(VCardWriter().bytes(for: all) == bytes)
        }
    }

    /// Whatever the chunks, a card or frame handed out keeps its own bytes and positions while
    /// the parser reads on and moves its buffer (guards any change to how frames hold their bytes).
    @Test(arguments: [1, 5, 64, 1000, 70_000])
    func cardsAndFramesKeepTheirBytesWhileTheParserReadsOn(chunkSize: Int) throws {
        let cards = (0..<120).map { n in
            (n % 9 == 0 ? "\r\n" : "")
                + "BEGIN:VCARD\r\nVERSION:\(n % 2 == 0 ? "4.0" : "3.0")\r\nUID:card-\(n)\r\nFN:Person \(n)\r\n"
                + "NOTE:\(String(repeating: "n\(n)-", count: n * 40))\r\nEND:VCARD\r\n"
        }
        let bytes = Array(cards.joined().utf8)
        for options in [VCardReadOptions.lenient, .deferringPlainCards] {
            var parser = VCardParser(sourceName: "cards.vcf", options: options)
            var framer = VCardParser(framingOnly: "cards.vcf", options: options)
            var read: [VCard] = [], frames: [VCardFrame] = []
            var offset = 0
            while offset < bytes.count {
                let chunk = bytes[offset..<min(offset + chunkSize, bytes.count)]
                parser.feed(chunk)
                framer.feed(chunk)
                while let card = parser.nextCard() { read.append(card) }
                while let frame = framer.nextFrame() { frames.append(frame) }
                offset += chunkSize
            }
            parser.finish()
            framer.finish()
            while let card = parser.nextCard() { read.append(card) }
            while let frame = framer.nextFrame() { frames.append(frame) }

            #expect(read.count == cards.count && frames.count == cards.count, "chunks of \(chunkSize)")
            for (n, expected) in cards.enumerated() where n < read.count && n < frames.count {
                let text = Array(expected.utf8).drop { $0 == 0x0D || $0 == 0x0A }
                #expect(Array(frames[n].text) == Array(text), "frame \(n), chunks of \(chunkSize)")
                #expect(frames[n].firstLine == 1 + cards[..<n].reduce(0) { $0 + $1.utf8.count { $0 == 0x0A } } + (n % 9 == 0 ? 1 : 0))
                let parsed = try #require(frames[n].parse().card)
                for card in [read[n], parsed] {
                    #expect(card.uid == "card-\(n)" && card.formattedName == "Person \(n)")
                    #expect(VCardWriter(target: nil).bytes(for: [card]) == Array(expected.utf8), "card \(n), chunks of \(chunkSize)")
                }
            }
        }
    }

    /// Reading straight into the parser's buffer is the same as feeding chunks read elsewhere:
    /// the same frames (bytes and first lines), diagnostics and blank lines at the end, whatever
    /// the room offered and however little each read fills of it; UTF-8 with a byte order mark
    /// and UTF-16 (decoded as it is appended) included.
    @Test(arguments: [1, 3, 64, 1000, 70_000])
    func readingIntoTheBufferMatchesFeedingChunks(room: Int) throws {
        let cards = (0..<40).map { n in
            (n % 7 == 0 ? "\r\n\r\n" : "")
                + "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:u-\(n)\r\nFN:Łukasz \(n) 😀\r\n"
                + (n % 5 == 0 ? "# not a content line\r\n" : "")
                + "NOTE:\(String(repeating: "ä\(n)", count: n * 30))\r\nEND:VCARD\r\n"
        }
        let text = cards.joined() + "\r\n"
        let utf16 = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let inputs: [(String, [UInt8])] = [
            ("UTF-8", Array(text.utf8)),
            ("UTF-8 with a byte order mark", [0xEF, 0xBB, 0xBF] + Array(text.utf8)),
            ("UTF-16", [0xFF, 0xFE] + utf16),
            ("no line end at the end", Array(text.dropLast(2).utf8)),
        ]
        for (name, bytes) in inputs {
            var fed = VCardParser(framingOnly: "in.vcf")
            for start in stride(from: 0, to: bytes.count, by: 997) { fed.feed(bytes[start..<min(start + 997, bytes.count)]) }
            fed.finish()
            var read = VCardParser(framingOnly: "in.vcf")
            var offset = 0, calls = 0
            while true {
                // Each read fills at most half the room it is given (at least one byte).
                let count = read.feed(readingUpTo: room) { free in
                    let count = min(max(1, free.count / 2), bytes.count - offset)
                    _ = free.initialize(from: bytes[offset..<offset + count])
                    offset += count
                    return count
                }
                calls += 1
                if count == 0 { break }
            }
            read.finish()
            #expect(offset == bytes.count, "\(name), room \(room)")
            var fedFrames: [VCardFrame] = [], readFrames: [VCardFrame] = []
            while let frame = fed.nextFrame() { fedFrames.append(frame) }
            while let frame = read.nextFrame() { readFrames.append(frame) }
            #expect(readFrames.count == cards.count, "\(name), room \(room)")
            #expect(readFrames.map(\.text) == fedFrames.map(\.text), "\(name), room \(room)")
            #expect(readFrames.map(\.firstLine) == fedFrames.map(\.firstLine), "\(name), room \(room)")
            #expect(read.takeDiagnostics() == fed.takeDiagnostics(), "\(name), room \(room)")
            #expect(read.blankLinesAtEnd == fed.blankLinesAtEnd && !read.blankLinesAtEnd.isEmpty == name.hasPrefix("UTF"), "\(name)")
        }
    }

    /// A read that fails adds nothing to what the parser holds: the error reaches the caller and
    /// the parser goes on from where it was.
    @Test func aFailedReadIntoTheBufferAddsNothing() throws {
        struct ReadFailed: Error {}
        let bytes = Array("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:A\r\nEND:VCARD\r\n".utf8)
        var parser = VCardParser(framingOnly: "in.vcf")
        parser.feed(bytes[..<20])
        #expect(throws: ReadFailed.self) {
            try parser.feed(readingUpTo: 4096) { (free: UnsafeMutableBufferPointer<UInt8>) throws(ReadFailed) -> Int in
                free.initialize(repeating: 0x41)
                throw ReadFailed()
            }
        }
        parser.feed(bytes[20...])
        parser.finish()
        let frame = parser.nextFrame()
        let after = parser.nextFrame()
        #expect(frame.map { Array($0.text) } == bytes)
        let noneAfter = after == nil
        #expect(noneAfter)
    }

    @Test func skipsACardLargerThanTheLimit() throws {
        let big = "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Big\r\nNOTE:\(String(repeating: "y", count: 5000))\r\nEND:VCARD\r\n"
        let small = "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Small\r\nEND:VCARD\r\n"
        let result = try read(big + small, options: VCardReadOptions(maximumCardBytes: 1000))
        #expect(result.cards.map(\.formattedName) == ["Small"])
        #expect(result.diagnostics.contains { $0.code.rawValue == "limit-exceeded" && $0.location.line == 1 })
    }
}
