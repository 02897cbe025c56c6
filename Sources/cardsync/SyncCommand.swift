import ArgumentParser
import ContactStore
import CouchClient
import Foundation
import SyncEngine

/// `cardsync sync`: two-way sync of an address book with a CouchDB-compatible database.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sync an address book with a CouchDB-compatible database, both ways.",
        discussion: """
            Reads the folder for changes made by other programs, pulls the server's changes \
            since the last sync, pushes local ones, and settles contacts changed on both sides \
            with --conflict: newest (default), local, remote, or keep-both (as newest, and the \
            losing edit becomes a new contact). A losing version is never lost: it stays in the \
            journal (`cardsync log DIR UID` lists it, `cardsync restore DIR UID --seq N` brings \
            it back).

            newest: an edit wins over a deletion made without it (the contact comes back on \
            the side that deleted it, reported as a conflict); between two edits, the cards' REV decides when \
            they differ, else the edit made last; when neither tells, the server's version. An \
            edit is dated when it was made, not when a sync noticed it: a file another program \
            changed by its modification time (no earlier than the previous scan of the folder, \
            no later than now), an edit made with cardsync by its time. That time travels with \
            the contact to the server, so every book compares the same times. local and remote \
            pick that side's version, a deletion included; keep-both keeps the edit of an edit \
            and a deletion. --dry-run shows both versions' times for every conflict and the \
            one the policy picks.

            The remote is --remote URL, else the one set with `cardsync remote DIR set URL`, \
            else the embedded endpoint: a `cardsync serve` data folder \
            (CARDSYNC_SERVER_DATA, default ~/.local/share/cardsync/server) served on loopback \
            for the length of the sync, or the `cardsync serve` already running on it. The \
            password comes from the URL, CARDSYNC_PASSWORD or --password-file; it is never \
            stored or printed.

            A sync that would delete every contact of the last sync on one side because the \
            other side became empty is refused unless --force; --reset refills an emptied \
            server from this book instead (nothing is deleted on either side). An interrupted \
            sync (network loss, kill -9) is finished by the next one; nothing is applied twice.

            Exit status: 0 synced; 65 refused (a side was emptied: see --force); 69 the remote \
            could not be reached; 75 some contacts could not be synced (listed; the rest were); \
            77 the remote refused the credentials; 78 the remote is misconfigured.

            Examples:
              cardsync sync ~/contacts
              cardsync sync ~/contacts --remote https://alice@couch.example.com/contacts --dry-run
              CARDSYNC_PASSWORD=secret cardsync sync ~/contacts --conflict keep-both --format json
            """
    )

    @Argument(help: "The address book folder.")
    var directory: String

    @Option(help: ArgumentHelp("The database URL, e.g. http://user@host:5984/contacts (instead of the one set with `cardsync remote`).",
                               valueName: "url"))
    var remote: String?

    @Option(help: "Who wins when a contact changed on both sides: newest (an edit over a deletion, else REV, else the edit made last), local, remote or keep-both.")
    var conflict: ConflictChoice = .newest

    @Flag(help: "Print the plan (per side: added, updated, deleted, by name; each conflict with both versions' times and the one the policy picks) and change nothing.")
    var dryRun = false

    @Flag(help: "Sync even when one side became empty and the sync would delete all contacts on the other.")
    var force = false

    @Flag(help: "Forget the sync state with this remote first and match contacts by content: contacts only here are pushed, only there pulled, none deleted on either side (refills an emptied or deleted server database; if it is interrupted, run it again with --reset).")
    var reset = false

    @Flag(help: "Remove contacts whose content became identical to another's (the oldest is kept).")
    var dedupe = false

    @Option(help: ArgumentHelp("A file whose first line is the password.", valueName: "file"))
    var passwordFile: String?

    @Flag(help: "Do not verify the server's TLS certificate.")
    var insecure = false

    @Option(name: .customLong("ca-file"),
            help: ArgumentHelp("Trust the certificates in this PEM file (a private CA or a self-signed server) instead of the system's; they are still verified.", valueName: "file"))
    var caFile: String?

    @Flag(help: "Log in once with POST /_session and use its cookie, instead of sending the password with every request.")
    var cookieAuth = false

    @Option(help: ArgumentHelp("Documents per _bulk_docs or _all_docs request (default 500), and per batch a pull applies from a streamed changes feed (default 1024).",
                               valueName: "count"))
    var batchSize: Int?

    @Option(help: "Attempts per request on network errors, timeouts, 5xx and 429 (with backoff and jitter).")
    var attempts = 5

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    func validate() throws {
        guard batchSize.map({ (1...10_000).contains($0) }) ?? true else { throw ValidationError("--batch-size must be between 1 and 10000") }
        guard (1...20).contains(attempts) else { throw ValidationError("--attempts must be between 1 and 20") }
    }

    func run() async throws {
        HeapTuning.keepLargeBuffersOutOfTheHeap()
        try await reportingFailures {
            let book = directory
            var choice = try RemoteChoice.resolve(book: book, remote: remote, passwordFile: passwordFile, insecure: insecure)
            if let caFile {
                guard FileManager.default.isReadableFile(atPath: caFile) else {
                    throw CommandFailure.missingInput("\(caFile): cannot read the --ca-file")
                }
                choice?.trustedCertificatesFile = caFile
            }
            let progress = ProgressBar(format: format)
            let options = SyncOptions(policy: conflict.policy, dryRun: dryRun, force: force, dedupe: dedupe, reset: reset,
                                      batchSize: batchSize ?? 500, pullBatchSize: batchSize ?? 1024,
                                      progress: progress.reporter(SyncProgressLine.step))
            let outcome: (SyncReport, RemoteChoice)
            if let choice {
                outcome = (try await Self.sync(book: book, choice: choice, options: options, attempts: attempts, cookie: cookieAuth,
                                               progress: progress), choice)
            } else {
                outcome = try await EmbeddedEndpoint.with { choice, startedHere in
                    if format == .text {
                        StandardError.print("cardsync: no remote set for \(book): syncing with the embedded endpoint \(choice.location.key) "
                            + "(data: \(choice.embeddedData ?? "")\(startedHere ? ", served for this sync" : ", the running cardsync serve")); "
                            + "`cardsync remote \(book) set URL` syncs elsewhere")
                    }
                    return (try await Self.sync(book: book, choice: choice, options: options, attempts: attempts, cookie: cookieAuth,
                                                progress: progress), choice)
                }
            }
            progress.finish()
            let (report, used) = outcome
            switch format {
            case .text: SyncSummary.print(report, book: book, embeddedData: used.embeddedData)
            case .json: try JSONOutput.print(SyncOutput(report, book: book, embeddedData: used.embeddedData))
            }
            if !report.problems.isEmpty { throw ExitStatus.temporaryFailure }
        }
    }

    static func sync(book: String, choice: RemoteChoice, options: SyncOptions, attempts: Int, cookie: Bool,
                     progress: ProgressBar? = nil) async throws -> SyncReport {
        do {
            return try await withRemoteClient(choice, retry: RetryPolicy(maximumAttempts: attempts),
                                              authentication: cookie ? .cookie : .basic) { client, counter in
                let database = client.database(choice.location.database)
                // The first requests go out while the book is opened and its folder walked.
                return try await RemotePrefetch.withRequests(forBookAt: URL(fileURLWithPath: book), database: database,
                                                             remote: choice.key, options: options) { prefetch in
                    try await BookSession.open(book, progress: progress, indexOpened: { prefetch.bookOpened($0) }) { addressBook in
                        var report = try await SyncEngine(book: addressBook, database: database, remote: choice.key, options: options,
                                                          prefetch: prefetch).sync()
                        report.requests = counter.count
                        return report
                    }
                }
            }
        } catch let error as SyncError {
            let status = switch error.code {
            case .emptiedSide: ExitStatus.invalidData
            case .unauthorized, .missingDatabase: ExitStatus.permissionDenied
            case .invalidRemote, .untrustedRemote: ExitStatus.configuration
            default: ExitStatus.unavailable
            }
            throw CommandFailure(message: error.message, exitCode: status, url: choice.location.urlWithoutPassword)
        } catch let error as CouchClientError {
            throw CommandFailure(message: "\(choice.location.key): \(error.description)",
                                 exitCode: error.code == .tls ? ExitStatus.configuration : ExitStatus.unavailable,
                                 url: choice.location.urlWithoutPassword)
        }
    }
}

