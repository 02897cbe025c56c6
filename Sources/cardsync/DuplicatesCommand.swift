import ArgumentParser
import ContactDiff
import ContactStore
import Foundation
import VCardKit

/// `cardsync duplicates`: finds contacts that are probably the same person.
struct DuplicatesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "duplicates",
        abstract: "Find contacts that are probably the same person; --merge merges the confident clusters.",
        discussion: """
        Contacts are linked when they have the same content (exact), the same normalised name \
        and a shared e-mail address or telephone number (strong), or similar names \
        (Jaro-Winkler, word by word) and a shared e-mail address or telephone number (fuzzy). A \
        shared name alone never links two contacts. Each cluster is printed with its score and \
        the reasons. --merge merges the clusters whose links are all exact or strong, in an \
        address book, each as one journal event that `cardsync restore DIR UID` undoes.

        Examples:
          cardsync duplicates ~/contacts
          cardsync duplicates ~/contacts --threshold 0.95 --format json
          cardsync duplicates ~/contacts --merge
        """
    )

    @Argument(help: "A folder of contact files (an address book for --merge), or a contact file.")
    var directory: String

    @Option(help: "The lowest score (0 to 1) that links two contacts.")
    var threshold = DuplicateFinder.defaultThreshold

    @Flag(help: "Merge the clusters whose links are all exact or strong (address books only).")
    var merge = false

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    func validate() throws {
        guard (0...1).contains(threshold) else { throw ValidationError("--threshold must be a number from 0 to 1, not \(threshold).") }
    }

    func run() async throws {
        try await reportingFailures {
            let progress = ProgressBar(format: format)
            let name = URL(fileURLWithPath: directory).lastPathComponent
            let reporter = progress.reporter { (step: ContactDiffProgress) in
                ProgressBar.Step(step, reading: name, comparing: "finding duplicates", comparedUnit: "pairs")
            }
            let set: ContactSet
            do throws(ContactDiffError) {
                set = try ContactSetReader.read(path: directory, progress: reporter)
            } catch {
                throw error.code == .missingInput ? CommandFailure.missingInput(error.description) : CommandFailure.io(error.description)
            }
            // Only what the finder reads: a card's other properties (a photo is most of its bytes)
            // are read again only for the content hash of cards that may be exact duplicates.
            let entries = set.parsed(selecting: DuplicateFinder.propertiesRead, progress: reporter)
            let clusters = DuplicateFinder(threshold: threshold).clusters(in: entries, progress: reporter)
            var merged: [MergeOutcome] = []
            if merge {
                let confident = clusters.filter { $0.confidence >= .strong && $0.members.allSatisfy { entries[$0].uid != nil } }
                merged = try await BookSession.open(directory, progress: progress) { book in
                    var outcomes: [MergeOutcome] = []
                    for cluster in confident {
                        progress.update(ProgressBar.Step(phase: "merging", done: outcomes.count, total: confident.count, unit: .items("clusters")))
                        let uids = Self.keeperFirst(cluster.members.map { entries[$0] }).compactMap(\.uid)
                        outcomes.append(try await book.mergeContacts(uids))
                    }
                    progress.update(ProgressBar.Step(phase: "merging", done: outcomes.count, total: confident.count, unit: .items("clusters")))
                    return outcomes
                }
            }
            progress.finish()
            switch format {
            case .text:
                for cluster in clusters {
                    let score = String(format: "%.2f", cluster.score)
                    print("\(cluster.confidence.rawValue) \(score): " + cluster.members.map { entries[$0].displayName }.joined(separator: " | "))
                    for member in cluster.members {
                        print("    <\(entries[member].uid ?? "no UID")> \(entries[member].origin)")
                    }
                    for link in cluster.links {
                        print("    \(entries[link.first].displayName) ~ \(entries[link.second].displayName): " + link.reasons.joined(separator: ", "))
                    }
                }
                let contacts = clusters.reduce(0) { $0 + $1.members.count }
                print("\(clusters.count) cluster\(clusters.count == 1 ? "" : "s") of probable duplicates (\(contacts) contacts) among \(entries.count)")
                for outcome in merged {
                    print("merged \(outcome.absorbed.map { "<\($0)>" }.joined(separator: ", ")) into <\(outcome.kept)>; "
                          + "`cardsync restore \(directory) \(outcome.kept)` undoes it")
                }
            case .json:
                let output = DuplicatesOutput(
                    path: directory, threshold: threshold, contacts: entries.count,
                    clusters: clusters.map { DuplicatesOutput.Cluster($0, entries: entries) },
                    merged: merged.map(MergeOutput.Merge.init))
                // Keys in sorted order, as the other commands print them; the clusters (thousands
                // in a large book) encoded on every core, one per line.
                try JSONOutput.printObject([
                    "clusters": try JSONOutput.encodedInParallel(output.clusters),
                    "command": output.command,
                    "contacts": output.contacts,
                    "merged": output.merged,
                    "path": output.path,
                    "schemaVersion": output.schemaVersion,
                    "threshold": output.threshold,
                ])
            }
        }
    }

    /// The member with the richest card first: it is the one kept.
    static func keeperFirst(_ members: [ContactEntry]) -> [ContactEntry] {
        let counts = members.map { $0.completeCard.properties.count }
        return members.indices.sorted { (counts[$0], -$0) > (counts[$1], -$1) }.map { members[$0] }
    }
}

/// `--format json` output of `duplicates`.
struct DuplicatesOutput: Encodable {
    struct Member: Encodable {
        var uid: String?
        var name: String
        var origin: String
    }

    struct Link: Encodable {
        var first: String
        var second: String
        var confidence: String
        var score: Double
        var reasons: [String]
    }

    struct Cluster: Encodable {
        var confidence: String
        var score: Double
        var members: [Member]
        var links: [Link]

        init(_ cluster: DuplicateCluster, entries: [ContactEntry]) {
            confidence = cluster.confidence.rawValue
            score = (cluster.score * 1000).rounded() / 1000
            members = cluster.members.map { Member(uid: entries[$0].uid, name: entries[$0].displayName, origin: entries[$0].origin) }
            links = cluster.links.map { link in
                Link(first: entries[link.first].uid ?? entries[link.first].origin, second: entries[link.second].uid ?? entries[link.second].origin,
                     confidence: link.confidence.rawValue, score: (link.score * 1000).rounded() / 1000, reasons: link.reasons)
            }
        }
    }

    var schemaVersion = 1
    var command = "duplicates"
    var path: String
    var threshold: Double
    var contacts: Int
    var clusters: [Cluster]
    var merged: [MergeOutput.Merge]
}
