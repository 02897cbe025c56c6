import ArgumentParser

/// Exit statuses scripts can rely on (sysexits.h, as STYLE.md lists them).
enum ExitStatus {
    /// Everything worked.
    static let success = ExitCode(0)
    /// The input holds invalid data (errors, or warnings under `--strict`).
    static let invalidData = ExitCode(65)
    /// An input path does not exist.
    static let missingInput = ExitCode(66)
    /// Reading or writing a file failed.
    static let ioError = ExitCode(74)
    /// The remote could not be reached, or kept failing (`sync`: nothing is lost; run it again).
    static let unavailable = ExitCode(69)
    /// Some contacts could not be synced this time; the rest were (run `sync` again).
    static let temporaryFailure = ExitCode(75)
    /// The remote refused the credentials or the operation.
    static let permissionDenied = ExitCode(77)
    /// The remote settings are wrong (a URL without database, an unreadable settings file).
    static let configuration = ExitCode(78)
}