/// `--conflict`: the ``ConflictPolicy`` names.
enum ConflictChoice: String, ExpressibleByArgument, CaseIterable {
    case newest, local, remote
    case keepBoth = "keep-both"

    var policy: ConflictPolicy { ConflictPolicy(rawValue: rawValue)! }
}

/// The phases of a sync on the progress line: reading the server's changes (no total), then
/// pulling and pushing contacts.
enum SyncProgressLine {
    @Sendable static func step(_ progress: SyncProgress) -> ProgressBar.Step {
        ProgressBar.Step(phase: progress.phase.rawValue, done: progress.done, total: progress.total,
                         unit: .items(progress.phase == .reading ? "changes" : "contacts"))
    }
}

/// The people-facing summary of a sync.
enum SyncSummary {
    static let shownPerList = 20

    static func print(_ report: SyncReport, book: String, embeddedData: String?) {
        let verb = report.isDryRun ? "Would sync" : "Synced"
        Swift.print("\(verb) \(book) with \(report.remote)\(report.createdDatabase ? " (database created)" : "")")
        let pulled = report.pulledCounts
        let pushed = report.pushedCounts
        Swift.print("  pulled: \(pulled.added) added, \(pulled.updated) updated, \(pulled.deleted) deleted")
        list(report.pulled, limit: report.isDryRun ? Int.max : shownPerList)
        Swift.print("  pushed: \(pushed.added) added, \(pushed.updated) updated, \(pushed.deleted) deleted")
        list(report.pushed, limit: report.isDryRun ? Int.max : shownPerList)
        if report.matched > 0 { Swift.print("  already identical on both sides: \(report.matched)") }
        Swift.print("  conflicts: \(report.conflicts.count)")
        for conflict in report.conflicts {
            var line = "    \(conflict.name): \(conflict.winner == .local ? "this book's" : "the server's") version \(report.isDryRun ? "would win" : "won") (\(conflict.reason))"
            if let kept = conflict.keptAs { line += "; the other is kept as contact \(kept)" }
            if !conflict.removedRevisions.isEmpty { line += "; \(conflict.removedRevisions.count) conflicting server revision(s) removed" }
            Swift.print(line)
            if let local = conflict.local, let remote = conflict.remote {
                Swift.print("      here: \(describe(local)); on the server: \(describe(remote))")
            }
        }
        if !report.conflicts.isEmpty && !report.isDryRun {
            Swift.print("    losing versions are in the journal: `cardsync log \(book) UID`, then `cardsync restore \(book) UID --seq N`")
        }
        if !report.duplicates.isEmpty || !report.removedDuplicates.isEmpty {
            Swift.print("  duplicates: \(report.duplicates.count) group(s) with identical content"
                        + (report.removedDuplicates.isEmpty ? "; `cardsync dedupe \(book) --apply` or `sync --dedupe` removes them"
                           : ", \(report.removedDuplicates.count) removed"))
            for group in report.duplicateGroups.prefix(shownPerList) { Swift.print("    " + line(for: group)) }
        }
        Swift.print("  errors: \(report.problems.count)")
        for problem in report.problems {
            if let file = problem.file {
                Swift.print("    \(book)/\(file)\(problem.line.map { ":\($0)" } ?? ""): \(problem.message)\(problem.code.map { " [\($0)]" } ?? "")")
            } else {
                Swift.print("    \(problem.name.map { "\($0) " } ?? "")<\(problem.subject)>: \(problem.message)")
            }
        }
        Swift.print("  \(report.localCount) contacts in the book\(report.requests.map { "; \($0) requests" } ?? "")")
    }

