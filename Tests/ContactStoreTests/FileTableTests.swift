@testable import ContactStore
import Testing

/// The summary's table of tracked files behaves as a dictionary from file name to file: what is
/// set is found by name (as a `String` or as bytes), a removed name is gone and can come back,
/// growth keeps every entry, and two tables are equal when they hold the same live entries,
/// whatever the order or the removals that led there.
@Suite struct FileTableTests {
    private func file(_ size: Int64, live: Bool = true) -> IndexSummary.TrackedFile {
        IndexSummary.TrackedFile(stamp: FileStamp(size: size, modified: size * 10, changed: size * 20, inode: UInt64(size)), isLive: live)
    }

    private func name(_ index: Int) -> String { "\(index)-0f8fad5b-d9cb-469f-a165-70867728950e.vcf" }

    @Test func whatIsSetIsFoundByNameAndByBytes() {
        var table = FileTable()
        table["a.vcf"] = file(1)
        table["é-ü.vcf"] = file(2, live: false)
        #expect(table.count == 2)
        #expect(table["a.vcf"] == file(1))
        #expect(table["é-ü.vcf"] == file(2, live: false))
        #expect(table["b.vcf"] == nil)
        #expect(table["A.vcf"] == nil)
        let bytes = Array("a.vcf".utf8)
        #expect(bytes.withUnsafeBufferPointer { table[bytes: $0] } == file(1))
    }

    @Test func settingAgainReplacesAndReturnsWhatWasThere() {
        var table = FileTable()
        #expect(table.updateValue(file(1), forKey: "a.vcf") == nil)
        #expect(table.updateValue(file(2), forKey: "a.vcf") == file(1))
        #expect(table.count == 1)
        #expect(table["a.vcf"] == file(2))
    }

    @Test func aRemovedNameIsGoneAndCanComeBack() {
        var table = FileTable()
        table["a.vcf"] = file(1)
        table["b.vcf"] = file(2)
        #expect(table.removeValue(forKey: "a.vcf") == file(1))
        #expect(table.removeValue(forKey: "a.vcf") == nil)
        #expect(table.count == 1 && table["a.vcf"] == nil)
        #expect(table.names == ["b.vcf"])
        table["a.vcf"] = file(3)
        #expect(table.count == 2 && table["a.vcf"] == file(3))
        table["c.vcf"] = nil
        #expect(table.count == 2)
    }

    @Test func growingKeepsEveryEntry() {
        var table = FileTable()
        for index in 0..<5000 { table[name(index)] = file(Int64(index), live: index.isMultiple(of: 3)) }
        for index in stride(from: 0, to: 5000, by: 2) { table[name(index)] = nil }
        #expect(table.count == 2500)
        for index in 0..<5000 {
            #expect(table[name(index)] == (index.isMultiple(of: 2) ? nil : file(Int64(index), live: index.isMultiple(of: 3))))
        }
        #expect(table.names == (0..<5000).filter { !$0.isMultiple(of: 2) }.map(name))
    }

    @Test func manyRemovalsAndNewNamesKeepEveryLiveEntry() {
        var table = FileTable()
        for round in 0..<6 {
            for index in 0..<1000 { table[name(round * 1000 + index)] = file(Int64(index)) }
            for index in 0..<1000 where round < 5 || index.isMultiple(of: 2) { table[name(round * 1000 + index)] = nil }
        }
        #expect(table.count == 500)
        #expect(table.names == stride(from: 5001, to: 6000, by: 2).map(name))
        #expect(table[name(5001)] == file(1) && table[name(5000)] == nil && table[name(10)] == nil)
    }

    @Test func equalityIgnoresOrderAndRemovedEntries() {
        var forward = FileTable()
        for index in 0..<100 { forward[name(index)] = file(Int64(index)) }
        var backward: FileTable = ["gone.vcf": file(7)]
        for index in (0..<100).reversed() { backward[name(index)] = file(Int64(index)) }
        #expect(forward != backward)
        backward["gone.vcf"] = nil
        #expect(forward == backward)
        backward[name(5)] = file(6)
        #expect(forward != backward)
    }

    @Test func filterKeepsWhatMatches() {
        var table = FileTable()
        for index in 0..<10 { table[name(index)] = file(Int64(index), live: index < 4) }
        let live = table.filter { _, file in file.isLive }
        #expect(live.names == (0..<4).map(name))
        #expect(live[name(2)] == file(2))
    }
}
