#if canImport(Glibc)
import Glibc
#endif
import ContactStore
import Foundation
import SampleGenerator
import VCardKit

/// `cardsync-bench json [--count 10000] [--runs 5] [--only feed|journal|jcard]`: the JSON layer in process, on three kinds of
/// document made from a generated book (seed 1, mixed versions, 10% photos):
/// - `feed`: a `_changes` response with `include_docs=true`, one row per card, each document as
///   `Schemas/couch-contact.schema.json` describes it: parsed and written again by each layer
///   (``JSONLayers``), by Foundation's `JSONSerialization`, and decoded into `Decodable` rows
///   with `JSONDecoder` and encoded again with `JSONEncoder`;
/// - `journal`: one journal line per card (`JournalLine`): encoded, decoded with the card's text,
///   decoded without it (as a replay does), and parsed by `JSONSerialization`;
/// - `jcard`: the book as one jCard array: written and read by `JCardWriter`/`JCardReader`, and
///   parsed and written by `JSONSerialization`.
///
/// One JSON line per figure: median seconds of `runs`, documents per second and MB/s.
enum JSONBenchmark {
    static func run(_ arguments: [String]) throws {
        // `--only feed|journal|jcard` runs one kind of document.
        var arguments = arguments
        var only: String?
        if let flag = arguments.firstIndex(of: "--only"), flag + 1 < arguments.count {
            only = arguments[flag + 1]
            arguments.removeSubrange(flag...flag + 1)
        }
        let options = ChildBenchmarkOptions(arguments, mode: "json", count: 10_000, runs: 5)
        let (count, runs) = (options.count, options.runs)
        let generator = AddressBookGenerator(options: GeneratorOptions(count: count, seed: 1, version: .mixed, photoRate: 0.1))
        var input: [UInt8] = []
        generator.write(to: &input)
        let cards = BenchmarkMain.readAll(input)
        let writer = VCardWriter()
        let texts = cards.map { writer.bytes(for: [$0]) }

        if only == nil || only == "feed" { try feed(cards: cards, texts: texts, runs: runs) }
        if only == nil || only == "journal" { journal(cards: cards, texts: texts, runs: runs) }
        if only == nil || only == "jcard" { jcard(cards: cards, runs: runs) }
    }

    // MARK: - _changes feed

    struct Feed: Codable {
        struct Row: Codable {
            struct Revision: Codable { var rev: String }
            struct Document: Codable {
                var _id: String
                var _rev: String
                var vcard: String
                var hash: String
                var fn: String
                var emails: [String]
                var phones: [String]
                var updated: String
            }
            var seq: String
            var id: String
            var changes: [Revision]
            var doc: Document
        }
        var results: [Row]
        var last_seq: String
        var pending: Int
    }

