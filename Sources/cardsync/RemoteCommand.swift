import ArgumentParser
import ContactStore
import Foundation
import SyncEngine

/// `cardsync remote`: the database an address book syncs with.
struct RemoteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote",
        abstract: "Set, show or remove the database an address book syncs with.",
        discussion: """
            The URL is kept in DIR/.cardsync/remote.json without its password: give the password \
            at sync time with CARDSYNC_PASSWORD, or here with --password-file (the file's name is \
            kept, never its content). Without a remote, `cardsync sync` uses the embedded endpoint.

            Examples:
              cardsync remote ~/contacts set https://alice@couch.example.com/contacts --password-file ~/.couch-password
              cardsync remote ~/contacts show
              cardsync remote ~/contacts remove
            """
    )

    enum Action: String, ExpressibleByArgument, CaseIterable { case set, show, remove }

    @Argument(help: "The address book folder.")
    var directory: String

    @Argument(help: "set, show or remove.")
    var action: Action

    @Argument(help: "For set: the database URL, e.g. http://user@127.0.0.1:5984/contacts.")
    var url: String?

    @Option(help: ArgumentHelp("For set: a file whose first line is the password (its name is kept).", valueName: "file"))
    var passwordFile: String?

    @Flag(help: "For set: do not verify the server's TLS certificate.")
    var insecure = false

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    func validate() throws {
        if action == .set && url == nil { throw ValidationError("set needs the database URL: cardsync remote DIR set URL") }
        if action != .set && (url != nil || passwordFile != nil || insecure) {
            throw ValidationError("only set takes a URL, --password-file or --insecure")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let book = URL(fileURLWithPath: directory)
            var notes: [String] = []
            var settings: RemoteSettings?
            do {
                switch action {
                case .set:
                    let location: RemoteLocation
                    do { location = try RemoteLocation(parsing: url!) } catch {
                        throw CommandFailure(message: (error as? SyncError)?.message ?? "\(error)", exitCode: ExitStatus.configuration)
                    }
                    if let passwordFile, !FileManager.default.isReadableFile(atPath: passwordFile) {
                        throw CommandFailure.missingInput("\(passwordFile): cannot read the password file")
                    }
                    if URLComponents(string: url!)?.password != nil {
                        notes.append("the password in the URL is not stored; give it at sync time with CARDSYNC_PASSWORD or --password-file")
                    }
                    let absoluteFile = passwordFile.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
                    settings = RemoteSettings(url: location.urlWithoutPassword, passwordFile: absoluteFile, insecure: insecure)
                    try RemoteSettings.save(settings, book: book)
                case .show:
                    settings = try RemoteSettings.load(book: book)
                case .remove:
                    settings = try RemoteSettings.load(book: book)
                    try RemoteSettings.save(nil, book: book)
                }
            } catch let error as ContactStoreError {
                throw CommandFailure(message: error.description, exitCode: error.code == .notAnAddressBook ? ExitStatus.missingInput : ExitStatus.ioError)
            }
            for note in notes { StandardError.print("cardsync: note: \(note)") }
            switch format {
            case .json:
                try JSONOutput.print(RemoteOutput(book: directory, action: action.rawValue, url: settings?.url,
                                                  passwordFile: settings?.passwordFile, insecure: settings?.insecure ?? false))
            case .text:
                switch action {
                case .set: print("\(directory) syncs with \(settings!.url)")
                case .show:
                    if let settings {
                        print(settings.url + (settings.passwordFile.map { " (password from \($0))" } ?? "") + (settings.insecure ? " (TLS not verified)" : ""))
                    } else {
                        print("no remote set: `cardsync sync \(directory)` uses the embedded endpoint (data: \(EmbeddedEndpoint.dataDirectory))")
                    }
                case .remove:
                    print(settings == nil ? "no remote was set" : "removed \(settings!.url); `cardsync sync \(directory)` now uses the embedded endpoint")
                }
            }
        }
    }
}

/// `--format json` output of `remote`.
struct RemoteOutput: Encodable {
    var schemaVersion = 1
    var command = "remote"
    var book: String
    var action: String
    var url: String?
    var passwordFile: String?
    var insecure: Bool
}
