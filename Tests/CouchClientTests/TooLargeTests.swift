import CouchClient
import Foundation
import JSONText
import Testing

@Suite("Request size limits on a live CouchServer")
struct TooLargeTests {
    @Test func splitsBulkDocumentsTheServerFindsTooLarge() async throws {
        // Each document is ~300 bytes of JSON; the server reads at most 1 kB per request.
        try await withLiveClient(maximumRequestSize: 1024) { client, _ in
            let database = client.database("contacts")
            try await database.create(ignoringExisting: true)
            let filler = String(repeating: "x", count: 280)
            var documents: [JSONObject] = (1...9).map { ["_id": .string("doc\($0)"), "text": .string(filler)] }
            documents.insert(["_id": "huge", "text": .string(String(repeating: "y", count: 4000))], at: 4)
            let results = try await database.bulkDocuments(documents)
            #expect(results.map(\.id) == documents.map { $0["_id"]?.stringValue })
            #expect(results.filter(\.isSuccess).count == 9)
            let huge = try #require(results.first { $0.id == "huge" })
            #expect(huge.error == "too_large")
            #expect(try await database.info().documentCount == 9)
        }
    }
}
