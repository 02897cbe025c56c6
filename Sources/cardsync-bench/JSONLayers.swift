import CouchClient
import CouchServer

/// The JSON implementations the `json` benchmark compares on whole documents: `cardsync serve`'s
/// (`CouchServer.JSONValue`) and the client's (`CouchClient.CouchJSON`).
struct JSONLayers: Sendable {
    var name: String
    /// Parses a document; a positive number when it was read.
    var parse: @Sendable ([UInt8]) -> Int
    /// Parses and writes a document again; the number of bytes written.
    var parseAndWrite: @Sendable ([UInt8]) -> Int

    static let all: [JSONLayers] = [
        JSONLayers(name: "CouchServer", parse: { bytes in
            (try? JSONValue(parsing: bytes)).map { _ in 1 } ?? 0
        }, parseAndWrite: { bytes in
            (try? JSONValue(parsing: bytes))?.serialized().count ?? 0
        }),
        JSONLayers(name: "CouchClient", parse: { bytes in
            (try? CouchJSON(parsing: bytes)).map { _ in 1 } ?? 0
        }, parseAndWrite: { bytes in
            (try? CouchJSON(parsing: bytes))?.jsonBytes.count ?? 0
        }),
    ]
}
