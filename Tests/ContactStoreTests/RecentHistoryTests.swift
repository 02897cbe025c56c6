@testable import ContactStore
import Foundation
import Testing
import TestSupport
import VCardKit

/// `history(limit:)` reads the journal from its end: it gives exactly the newest events the whole
/// read gives, whatever the filter, across lines longer than the chunks it reads; a line that
/// does not decode sends it back to the whole read, which names the line.
struct RecentHistoryTests {
    /// A journal of `count` events whose cards carry `noteBytes` of text each, so that lines cross
    /// the backward reader's 1 MiB chunks.
    private func journal(count: Int, noteBytes: Int) throws -> (path: String, lines: [[UInt8]]) {
        let folder = try TestPaths.makeTemporaryDirectory("recent-history")
        let path = folder.appendingPathComponent("journal.jsonl").path
        var lines: [[UInt8]] = []
        for sequence in 1...count {
            let note = String(repeating: "n", count: noteBytes + sequence % 7)
            var event = JournalEvent(operation: sequence % 5 == 0 ? .delete : .add, uid: "u\(sequence % 4)", file: "u\(sequence % 4).vcf",
                                     hash: nil, previousHash: nil, source: .folder, name: "Person \(sequence)",
                                     card: Array("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:P\r\nNOTE:\(note)\r\nEND:VCARD\r\n".utf8))
            event.sequence = sequence
            event.timestamp = 1_764_063_000_000 + Int64(sequence)
            lines.append(JournalLine.encode(event))
        }
        try Data(lines.joined()).write(to: URL(fileURLWithPath: path))
        return (path, lines)
    }

    private func sequences(backwardFrom path: String, end: Int64, take: Int, where isIncluded: (JournalEvent) -> Bool = { _ in true })
        throws -> (clean: Bool, sequences: [Int]) {
        var found: [Int] = []
        let clean = try JournalFile.readBackward(path, endingAt: end) { event in
            #expect(event.card == nil)
            if isIncluded(event) { found.append(event.sequence) }
            return found.count < take
        }
        return (clean, found)
    }

    @Test func theNewestEventsComeFirstAcrossLongLines() throws {
        let (path, lines) = try journal(count: 12, noteBytes: 260_000)
        let size = Int64(lines.reduce(0) { $0 + $1.count })
        #expect(size > 3 * 1_000_000)  // the reader's 1 MiB chunks end inside lines
        for take in [1, 3, 7, 12, 100] {
            let read = try sequences(backwardFrom: path, end: size, take: take)
            #expect(read.clean)
            #expect(read.sequences == Array((1...12).reversed().prefix(take)))
        }
        let deletes = try sequences(backwardFrom: path, end: size, take: 3) { $0.operation == .delete }
        #expect(deletes.sequences == [10, 5])
        let ofOne = try sequences(backwardFrom: path, end: size, take: 100) { $0.uid == "u1" }
        #expect(ofOne.sequences == [9, 5, 1])
    }

    @Test func onlyTheLinesBeforeTheGivenEndAreRead() throws {
        let (path, lines) = try journal(count: 10, noteBytes: 10)
        let firstSix = Int64(lines.prefix(6).reduce(0) { $0 + $1.count })
        #expect(try sequences(backwardFrom: path, end: firstSix, take: 100).sequences == [6, 5, 4, 3, 2, 1])
    }

    @Test func aDamagedLineIsReportedNotSkipped() throws {
        let (path, lines) = try journal(count: 8, noteBytes: 10)
        var bytes = lines
        bytes[3] = Array(#"{"op":"add","damaged":"#.utf8) + [0x0A]
        try Data(bytes.joined()).write(to: URL(fileURLWithPath: path))
        let size = Int64(bytes.reduce(0) { $0 + $1.count })
        // The newest four are past the damage: read cleanly.
        let recent = try sequences(backwardFrom: path, end: size, take: 4)
        #expect(recent.clean && recent.sequences == [8, 7, 6, 5])
        // Reaching it: not clean, so the book reads forward and names line 4.
        #expect(try !sequences(backwardFrom: path, end: size, take: 100).clean)
    }

    @Test func aBooksLimitedHistoryIsTheNewestOfItsWholeHistory() async throws {
        let book = try makeBook()
        for index in 0..<12 { try book.write(cardText(uid: "c\(index)", name: "Person \(index)"), to: "c\(index).vcf") }
        try await AddressBook.withOpen(at: book) { _ in }
        try book.write(cardText(uid: "c3", name: "Person Three"), to: "c3.vcf")
        try FileManager.default.removeItem(at: book.appendingPathComponent("c5.vcf"))
        try await AddressBook.withOpen(at: book) { book in
            let whole = try await book.history()
            #expect(whole.count == 14)
            for limit in [1, 2, 5, 14, 50] {
                #expect(try await book.history(limit: limit).map(\.sequence) == whole.prefix(limit).map(\.sequence))
            }
            #expect(try await book.history(of: "c3", limit: 5).map(\.operation) == [.update, .add])
            #expect(try await book.history(limit: 1) { $0.operation == .add }.map(\.uid) == [whole.first { $0.operation == .add }!.uid])
            #expect(try await book.history(limit: 0).isEmpty)
        }
    }
}
