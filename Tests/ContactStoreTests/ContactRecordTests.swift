@testable import ContactStore
import Testing
import VCardKit

/// A contact's record keeps its current and last hash in one field: what it says must be what
/// two separate fields said, and a record stays small (the index holds one per contact).
@Suite struct ContactRecordTests {
    private let first = ContentHash(words: (1, 2, 3, 4))
    private let second = ContentHash(words: (5, 6, 7, 8))

    private func record(hash: ContentHash?, lastHash: ContentHash?) -> ContactRecord {
        ContactRecord(uid: "u", isGeneratedUID: false, file: "u.vcf", hash: hash, lastHash: lastHash, name: nil,
                      createdSequence: 1, sequence: 1)
    }

    @Test func aLiveContactsLastHashIsItsCurrentOne() {
        var record = record(hash: first, lastHash: first)
        #expect(record.hash == first && record.lastHash == first && !record.isDeleted)
        record.hash = second
        #expect(record.hash == second && record.lastHash == second)
    }

    @Test func aDeletionKeepsTheLastVersionAndARestoreReplacesIt() {
        var record = record(hash: first, lastHash: first)
        record.hash = nil
        #expect(record.isDeleted && record.hash == nil && record.lastHash == first)
        record.markDeleted(lastHash: second)
        #expect(record.isDeleted && record.lastHash == second)
        record.setCurrent(first)
        #expect(!record.isDeleted && record.hash == first && record.lastHash == first)
    }

    @Test func aDeletedContactWithNoKnownVersionHasNoHashes() {
        let unknown = record(hash: nil, lastHash: nil)
        #expect(unknown.isDeleted && unknown.hash == nil && unknown.lastHash == nil)
        var forgotten = record(hash: first, lastHash: first)
        forgotten.markDeleted(lastHash: nil)
        #expect(forgotten == unknown, "equal records whatever hash they held before")
    }

    @Test func flagsAndEditTimeAreKeptApart() {
        var record = record(hash: first, lastHash: first)
        record.isGeneratedUID = true
        record.modified = 100
        #expect(record.isGeneratedUID && !record.isDeleted && record.edited == nil && record.editTime == 100)
        record.edited = 40
        record.hash = nil
        #expect(record.isGeneratedUID && record.edited == 40 && record.editTime == 40)
        record.isGeneratedUID = false
        record.edited = nil
        #expect(!record.isGeneratedUID && record.isDeleted && record.lastHash == first && record.editTime == 100)
    }

    @Test func aRecordTakesAtMost120Bytes() {
        #expect(MemoryLayout<ContactRecord>.stride <= 120)
    }
}