    static func feedBytes(cards: [VCard], texts: [[UInt8]]) throws -> [UInt8] {
        var rows: [Any] = []
        for (index, card) in cards.enumerated() {
            let uid = card.uid ?? "card-\(index)"
            let hash = ContentHash(of: card).hexDigits
            let revision = "1-" + String(hash.prefix(32))
            let document: [String: Any] = [
                "_id": "contact:" + uid, "_rev": revision, "vcard": String(decoding: texts[index], as: UTF8.self),
                "hash": hash, "fn": card.formattedName ?? "", "emails": card.emailAddresses, "phones": card.telephoneNumbers,
                "updated": "2026-11-25T09:30:00.000Z",
            ]
            rows.append(["seq": "\(index + 1)-g1AAAAFReJzLYWBg4MhgTmHgz8tPSTV0MDQy", "id": "contact:" + uid,
                         "changes": [["rev": revision]], "doc": document] as [String: Any])
        }
        let feed: [String: Any] = ["results": rows, "last_seq": "\(cards.count)-g1AAAAFReJzLYWBg4MhgTmHgz8tPSTV0MDQy", "pending": 0]
        return Array(try JSONSerialization.data(withJSONObject: feed, options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    static func feed(cards: [VCard], texts: [[UInt8]], runs: Int) throws {
        let bytes = try feedBytes(cards: cards, texts: texts)
        let n = cards.count
        for layer in JSONLayers.all {
            var sink = 0
            let parse = BenchmarkMain.median(runs) { sink &+= layer.parse(bytes) }
            let both = BenchmarkMain.median(runs) { sink &+= layer.parseAndWrite(bytes) }
            if sink <= 0 { BenchmarkMain.fail("\(layer.name) could not read the feed") }
            report("feed-parse-\(layer.name)", n, bytes.count, parse)
            report("feed-parse+write-\(layer.name)", n, bytes.count, both)
        }
        var sink = 0
        let foundationParse = BenchmarkMain.median(runs) {
            sink &+= ((try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any])?.count ?? 0
        }
        let foundationBoth = BenchmarkMain.median(runs) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) else { return }
            sink &+= (try? JSONSerialization.data(withJSONObject: object))?.count ?? 0
        }
        report("feed-parse-JSONSerialization", n, bytes.count, foundationParse)
        report("feed-parse+write-JSONSerialization", n, bytes.count, foundationBoth)
        let decode = BenchmarkMain.median(runs) {
            sink &+= (try? JSONDecoder().decode(Feed.self, from: Data(bytes)))?.results.count ?? 0
        }
        let decodeEncode = BenchmarkMain.median(runs) {
            guard let feed = try? JSONDecoder().decode(Feed.self, from: Data(bytes)) else { return }
            sink &+= (try? JSONEncoder().encode(feed))?.count ?? 0
        }
        report("feed-parse-JSONDecoder", n, bytes.count, decode)
        report("feed-parse+write-JSONDecoder+JSONEncoder", n, bytes.count, decodeEncode)
        if sink == 0 { BenchmarkMain.fail("Foundation could not read the feed") }
    }

    // MARK: - Journal lines

    static func journal(cards: [VCard], texts: [[UInt8]], runs: Int) {
        var events: [JournalEvent] = []
        for (index, card) in cards.enumerated() {
            var event = JournalEvent(operation: .add, uid: card.uid ?? "card-\(index)", file: "\(card.uid ?? "card-\(index)").vcf",
                                     hash: ContentHash(of: card), previousHash: nil, source: .import,
                                     name: card.formattedName, card: texts[index])
            event.sequence = index + 1
            event.timestamp = 1_764_063_000_000 + Int64(index)
            events.append(event)
        }
        var lines: [[UInt8]] = []
        let n = events.count
        let encode = BenchmarkMain.median(runs) { lines = events.map(JournalLine.encode) }
        let total = lines.reduce(0) { $0 + $1.count }
        let bare = lines.map { Array($0.dropLast()) }
        var sink = 0
        let decode = BenchmarkMain.median(runs) {
            for line in bare { sink &+= (try? JournalLine.decode(line, includingCard: true))?.sequence ?? 0 }
        }
        let replay = BenchmarkMain.median(runs) {
            for line in bare { sink &+= (try? JournalLine.decode(line, includingCard: false))?.sequence ?? 0 }
        }
        let foundation = BenchmarkMain.median(runs) {
            for line in bare { sink &+= ((try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any])?.count ?? 0 }
        }
        if sink == 0 { BenchmarkMain.fail("the journal lines could not be read") }
        report("journal-encode", n, total, encode)
        report("journal-decode", n, total, decode)
        report("journal-decode-without-card", n, total, replay)
        report("journal-parse-JSONSerialization", n, total, foundation)
    }

    // MARK: - jCard

    static func jcard(cards: [VCard], runs: Int) {
        let n = cards.count
        var json: [UInt8] = []
        let write = BenchmarkMain.median(runs) { json = JCardWriter(unwrapsSingleCard: false).bytes(for: cards) }
        var sink = 0
        let read = BenchmarkMain.median(runs) { sink &+= (try? JCardReader.read(json))?.cards.count ?? 0 }
        let foundationParse = BenchmarkMain.median(runs) {
            sink &+= ((try? JSONSerialization.jsonObject(with: Data(json))) as? [Any])?.count ?? 0
        }
        let foundationBoth = BenchmarkMain.median(runs) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(json)) else { return }
            sink &+= (try? JSONSerialization.data(withJSONObject: object))?.count ?? 0
        }
        if sink == 0 { BenchmarkMain.fail("the jCard document could not be read") }
        report("jcard-write", n, json.count, write)
        report("jcard-read", n, json.count, read)
        report("jcard-parse-JSONSerialization", n, json.count, foundationParse)
        report("jcard-parse+write-JSONSerialization", n, json.count, foundationBoth)
    }

    static func report(_ workload: String, _ n: Int, _ bytes: Int, _ seconds: Double) {
        print("{\"workload\":\"json-\(workload)\",\"n\":\(n),\"bytes\":\(bytes),\"seconds\":\(BenchmarkMain.format(seconds)),"
            + "\"perSecond\":\(Int(Double(n) / seconds)),\"megabytesPerSecond\":\(BenchmarkMain.format(Double(bytes) / 1e6 / seconds))}")
        fflush(nil)
    }
}
