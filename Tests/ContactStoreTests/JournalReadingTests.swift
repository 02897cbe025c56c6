@testable import ContactStore
import Foundation
import Testing
import TestSupport

/// Reading the journal forward decodes lines on every core but hands them on strictly in order,
/// with their offsets and numbers, across the reader's chunks; damage is named or collected at
/// the line where it is, exactly as a line-by-line read would.
struct JournalReadingTests {
    /// A journal of `count` events; the line numbers in `damaged` are not JSON, those in `blank`
    /// are spaces, and those in `regressing` repeat an earlier sequence number.
    private func journal(count: Int, noteBytes: Int, damaged: Set<Int> = [], blank: Set<Int> = [], regressing: Set<Int> = [])
        throws -> (path: String, lines: [[UInt8]]) {
        let folder = try TestPaths.makeTemporaryDirectory("journal-reading")
        let path = folder.appendingPathComponent("journal.jsonl").path
        var lines: [[UInt8]] = []
        for number in 1...count {
            if blank.contains(number) {
                lines.append(Array("   \n".utf8))
                continue
            }
            var event = JournalEvent(operation: .add, uid: "u\(number)", file: "u\(number).vcf", hash: nil, previousHash: nil,
                                     source: .folder, name: "Person \(number)",
                                     card: Array("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:P\r\nNOTE:\(String(repeating: "n", count: noteBytes))\r\nEND:VCARD\r\n".utf8))
            event.sequence = regressing.contains(number) ? 1 : number
            event.timestamp = 1_764_063_000_000 + Int64(number)
            var line = JournalLine.encode(event)
            if damaged.contains(number) { line[line.count / 2] = UInt8(ascii: "{") }
            lines.append(line)
        }
        try Data(lines.joined()).write(to: URL(fileURLWithPath: path))
        return (path, lines)
    }

    private func offsets(of lines: [[UInt8]]) -> [Int64] {
        var result: [Int64] = []
        var offset: Int64 = 0
        for line in lines {
            result.append(offset)
            offset += Int64(line.count)
        }
        return result
    }

    @Test func linesAreHandedOnInOrderAcrossChunksWithDamageCollectedWhereItIs() throws {
        // About 5.5 MB: two of the reader's 4 MiB chunks, a line cut by the chunk boundary.
        let (path, lines) = try journal(count: 2400, noteBytes: 2000, damaged: [1200, 2399], blank: [1800], regressing: [2100])
        let starts = offsets(of: lines)
        var seen: [(number: Int, offset: Int64, sequence: Int)] = []
        var damage: [JournalFile.Damage] = []
        try JournalFile.read(path, repairHint: "cardsync check --repair", collectingDamage: &damage) { line in
            seen.append((line.number, line.offset, line.event.sequence))
        }
        let expected = (1...2400).filter { ![1200, 2399, 1800, 2100].contains($0) }
        #expect(seen.map(\.number) == expected)
        #expect(seen.map(\.sequence) == expected)
        #expect(seen.allSatisfy { $0.offset == starts[$0.number - 1] })
        #expect(damage.map(\.number) == [1200, 2100, 2399])
        #expect(damage.map(\.offset) == [starts[1199], starts[2099], starts[2398]])
        #expect(damage.map(\.length) == [lines[1199].count - 1, lines[2099].count - 1, lines[2398].count - 1])
        #expect(damage[1].reason.contains("does not follow"))
    }

    @Test func withoutCollectingTheFirstDamagedLineStopsTheReadAfterEveryLineBeforeIt() throws {
        let (path, _) = try journal(count: 1200, noteBytes: 400, damaged: [700, 900])
        var numbers: [Int] = []
        #expect {
            try JournalFile.read(path, repairHint: "cardsync check --repair") { line in numbers.append(line.number) }
        } throws: { error in
            let error = error as? ContactStoreError
            return error?.code == .journalDamaged && error?.line == 700 && error!.message.contains("cardsync check --repair")
        }
        #expect(numbers == Array(1...699))
    }

    @Test func readingFromAnOffsetNumbersLinesFromTheGivenLine() throws {
        let (path, lines) = try journal(count: 400, noteBytes: 200)
        let starts = offsets(of: lines)
        var seen: [(number: Int, offset: Int64)] = []
        try JournalFile.read(path, from: starts[100], firstLineNumber: 101, previousSequence: 100, repairHint: "") { line in
            seen.append((line.number, line.offset))
        }
        #expect(seen.map(\.number) == Array(101...400))
        #expect(seen.allSatisfy { $0.offset == starts[$0.number - 1] })
    }

    /// The reader sizes its chunks by what is left when it starts (a short tail gets a small
    /// chunk), and reads on to the end: lines appended while it reads are handed on too.
    @Test func aShortTailIsReadWholeWithLinesAppendedWhileItIsRead() throws {
        let (path, lines) = try journal(count: 200, noteBytes: 40)
        let (_, more) = try journal(count: 1400, noteBytes: 200)
        let starts = offsets(of: lines)
        var numbers: [Int] = []
        try JournalFile.read(path, from: starts[190], firstLineNumber: 191, previousSequence: 190, repairHint: "") { line in
            numbers.append(line.number)
            if line.number == 191 {
                // Lines 201…1600 (about 400 KB, more than the chunk sized for ten short lines).
                let handle = try! FileHandle(forWritingTo: URL(fileURLWithPath: path))
                handle.seekToEndOfFile()
                handle.write(Data(more[200...].joined()))
                try! handle.close()
            }
        }
        #expect(numbers == Array(191...1400))
    }
}