    /// One side of a conflict: `edited 2026-11-22T05:09:44.123Z, REV 20261122T050944Z`, `deleted …`.
    static func describe(_ version: SyncReport.Conflict.Version) -> String {
        var text = version.isDeletion ? "deleted" : "edited"
        text += version.editTime.map { " \($0)" } ?? " (time unknown)"
        if let revision = version.revision { text += ", REV \(revision)" }
        return text
    }

    /// A group of contacts with identical content, by name: `Ada Lovelace = Ada King`, or, when
    /// names repeat, `Ada Lovelace (UID a1 = UID a2)` (the UIDs only tell them apart).
    static func line(for group: [SyncReport.Contact]) -> String {
        let names = group.map(\.name)
        if Set(names).count == names.count { return names.joined(separator: " = ") }
        if Set(names).count == 1 { return "\(names[0]) (UID \(group.map(\.uid).joined(separator: " = UID ")))" }
        return group.map { "\($0.name) <\($0.uid)>" }.joined(separator: " = ")
    }

    private static func list(_ changes: [SyncReport.Change], limit: Int) {
        for change in changes.prefix(limit) {
            let mark = switch change.kind {
            case .add: "+"
            case .update: "~"
            case .delete: "-"
            }
            Swift.print("    \(mark) \(change.name)")
        }
        if changes.count > limit { Swift.print("    … and \(changes.count - limit) more (--format json lists all)") }
    }
}

