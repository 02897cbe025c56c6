import ArgumentParser
import ContactStore

/// `cardsync dedupe`: finds (and removes) contacts with exactly the same content.
struct DedupeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dedupe",
        abstract: "Find contacts with exactly the same content; --apply removes the extra copies.",
        discussion: """
        Contacts are duplicates when their content hash is equal: the same data whatever the \
        folding, case, parameter order or vCard version. The oldest contact of each group is kept. \
        Each removal is a journal event; `cardsync restore DIR UID` brings a removed contact back.

        Examples:
          cardsync dedupe ~/contacts
          cardsync dedupe ~/contacts --apply
        """
    )

    @Argument(help: "The address book folder.")
    var directory: String

    @Flag(help: "Remove the extra copies (without it, only report them).")
    var apply = false

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    func run() async throws {
        try await reportingFailures {
            let progress = ProgressBar(format: format)
            let (groups, removed, problems) = try await BookSession.open(directory, progress: progress) { book in
                let groups = await book.duplicateGroups()
                guard apply else { return (groups, [JournalEvent](), [StoreProblem]()) }
                let (events, problems) = try await book.removeDuplicates(progress: progress.reporter { step in
                    ProgressBar.Step(phase: "removing duplicates", done: step.done, total: step.total, unit: .items("contacts"))
                })
                return (groups, events, problems)
            }
            progress.finish()
            BookSession.printProblems(problems, directory: directory)
            switch format {
            case .text:
                for group in groups {
                    print("keep \(group[0].name.map { "\($0) " } ?? "")<\(group[0].uid)> \(group[0].file)")
                    for extra in group.dropFirst() { print("  \(apply ? "removed" : "duplicate") <\(extra.uid)> \(extra.file)") }
                }
                let extras = groups.reduce(0) { $0 + $1.count - 1 }
                if apply {
                    print("Removed \(removed.count) duplicate\(removed.count == 1 ? "" : "s"); `cardsync restore \(directory) UID` brings one back.")
                } else {
                    print("\(extras) duplicate\(extras == 1 ? "" : "s") in \(groups.count) group\(groups.count == 1 ? "" : "s")"
                          + (extras > 0 ? "; run with --apply to remove them." : "."))
                }
            case .json:
                try JSONOutput.print(DedupeOutput(
                    book: directory, applied: apply,
                    groups: groups.map { group in DedupeOutput.Group(keep: group[0].uid, duplicates: group.dropFirst().map(\.uid),
                                                                      files: group.map(\.file)) },
                    removed: removed.map(EventOutput.init), problems: problems.map(ProblemOutput.init)))
            }
        }
    }
}

/// `--format json` output of `dedupe`.
struct DedupeOutput: Encodable {
    struct Group: Encodable {
        var keep: String
        var duplicates: [String]
        var files: [String]
    }

    var schemaVersion = 1
    var command = "dedupe"
    var book: String
    var applied: Bool
    var groups: [Group]
    var removed: [EventOutput]
    var problems: [ProblemOutput]
}
