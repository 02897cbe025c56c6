import CouchClient
@testable import SyncEngine
import Testing
import TestSupport

/// The first pull into a blank book takes every contact document of the streamed feed once,
/// and its checkpoint never passes a version it did not take.
@Suite struct WholeFeedFetchTests {
    private func fetch(_ feed: String, batchSize: Int) throws -> WholeFeedFetch {
        let reader = try ReplayTransport.client([Array(feed.utf8)]).database("contacts")
            .changesFeed(ChangesRequest(includeDocuments: true, allRevisions: true, conflicts: true))
        return WholeFeedFetch(feed: reader, batchSize: batchSize)
    }

    private func row(_ sequence: Int, _ id: String, _ revision: String) -> String {
        #"{"seq":\#(sequence),"id":"\#(id)","changes":[{"rev":"\#(revision)"}],"doc":{"_id":"\#(id)","_rev":"\#(revision)"}}"#
    }

    @Test func everyContactDocumentIsTakenOnceInFeedOrderAndTheCheckpointIsTheFeedsEnd() async throws {
        let rows = [row(1, "contact:a", "1-a"), row(2, "_design/views", "1-d"), row(3, "contact:b", "1-b"), row(4, "contact:c", "1-c")]
        let source = try fetch(#"{"results":[\#(rows.joined(separator: ","))],"last_seq":4,"pending":0}"#, batchSize: 2)
        var batches: [[String]] = []
        while case let batch = try await source.nextBatch(), !batch.isEmpty { batches.append(batch.map(\.id)) }
        #expect(batches == [["contact:a", "contact:b"], ["contact:c"]])
        #expect(await source.checkpoint == CouchSequence(.integer(4)))
        #expect(await source.listedTwice == false)
    }

    /// A document listed again (changed while the feed was read) is taken the first time only;
    /// the checkpoint stays at the row before that second listing, so the next sync reads the
    /// later version.
    @Test func aDocumentListedTwiceHoldsTheCheckpointBeforeItsSecondListing() async throws {
        let rows = [row(1, "contact:a", "1-a"), row(2, "contact:b", "1-b"), row(3, "contact:a", "2-a"), row(4, "contact:c", "1-c")]
        let source = try fetch(#"{"results":[\#(rows.joined(separator: ","))],"last_seq":4,"pending":0}"#, batchSize: 10)
        let batch = try await source.nextBatch()
        #expect(batch.map(\.id) == ["contact:a", "contact:b", "contact:c"])
        #expect(batch.first?.revision == "1-a")
        #expect(try await source.nextBatch().isEmpty)
        #expect(await source.listedTwice)
        #expect(await source.checkpoint == CouchSequence(.integer(2)))
    }
}
