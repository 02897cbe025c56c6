import ArgumentParser
import ContactDiff
import Foundation
import CouchClient
import SyncEngine
import VCardKit

/// `cardsync diff`: compares two contact sets.
struct DiffCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare two sets of contacts: what was added, removed and changed.",
        discussion: """
        A and B are each a vCard, jCard or xCard file (any number of cards), a folder of them \
        (an address book folder too), or the URL of a CouchDB database that `cardsync sync` \
        writes (its password in the URL, in CARDSYNC_PASSWORD or in --password-file). Contacts are paired by UID, then by content, then (with \
        --match fuzzy, the default) by the same person: normalised name with a shared e-mail \
        address or telephone number, or a shared e-mail address with a similar name. Differences \
        of form only (folding, case, parameter order, 3.0 or 4.0 spelling, property order, REV, \
        PRODID) are not differences unless --exact.

        Exit status as diff(1): 0 when the sets say the same, 1 when they differ, 2 or more on trouble
        (2 also when some cards could not be read: they are listed, the rest is compared).

        Examples:
          cardsync diff yesterday.vcf ~/contacts
          cardsync diff old.vcf new.vcf --ignore NOTE --ignore PHOTO --format json
          cardsync diff http://me@localhost:5984/contacts ~/contacts --password-file ~/.couch-password
        """
    )

    @Argument(help: "The old contact set: a file, a folder or a CouchDB database URL.")
    var old: String

    @Argument(help: "The new contact set: a file, a folder or a CouchDB database URL.")
    var new: String

    @Option(name: .customLong("match"), help: "How contacts are paired: uid, content or fuzzy.")
    var match: MatchOption = .fuzzy

    var strategy: MatchStrategy { MatchStrategy(rawValue: match.rawValue)! }

    @Option(name: .customLong("ignore"), parsing: .upToNextOption, help: ArgumentHelp("Properties to leave out of the comparison.", valueName: "PROP"))
    var ignored: [String] = []

    @Flag(help: "Count differences of form too (folding, case, parameter order, version spelling, REV, UID).")
    var exact = false

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    @Option(help: ArgumentHelp("For a CouchDB URL: a file whose first line is the password.", valueName: "file"))
    var passwordFile: String?

    @Flag(help: "For an https URL: do not verify the server's TLS certificate.")
    var insecure = false

    func run() async throws {
        do {
            try await compare()
        } catch var failure as CommandFailure {
            // 1 means "the sides differ" here: a failure is never that.
            if failure.exitCode.rawValue == 1 { failure.exitCode = ExitStatus.diffIncomplete }
            try await reportingFailures { throw failure }
        }
    }

    private func compare() async throws {
        let progress = ProgressBar(format: format)
        let oldSet = try await read(old, progress: progress)
        let newSet = try await read(new, progress: progress)
        let comparison = ContactSetComparison(strategy: strategy, ignoring: Set(ignored), exact: exact)
        let difference = comparison.compare(oldSet, newSet, progress: progress.reporter { step in
            ProgressBar.Step(step, reading: "", comparing: "comparing", comparedUnit: "contacts")
        })
        progress.finish()
        switch format {
        case .text:
            print(DiffText(usesColor: StandardError.isOutputTerminal).render(difference), terminator: "")
        case .json:
            let output = DiffOutput(old: RemoteLocation.redacted(old), new: RemoteLocation.redacted(new), match: strategy.rawValue, exact: exact, difference: difference)
            try JSONOutput.printObject([
                "schemaVersion": output.schemaVersion, "command": output.command, "old": output.old, "new": output.new,
                "match": output.match, "exact": output.exact, "summary": output.summary, "contacts": output.contacts,
            ])
        }
        // Contacts that could not be read were not compared: the answer is incomplete, which
        // diff(1) reports as trouble.
        let unread = (oldSet.diagnostics + newSet.diagnostics).filter { $0.severity == .error }.count
        if unread > 0 {
            StandardError.print("cardsync: error: \(unread) reading error\(unread == 1 ? "" : "s") (listed above): the cards concerned were not compared, so the result is incomplete; fix them and compare again")
            throw ExitCode(2)
        }
        if difference.hasDifferences { throw ExitCode(1) }
    }

    private func read(_ path: String, progress: ProgressBar) async throws -> ContactSet {
        let set = if path.lowercased().hasPrefix("http://") || path.lowercased().hasPrefix("https://") {
            try await readDatabase(path)
        } else {
            try readPath(path, progress: progress.reporter { [name = URL(fileURLWithPath: path).lastPathComponent] step in
                ProgressBar.Step(step, reading: name, comparing: "comparing", comparedUnit: "contacts")
            })
        }
        let errors = set.diagnostics.filter { $0.severity == .error }
        for error in errors.prefix(20) { StandardError.print(TerminalText.escaped("\(error.location.source):\(error.location.line): error: \(error.message)")) }
        if errors.count > 20 { StandardError.print("cardsync: \(errors.count - 20) more errors in \(set.name)") }
        return set
    }

    /// The contact documents of the database at `url`, with the password resolved as `sync` does.
    private func readDatabase(_ url: String) async throws -> ContactSet {
        let location: RemoteLocation
        do {
            location = try RemoteLocation(parsing: url, password: try RemoteChoice.password(file: passwordFile))
        } catch let error as SyncError {
            throw CommandFailure(message: error.message, exitCode: ExitStatus.configuration)
        }
        let choice = RemoteChoice(location: location, insecure: insecure, embeddedData: nil)
        do {
            return try await withRemoteClient(choice) { client, _ in
                try await ContactSetReader.read(from: DatabaseContactSetSource(database: client.database(location.database), name: location.key))
            }
        } catch let error as CouchClientError {
            let status = switch error.code {
            case .unauthorized, .forbidden: ExitStatus.permissionDenied
            case .notFound: ExitStatus.missingInput
            case .tls: ExitStatus.configuration
            default: ExitStatus.unavailable
            }
            if error.code == .connectionRefused || error.code == .unknownHost {
                throw CommandFailure(message: "cannot reach \(location.key): \(error.underlying ?? error.code.description); check the URL and that the server runs",
                                     exitCode: status, url: location.urlWithoutPassword)
            }
            let hint = error.code == .tls ? "; if you trust this server, compare with --insecure" : ""
            throw CommandFailure(message: "\(location.key): \(error.description)\(hint)", exitCode: status, url: location.urlWithoutPassword)
        }
    }

    private func readPath(_ path: String, progress: (@Sendable (ContactDiffProgress) -> Void)?) throws(CommandFailure) -> ContactSet {
        do throws(ContactDiffError) {
            return try ContactSetReader.read(path: path, progress: progress)
        } catch {
            switch error.code {
            case .missingInput: throw CommandFailure.missingInput(error.description)
            case .invalidInput: throw CommandFailure.invalidData(error.description)
            default: throw CommandFailure.io(error.description)
            }
        }
    }
}

