import JSONText

/// The ways the `json` benchmark reads and writes whole documents with the package's JSON layer
/// (JSONText, which `cardsync serve` and the client both use): the document parsed whole, and the
/// `_changes` feed walked row by row with the stream reader, as a pull can read it in chunks.
struct JSONLayers: Sendable {
    var name: String
    /// Parses a document; a positive number when it was read.
    var parse: @Sendable ([UInt8]) -> Int
    /// Parses and writes a document again; the number of bytes written.
    var parseAndWrite: @Sendable ([UInt8]) -> Int

    static let all: [JSONLayers] = [
        JSONLayers(name: "JSONText", parse: { bytes in
            (try? JSONValue(parsing: bytes)).map { _ in 1 } ?? 0
        }, parseAndWrite: { bytes in
            (try? JSONValue(parsing: bytes))?.serialized().count ?? 0
        }),
        JSONLayers(name: "JSONText-stream-64KiB-chunks", parse: { bytes in
            rows(of: bytes) { _, _ in }
        }, parseAndWrite: { bytes in
            var output: [UInt8] = []
            let writer = JSONWriter()
            _ = rows(of: bytes) { row, _ in writer.write(row, to: &output) }
            return output.count
        }),
    ]

    /// Walks `{"results":[row, …], …}` fed in 64 KiB chunks, each row taken whole; the number of rows.
    static func rows(of bytes: [UInt8], _ body: (JSONValue, Int) -> Void) -> Int {
        var reader = JSONStreamReader()
        var offset = 0
        var rows = 0
        var inResults = false
        func nextChunk() -> ArraySlice<UInt8>? {
            guard offset < bytes.count else { return nil }
            defer { offset += 64 << 10 }
            return bytes[offset..<min(offset + (64 << 10), bytes.count)]
        }
        do throws(JSONError) {
            while true {
                let event = inResults ? try reader.nextValue(feeding: nextChunk) : try reader.next(feeding: nextChunk)
                switch event {
                case .startArray where reader.depth == 2: inResults = true
                case .value(let row) where inResults:
                    rows += 1
                    body(row, rows)
                case .endArray: inResults = false
                case .endOfDocument: return rows
                default: break
                }
            }
        } catch {
            return 0
        }
    }
}
