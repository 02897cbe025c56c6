import ArgumentParser
import ContactDiff
import ContactStore

/// `cardsync merge`: merges contacts of an address book into one.
struct MergeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge contacts of an address book into the first one named.",
        discussion: """
        The first UID is kept. The merged card has the richest FN and N of all, every other \
        value of each card once (e-mail addresses compared lower-cased, telephone numbers \
        normalised), and the newest REV. The others are removed. The merge is one journal \
        event; `cardsync restore DIR UID` (the kept UID) gives every file back as it was.

        Examples:
          cardsync merge ~/contacts ada ada-2 --dry-run
          cardsync merge ~/contacts ada ada-2
        """
    )

    @Argument(help: "The address book folder.")
    var directory: String

    @Argument(help: "The contact to keep, then the contacts to merge into it.")
    var uids: [String]

    @Flag(help: "Show the merged contact's changes without changing anything.")
    var dryRun = false

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    func validate() throws {
        guard uids.count >= 2 else { throw ValidationError("Name at least two contacts: the one to keep, then the others.") }
    }

    func run() async throws {
        try await reportingFailures {
            let outcome = try await BookSession.open(directory) { book in
                try await book.mergeContacts(uids, dryRun: dryRun)
            }
            switch format {
            case .text:
                let name = outcome.card.formattedName.map { "\($0) " } ?? ""
                print((dryRun ? "Would merge " : "Merged ") + outcome.absorbed.map { "<\($0)>" }.joined(separator: ", ")
                      + " into \(name)<\(outcome.kept)>")
                for change in outcome.changes {
                    switch change.kind {
                    case .added: print("    + \(change.property): \(change.newValue ?? "")")
                    case .removed: print("    - \(change.property): \(change.oldValue ?? "")")
                    default: print("    ~ \(change.property): \(change.oldValue ?? "") → \(change.newValue ?? "")")
                    }
                }
                if !dryRun { print("`cardsync restore \(directory) \(outcome.kept)` undoes it.") }
            case .json:
                try JSONOutput.print(MergeOutput(book: directory, dryRun: dryRun, merge: MergeOutput.Merge(outcome)))
            }
        }
    }
}

/// `--format json` output of `merge`.
struct MergeOutput: Encodable {
    struct Merge: Encodable {
        var kept: String
        var absorbed: [String]
        var name: String?
        var changes: [PropertyChange]
        var events: [EventOutput]

        init(_ outcome: MergeOutcome) {
            kept = outcome.kept
            absorbed = outcome.absorbed
            name = outcome.card.formattedName
            changes = outcome.changes
            events = outcome.events.map(EventOutput.init)
        }
    }

    var schemaVersion = 1
    var command = "merge"
    var book: String
    var dryRun: Bool
    var merge: Merge
}