/// `--match`: the spellings of ``MatchStrategy``.
enum MatchOption: String, ExpressibleByArgument, CaseIterable {
    case uid, content, fuzzy
}

/// The text form of a comparison: one line per contact, then its property changes.
struct DiffText {
    var usesColor: Bool

    private func paint(_ text: String, _ code: String) -> String { usesColor ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }

    func render(_ difference: ContactSetDifference) -> String {
        var out = ""
        for contact in difference.contacts {
            switch contact.status {
            case .added:
                out += paint("+ \(contact.name)", "32") + (contact.newOrigin.map { "  (\($0))" } ?? "") + "\n"
            case .removed:
                out += paint("- \(contact.name)", "31") + (contact.oldOrigin.map { "  (\($0))" } ?? "") + "\n"
            case .changed:
                out += paint("~ \(contact.name)", "33") + "  matched by \(contact.match?.rawValue ?? "uid")\n"
                for change in contact.changes { out += "    " + line(change) + "\n" }
            case .unchanged:
                out += "= \(contact.name)  matched by \(contact.match?.rawValue ?? "uid")"
                    + (contact.oldUID != contact.newUID ? ", UID \(contact.oldUID ?? "none") → \(contact.newUID ?? "none")" : "") + "\n"
            }
        }
        let summary = difference.summary
        out += "\(summary.added) added, \(summary.removed) removed, \(summary.changed) changed, \(summary.unchanged) unchanged\n"
        return out
    }

    /// A canonical value as people read it: `\;`, `\,` and `\\` unescaped; `\n` stays visible.
    static func readable(_ value: String?) -> String {
        guard let value else { return "" }
        var out = ""
        var escaped = false
        for character in value {
            if escaped {
                out += character == "n" || character == "N" ? "\\n" : String(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                out.append(character)
            }
        }
        return out
    }

    private func line(_ change: PropertyChange) -> String {
        func parameters(_ list: [String]) -> String { list.isEmpty ? "" : ";" + list.joined(separator: ";") }
        var change = change
        change.oldValue = change.oldValue.map { Self.readable($0) }
        change.newValue = change.newValue.map { Self.readable($0) }
        switch change.kind {
        case .added:
            return paint("+ \(change.property)\(parameters(change.newParameters)): \(change.newValue ?? "")", "32")
        case .removed:
            return paint("- \(change.property)\(parameters(change.oldParameters)): \(change.oldValue ?? "")", "31")
        case .changed:
            return paint("~ \(change.property): ", "33") + paint("\(change.oldValue ?? "")\(parameters(change.oldParameters))", "31")
                + " → " + paint("\(change.newValue ?? "")\(parameters(change.newParameters))", "32")
        case .parameters:
            return paint("~ \(change.property): \(change.newValue ?? "")  ", "33")
                + paint(change.oldParameters.joined(separator: ";").isEmpty ? "(no parameters)" : change.oldParameters.joined(separator: ";"), "31")
                + " → " + paint(change.newParameters.joined(separator: ";").isEmpty ? "(no parameters)" : change.newParameters.joined(separator: ";"), "32")
        case .form:
            return paint("~ written differently (property order, folding or line ends)", "33")
        }
    }
}

/// `--format json` output of `diff`, printed in this order: the summary before the details.
struct DiffOutput {
    struct Contact: Encodable {
        var status: String
        var match: String?
        var name: String
        var oldUID: String?
        var newUID: String?
        var oldOrigin: String?
        var newOrigin: String?
        var changes: [PropertyChange]
    }

    var schemaVersion = 1
    var command = "diff"
    var old: String
    var new: String
    var match: String
    var exact: Bool
    var summary: DiffSummary
    var contacts: [Contact]

    init(old: String, new: String, match: String, exact: Bool, difference: ContactSetDifference) {
        self.old = old
        self.new = new
        self.match = match
        self.exact = exact
        summary = difference.summary
        contacts = difference.contacts.map { contact in
            Contact(status: contact.status.rawValue, match: contact.match?.rawValue, name: contact.name, oldUID: contact.oldUID,
                    newUID: contact.newUID, oldOrigin: contact.oldOrigin, newOrigin: contact.newOrigin, changes: contact.changes)
        }
    }
}
