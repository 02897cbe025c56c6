import ArgumentParser
import ContactStore

/// `cardsync restore`: brings back an earlier version or a deleted contact.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Bring back an earlier version of a contact, or a deleted contact.",
        discussion: """
        Without --seq, a deleted contact comes back as it was when it was deleted, and a contact \
        whose last change was a merge (`cardsync merge`) gets its earlier version back, with the \
        contacts merged into it. With --seq N, the \
        contact gets the version recorded by event N (see `cardsync log DIR UID`). The restore is \
        itself recorded, so it can be undone the same way.

        Examples:
          cardsync restore ~/contacts 3b9e2f0c-7f6a-4d8e-9a51-0c1e2d3f4a5b
          cardsync restore ~/contacts ada --seq 12
        """
    )

    @Argument(help: "The address book folder.")
    var directory: String

    @Argument(help: "The contact's UID.")
    var uid: String

    @Option(name: .customLong("seq"), help: "The journal event whose version to bring back.")
    var sequence: Int?

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    func run() async throws {
        try await reportingFailures {
            let events = try await BookSession.open(directory) { book in
                // A live contact whose last change was a merge: undo the merge.
                if sequence == nil, let record = await book.record(for: uid), !record.isDeleted {
                    return try await book.undoMerge(uid: uid)
                }
                return [try await book.restore(uid: uid, sequence: sequence)]
            }
            let event = events[0]
            switch format {
            case .text:
                print("Restored \(event.name.map { "\($0) " } ?? "")<\(uid)> in \(event.file)"
                      + (event.restoredSequence.map { " to the version of event #\($0)" } ?? "") + " (event #\(event.sequence))")
                for other in events.dropFirst() {
                    print("Restored \(other.name.map { "\($0) " } ?? "")<\(other.uid)> in \(other.file), merged into <\(uid)> before (event #\(other.sequence))")
                }
            case .json:
                try JSONOutput.print(RestoreOutput(book: directory, event: EventOutput(event),
                                                   alsoRestored: events.count > 1 ? events.dropFirst().map(EventOutput.init) : nil))
            }
        }
    }
}

/// `--format json` output of `restore`.
struct RestoreOutput: Encodable {
    var schemaVersion = 1
    var command = "restore"
    var book: String
    var event: EventOutput
    /// For the undo of a merge: the contacts that had been merged into it, brought back.
    var alsoRestored: [EventOutput]?
}
