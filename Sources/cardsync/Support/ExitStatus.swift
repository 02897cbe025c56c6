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
}
