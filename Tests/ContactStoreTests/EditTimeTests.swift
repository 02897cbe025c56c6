import ContactStore
import Foundation
import Synchronization
import Testing
import TestSupport

/// An edit another program made in the folder is dated by its file's modification time, bounded
/// by the previous scan and now (issue 20); the time is kept in the journal as `edited`.
struct EditTimeTests {
    static let minute: Int64 = 60_000
    static let hour: Int64 = 60 * minute
    /// 2031-03-14T08:00:00Z.
    static let start: Int64 = 1_931_241_600_000

    /// A clock the test moves by hand.
    final class ManualClock: Sendable {
        private let time = Mutex<Int64>(EditTimeTests.start)
        func move(to moment: Int64) { time.withLock { $0 = moment } }
        var clock: WallClock { WallClock { self.time.withLock { $0 } } }
    }

    func open<T: Sendable>(_ book: URL, _ clock: ManualClock, _ body: (AddressBook) async throws -> T) async throws -> T {
        try await AddressBook.withOpen(at: book, options: .init(clock: clock.clock), body)
    }

    func setModified(_ book: URL, _ name: String, _ milliseconds: Int64) throws {
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: Double(milliseconds) / 1000)],
                                              ofItemAtPath: book.appendingPathComponent(name).path)
    }

    @Test func anOutsideEditIsDatedByItsFileBetweenThePreviousScanAndNow() async throws {
        let book = try makeBook()
        let clock = ManualClock()
        try book.write(cardText(uid: "old", name: "Old File"), to: "old.vcf")
        try setModified(book, "old.vcf", Self.start - 24 * Self.hour)
        try book.write(cardText(uid: "ahead", name: "Clock Ahead"), to: "ahead.vcf")
        try setModified(book, "ahead.vcf", Self.start + 24 * Self.hour)
        // The first scan: no previous one, so an old file keeps its time; one from the future is dated now.
        let first = try await open(book, clock) { book in (await book.record(for: "old"), await book.record(for: "ahead")) }
        #expect(first.0?.editTime == Self.start - 24 * Self.hour && first.0?.modified == Self.start)
        #expect(first.1?.editTime == Self.start)

        clock.move(to: Self.start + Self.hour)
        try book.write(cardText(uid: "other", name: "Other"), to: "other.vcf")
        _ = try await open(book, clock) { _ in }  // the scan at 09:00 records a change, so its time is kept

        clock.move(to: Self.start + 3 * Self.hour)
        try book.write(cardText(uid: "old", name: "Old File", email: "edited@example.com"), to: "old.vcf")
        try setModified(book, "old.vcf", Self.start + 2 * Self.hour)
        try book.write(cardText(uid: "ahead", name: "Clock Ahead", email: "edited@example.com"), to: "ahead.vcf")
        try setModified(book, "ahead.vcf", Self.start - Self.hour)
        let second = try await open(book, clock) { book in (await book.record(for: "old"), await book.record(for: "ahead")) }
        #expect(second.0?.editTime == Self.start + 2 * Self.hour, "between the scans: its modification time")
        #expect(second.1?.editTime == Self.start + Self.hour, "older than the previous scan: the previous scan")
        #expect(second.0?.modified == Self.start + 3 * Self.hour)

        // A rename keeps the version's time; the journal keeps it (the rebuilt index has it).
        clock.move(to: Self.start + 4 * Self.hour)
        try FileManager.default.moveItem(at: book.appendingPathComponent("old.vcf"), to: book.appendingPathComponent("renamed.vcf"))
        try FileManager.default.removeItem(at: book.appendingPathComponent(".cardsync/index.bin"))
        let renamed = try await open(book, clock) { book in await book.record(for: "old") }
        #expect(renamed?.file == "renamed.vcf" && renamed?.editTime == Self.start + 2 * Self.hour)
        let lines = try journalLines(book)
        #expect(lines.last?.contains("\"edited\":\"2031-03-14T10:00:00.000Z\"") == true, "\(lines.last ?? "")")
        #expect(lines.allSatisfy { $0.contains("\"time\":\"2031-03-14T") })
    }
}