/// `--format json` output of `sync`.
struct SyncOutput: Encodable {
    struct Counts: Encodable { var added: Int; var updated: Int; var deleted: Int }
    struct Summary: Encodable {
        var pulled: Counts
        var pushed: Counts
        var conflicts: Int
        var duplicates: Int
        var errors: Int
        var matched: Int
    }
    struct Change: Encodable { var uid: String; var name: String; var change: String }
    struct Conflict: Encodable {
        var uid: String
        var name: String
        var winner: String
        var reason: String
        var keptAs: String?
        var removedRevisions: [String]
        var local: Version?
        var remote: Version?
    }
    /// One side of a conflict.
    struct Version: Encodable {
        var deleted: Bool
        var edited: String?
        var rev: String?

        init(_ version: SyncReport.Conflict.Version) {
            deleted = version.isDeletion
            edited = version.editTime
            rev = version.revision
        }
    }
    struct Problem: Encodable {
        var subject: String
        var name: String?
        var message: String
        var file: String?
        var line: Int?
        var code: String?
    }

    var schemaVersion = 1
    var command = "sync"
    var book: String
    var remote: String
    var embeddedData: String?
    var dryRun: Bool
    var createdDatabase: Bool
    var summary: Summary
    var pulled: [Change]
    var pushed: [Change]
    var conflicts: [Conflict]
    var duplicates: [[String]]
    var removedDuplicates: [String]
    var errors: [Problem]
    var contacts: Int
    var checkpoint: String?
    var requests: Int?

    init(_ report: SyncReport, book: String, embeddedData: String?) {
        self.book = book
        remote = report.remote
        self.embeddedData = embeddedData
        dryRun = report.isDryRun
        createdDatabase = report.createdDatabase
        let pulledCounts = report.pulledCounts
        let pushedCounts = report.pushedCounts
        summary = Summary(pulled: Counts(added: pulledCounts.added, updated: pulledCounts.updated, deleted: pulledCounts.deleted),
                          pushed: Counts(added: pushedCounts.added, updated: pushedCounts.updated, deleted: pushedCounts.deleted),
                          conflicts: report.conflicts.count, duplicates: report.duplicates.count, errors: report.problems.count,
                          matched: report.matched)
        pulled = report.pulled.map { Change(uid: $0.uid, name: $0.name, change: $0.kind.rawValue) }
        pushed = report.pushed.map { Change(uid: $0.uid, name: $0.name, change: $0.kind.rawValue) }
        conflicts = report.conflicts.map {
            Conflict(uid: $0.uid, name: $0.name, winner: $0.winner.rawValue, reason: $0.reason, keptAs: $0.keptAs,
                     removedRevisions: $0.removedRevisions, local: $0.local.map(Version.init), remote: $0.remote.map(Version.init))
        }
        duplicates = report.duplicates
        removedDuplicates = report.removedDuplicates
        errors = report.problems.map {
            Problem(subject: $0.subject, name: $0.name, message: $0.message, file: $0.file, line: $0.line, code: $0.code)
        }
        contacts = report.localCount
        checkpoint = report.checkpoint
        requests = report.requests
    }
}
