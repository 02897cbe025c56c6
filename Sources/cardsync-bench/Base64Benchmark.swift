#if canImport(Glibc)
import Glibc
#endif
import Foundation
import VCardKit

/// `cardsync-bench base64 [--runs 5] [CORPUS]`: the package's Base64 (VCardKit's lenient layer over
/// swift-extras-base64) beside Foundation's `Data` base64, on every inline binary value (PHOTO,
/// LOGO, SOUND, KEY) of the vCard files of the shared corpus (`../shared/corpus`), each workload
/// 400 passes over all of them; one JSON line per figure.
enum Base64Benchmark {
    static func run(_ arguments: [String]) throws {
        let options = ChildBenchmarkOptions(arguments.filter { !$0.hasPrefix("/") && !$0.hasPrefix(".") }, mode: "base64", count: 400, runs: 5)
        let corpus = arguments.first { $0.hasPrefix("/") || $0.hasPrefix(".") } ?? "../shared/corpus"
        var texts: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: corpus)
        while let path = enumerator?.nextObject() as? String {
            guard path.hasSuffix(".vcf"), let data = FileManager.default.contents(atPath: corpus + "/" + path),
                  let cards = try? VCardReader.read(Array(data)).cards else { continue }
            for card in cards {
                for property in card.properties where property.isInlineBinary && property.rawValue.utf8.count >= 64 {
                    let value = property.rawValue
                    // A `data:` URI's digits follow its comma.
                    texts.append(value.hasPrefix("data:") ? String(value[(value.firstIndex(of: ",").map(value.index(after:)) ?? value.endIndex)...]) : value)
                }
            }
        }
        guard !texts.isEmpty else { BenchmarkMain.fail("no inline binary values under \(corpus)") }
        let decoded = texts.map { Base64.decode($0) ?? [] }
        for (text, bytes) in zip(texts, decoded) where Data(base64Encoded: text, options: .ignoreUnknownCharacters).map(Array.init) != bytes {
            BenchmarkMain.fail("Foundation decodes a value of \(text.utf8.count) bytes otherwise")
        }
        let textBytes = texts.reduce(0) { $0 + $1.utf8.count } * options.count
        let binaryBytes = decoded.reduce(0) { $0 + $1.count } * options.count
        var sink = 0
        func measure(_ name: String, _ bytes: Int, _ body: () -> Int) {
            let seconds = BenchmarkMain.median(options.runs) { for _ in 0..<options.count { sink &+= body() } }
            print("{\"workload\":\"base64-\(name)\",\"values\":\(texts.count),\"bytes\":\(bytes),\"seconds\":\(BenchmarkMain.format(seconds)),"
                + "\"megabytesPerSecond\":\(BenchmarkMain.format(Double(bytes) / 1e6 / seconds))}")
            fflush(nil)
        }
        measure("decode-cardsync", textBytes) { texts.reduce(0) { $0 + (Base64.decode($1)?.count ?? 0) } }
        measure("decode-Foundation", textBytes) { texts.reduce(0) { $0 + (Data(base64Encoded: $1, options: .ignoreUnknownCharacters).map(Array.init)?.count ?? 0) } }
        measure("encode-cardsync", binaryBytes) { decoded.reduce(0) { $0 + Base64.encode($1).utf8.count } }
        measure("encode-Foundation", binaryBytes) { decoded.reduce(0) { $0 + Data($1).base64EncodedString().utf8.count } }
        if sink == 0 { BenchmarkMain.fail("nothing was decoded") }
    }
}
