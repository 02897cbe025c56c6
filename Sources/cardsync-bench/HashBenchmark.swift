import Foundation
import SampleGenerator
import VCardKit

/// `cardsync-bench hash [--count 100000] [--runs 5]`: the content hash of every card of a
/// generated book (seed 7, mixed 3.0/4.0, 10% photos), read once, hashed in this process on one
/// thread; one JSON line with the median time and cards per second, and a digest of all the
/// hashes (an XOR of their first words) so that two builds can be seen to agree.
enum HashBenchmark {
    static func run(_ arguments: [String]) throws {
        let options = ChildBenchmarkOptions(arguments, mode: "hash", count: 100_000, runs: 5)
        var book: [UInt8] = []
        _ = AddressBookGenerator(options: GeneratorOptions(count: options.count, seed: 7, version: .mixed, photoRate: 0.1))
            .write(to: &book)
        let cards = try VCardReader.read(book, sourceName: "generated.vcf").cards
        var digest: UInt64 = 0
        let seconds = BenchmarkMain.median(options.runs) {
            digest = 0
            for card in cards { digest ^= ContentHash(of: card).words.0 }
        }
        print("{\"workload\":\"content-hash\",\"cards\":\(cards.count),\"seconds\":\(BenchmarkMain.format(seconds)),"
            + "\"cardsPerSecond\":\(Int(Double(cards.count) / seconds)),\"xorOfFirstWords\":\"\(String(digest, radix: 16))\"}")
    }
}
