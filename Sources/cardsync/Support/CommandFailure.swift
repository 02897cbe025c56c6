import ArgumentParser

/// A failure that ends a command with a message on standard error and an exit status.
struct CommandFailure: Error, CustomStringConvertible {
    /// What to tell the user: what is wrong and what to do.
    var message: String
    /// The exit status.
    var exitCode: ExitCode

    static func missingInput(_ message: String) -> Self { Self(message: message, exitCode: ExitStatus.missingInput) }
    static func io(_ message: String) -> Self { Self(message: message, exitCode: ExitStatus.ioError) }
    static func invalidData(_ message: String) -> Self { Self(message: message, exitCode: ExitStatus.invalidData) }

    var description: String { message }
}

extension ParsableCommand {
    /// Runs `body`; a ``CommandFailure`` is printed as `cardsync: error: …` and becomes its exit status.
    func reportingFailures(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let failure as CommandFailure {
            StandardError.print("cardsync: error: \(failure.message)")
            throw failure.exitCode
        }
    }
}
