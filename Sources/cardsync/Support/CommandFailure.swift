import ArgumentParser
import Foundation

/// A failure that ends a command with a message on standard error and an exit status.
struct CommandFailure: Error, CustomStringConvertible {
    /// What to tell the user: what is wrong and what to do.
    var message: String
    /// The exit status.
    var exitCode: ExitCode
    /// The file or folder concerned, if any.
    var path: String?
    /// The remote concerned (never with a password), if any.
    var url: String?

    init(message: String, exitCode: ExitCode, path: String? = nil, url: String? = nil) {
        self.message = message
        self.exitCode = exitCode
        self.path = path
        self.url = url
    }

    static func missingInput(_ message: String, path: String? = nil) -> Self {
        Self(message: message, exitCode: ExitStatus.missingInput, path: path)
    }
    static func io(_ message: String, path: String? = nil) -> Self { Self(message: message, exitCode: ExitStatus.ioError, path: path) }
    static func invalidData(_ message: String, path: String? = nil) -> Self {
        Self(message: message, exitCode: ExitStatus.invalidData, path: path)
    }

    var description: String { message }
}

/// A command with `--format text|json`: with `json`, a failure is also one JSON object on
/// standard output (``FailureOutput``).
protocol FormattedCommand {
    var format: OutputFormat { get }
}

/// The JSON object a failing command prints with `--format json` (`Schemas/cli-output.schema.json`, `failure`).
struct FailureOutput: Encodable {
    struct Detail: Encodable {
        /// The stable name of the exit status (`missing-input`, `unavailable`, …).
        var code: String
        var message: String
        var exitStatus: Int32
        var path: String?
        var url: String?
    }

    var schemaVersion = 1
    var command: String
    var error: Detail

    init(command: String, failure: CommandFailure) {
        self.command = command
        error = Detail(code: ExitStatus.name(of: failure.exitCode), message: failure.message,
                       exitStatus: failure.exitCode.rawValue, path: failure.path, url: failure.url)
    }

    /// Prints it; a failure to encode is left to the message already on standard error.
    func print() {
        try? JSONOutput.print(self)
    }
}

extension ParsableCommand {
    /// Runs `body`. A ``CommandFailure`` is printed as `cardsync: error: …` (and, under
    /// `--format json`, as one JSON object on standard output) and becomes its exit status; any
    /// other error is an internal error (70), reported the same way.
    func reportingFailures(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let status as ExitCode {
            throw status
        } catch let exit as CleanExit {
            throw exit
        } catch let error {
            let error: any Error = (error as? ValidationError).map {
                CommandFailure(message: $0.message, exitCode: ExitStatus.usage)
            } ?? error
            let failure = error as? CommandFailure
                ?? CommandFailure(message: "internal error: \(error) (please report it)", exitCode: ExitStatus.internalError)
            StandardError.print("cardsync: error: \(TerminalText.escaped(failure.message, keepingLineFeeds: true))")
            if let formatted = self as? any FormattedCommand, formatted.format == .json {
                FailureOutput(command: Self.configuration.commandName ?? "cardsync", failure: failure).print()
            }
            throw failure.exitCode
        }
    }
}
