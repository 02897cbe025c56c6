import ArgumentParser
import ContactStore
import Foundation
import SyncEngine

/// `cardsync status`: what the next sync would push, when the last one ran, and where to.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show pending local changes, the last sync and the remote of an address book.",
        discussion: """
            Works offline: pending changes are the contacts added, edited or deleted in the book \
            since they were last in step with the remote (the folder is scanned first, so edits \
            made by other programs count). `cardsync sync DIR --dry-run` also asks the server.

            Examples:
              cardsync status ~/contacts
              cardsync status ~/contacts --format json
            """
    )

    @Argument(help: "The address book folder.")
    var directory: String

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    func run() async throws {
        try await reportingFailures {
            let choice = try RemoteChoice.resolve(book: directory, remote: nil, passwordFile: nil, insecure: false)
            let remoteKey = choice?.key ?? "embedded:" + URL(fileURLWithPath: EmbeddedEndpoint.dataDirectory).standardizedFileURL.path
                + "/" + EmbeddedEndpoint.databaseName
            let shown = choice.map { $0.location.urlWithoutPassword } ?? "the embedded endpoint (data: \(EmbeddedEndpoint.dataDirectory))"
            let output = try await BookSession.open(directory) { book in
                var pending: [StatusOutput.Pending] = []
                for (record, state) in await book.unsyncedChanges(remote: remoteKey) {
                    let change = record.hash == nil ? "delete" : state?.hash == nil ? "add" : "update"
                    pending.append(.init(uid: record.uid, name: record.name ?? record.uid, change: change))
                }
                // Each name lower-cased once, not in every comparison (that was two thirds of a
                // `status` of 19,000 unsynced contacts).
                pending = pending.map { (key: $0.name.lowercased(), pending: $0) }
                    .sorted { ($0.key, $0.pending.uid) < ($1.key, $1.pending.uid) }.map(\.pending)
                let last = try await book.lastSyncTime(remote: remoteKey)
                return StatusOutput(book: directory, remote: shown, contacts: await book.contactCount, synced: await book.syncedCount(remote: remoteKey),
                                    lastSync: last.map { Self.time($0) }, pending: pending)
            }
            switch format {
            case .json: try JSONOutput.print(output)
            case .text:
                print("\(directory): \(output.contacts) contacts")
                print("  remote: \(output.remote)")
                print("  last sync: \(output.lastSync ?? "never")")
                print("  pending local changes: \(output.pending.count)")
                let marks = ["add": "+", "update": "~", "delete": "-"]
                for item in output.pending.prefix(50) { print("    \(marks[item.change]!) \(item.name)") }
                if output.pending.count > 50 { print("    … and \(output.pending.count - 50) more (--format json lists all)") }
            }
        }
    }

    static func time(_ milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}

/// `--format json` output of `status`.
struct StatusOutput: Encodable {
    struct Pending: Encodable { var uid: String; var name: String; var change: String }
    var schemaVersion = 1
    var command = "status"
    var book: String
    var remote: String
    var contacts: Int
    var synced: Int
    var lastSync: String?
    var pending: [Pending]
}
