import Foundation
import JSONText

/// A one-shot replication, as `POST /_replicate` runs it: read the source's changes in
/// batches, ask the target which leaf revisions it lacks (`_revs_diff`), read those from the
/// source with their history and write them to the target as they are (`new_edits: false`).
///
/// It keeps no checkpoint: a second run starts from the beginning again, and `_revs_diff`
/// makes it write only what the target still lacks.
struct Replicator: Sendable {
    let source: any ReplicationEndpoint
    let target: any ReplicationEndpoint
    var batchSize = 500

    /// What a run did, in the names of CouchDB's replication report.
    struct Report: Sendable {
        var sessionID = Database.randomHex()
        var startTime = Date()
        var endTime = Date()
        var startSequence: JSONValue = .integer(0)
        var lastSequence: JSONValue = .integer(0)
        var missingChecked = 0
        var missingFound = 0
        var documentsRead = 0
        var documentsWritten = 0
        var writeFailures = 0
        var bulkGetAttempts = 0

        /// CouchDB's `_replicate` answer.
        var json: JSONValue {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            let history: JSONObject = [
                "session_id": .string(sessionID),
                "start_time": .string(formatter.string(from: startTime)),
                "end_time": .string(formatter.string(from: endTime)),
                "start_last_seq": startSequence,
                "end_last_seq": lastSequence,
                "recorded_seq": lastSequence,
                "missing_checked": .integer(missingChecked),
                "missing_found": .integer(missingFound),
                "docs_read": .integer(documentsRead),
                "docs_written": .integer(documentsWritten),
                "doc_write_failures": .integer(writeFailures),
                "bulk_get_docs": .integer(documentsRead),
                "bulk_get_attempts": .integer(bulkGetAttempts),
            ]
            return .object([
                "ok": .bool(true), "session_id": .string(sessionID), "source_last_seq": lastSequence,
                "replication_id_version": .integer(4), "history": .array([.object(history)]),
            ])
        }
    }

    /// Replicates everything the source has that the target lacks.
    func run() async throws -> Report {
        var report = Report()
        var since: JSONValue?
        while true {
            let page = try await source.changes(since: since, limit: batchSize)
            since = page.lastSequence
            report.lastSequence = page.lastSequence
            if !page.rows.isEmpty {
                var asked: [String: [String]] = [:]
                for row in page.rows { asked[row.id, default: []].append(contentsOf: row.revisions) }
                report.missingChecked += asked.values.reduce(0) { $0 + $1.count }
                let missing = try await target.missingRevisions(asked)
                let requests = missing.flatMap { id, revisions in revisions.map { (id: id, revision: $0) } }
                report.missingFound += requests.count
                if !requests.isEmpty {
                    report.bulkGetAttempts += 1
                    let documents = try await source.documents(requests)
                    report.documentsRead += documents.count
                    let failures = try await target.write(documents)
                    report.writeFailures += failures + (requests.count - documents.count)
                    report.documentsWritten += documents.count - failures
                }
            }
            if page.rows.count < batchSize || page.pending == 0 { break }
        }
        report.endTime = Date()
        return report
    }
}
