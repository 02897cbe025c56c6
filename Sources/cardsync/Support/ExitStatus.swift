import ArgumentParser

/// Exit statuses scripts can rely on, the same for every command (sysexits.h). The README's
/// table and `cardsync --help` are made from ``all``; a test keeps them in step.
enum ExitStatus {
    /// Everything worked.
    static let success = ExitCode(0)
    /// `diff`: the two sides differ; `check`: the book is not consistent.
    static let differences = ExitCode(1)
    /// `diff`: a side could not be read (listed; the rest was compared).
    static let diffIncomplete = ExitCode(2)
    /// The command line is wrong: an unknown option, a missing argument, a bad value.
    static let usage = ExitCode(64)
    /// The input holds invalid data (errors, or warnings under `--strict`); `sync`: it refused
    /// to empty one side because the other became empty.
    static let invalidData = ExitCode(65)
    /// An input path does not exist, or a folder is not an address book.
    static let missingInput = ExitCode(66)
    /// The remote could not be reached, or kept failing (`sync`: nothing is lost; run it again).
    static let unavailable = ExitCode(69)
    /// A failure inside cardsync itself (a bug: please report it with the message).
    static let internalError = ExitCode(70)
    /// Reading or writing a file failed.
    static let ioError = ExitCode(74)
    /// Some contacts could not be synced this time; the rest were (run `sync` again).
    static let temporaryFailure = ExitCode(75)
    /// The remote refused the credentials or the operation.
    static let permissionDenied = ExitCode(77)
    /// The remote settings are wrong (a URL without database, an untrusted TLS certificate, an
    /// unreadable settings file).
    static let configuration = ExitCode(78)

    /// One row of the table: the status, its stable name (the `code` of a JSON error) and what it means.
    struct Row: Sendable {
        var status: Int32
        var name: String
        var meaning: String
    }

    /// Every status a command can exit with.
    static let all: [Row] = [
        Row(status: 0, name: "ok", meaning: "done"),
        Row(status: 1, name: "differences", meaning: "diff: sides differ; check: book inconsistent"),
        Row(status: 2, name: "diff-incomplete", meaning: "diff: a side could not be read (rest compared)"),
        Row(status: 64, name: "usage", meaning: "wrong command line (unknown option, no argument)"),
        Row(status: 65, name: "invalid-data", meaning: "invalid input data; sync: refused to empty a side"),
        Row(status: 66, name: "missing-input", meaning: "a path does not exist, or is not an address book"),
        Row(status: 69, name: "unavailable", meaning: "remote unreachable or failing (nothing is lost)"),
        Row(status: 70, name: "internal-error", meaning: "a failure inside cardsync (a bug: report it)"),
        Row(status: 74, name: "io-error", meaning: "reading or writing a file failed"),
        Row(status: 75, name: "temporary-failure", meaning: "sync: some contacts not synced (listed; rerun)"),
        Row(status: 77, name: "permission-denied", meaning: "the remote refused the credentials or operation"),
        Row(status: 78, name: "configuration", meaning: "remote settings wrong (no database, TLS, …)"),
    ]

    /// The stable name of `status`.
    static func name(of status: ExitCode) -> String {
        all.first { $0.status == status.rawValue }?.name ?? "exit-\(status.rawValue)"
    }

    /// The table as text, for `cardsync --help`. The root command's configuration holds it, so
    /// it is made on every run: it is written out here rather than padded from ``all`` each time
    /// (that cost a run about 0.3 ms, most of it the runtime's first conformance lookups).
    /// Debug builds, which the tests run, check it against ``all``.
    static let table: String = {
        let written = """
                0  ok                done
                1  differences       diff: sides differ; check: book inconsistent
                2  diff-incomplete   diff: a side could not be read (rest compared)
               64  usage             wrong command line (unknown option, no argument)
               65  invalid-data      invalid input data; sync: refused to empty a side
               66  missing-input     a path does not exist, or is not an address book
               69  unavailable       remote unreachable or failing (nothing is lost)
               70  internal-error    a failure inside cardsync (a bug: report it)
               74  io-error          reading or writing a file failed
               75  temporary-failure sync: some contacts not synced (listed; rerun)
               77  permission-denied the remote refused the credentials or operation
               78  configuration     remote settings wrong (no database, TLS, …)
            """
        assert(written == padded(all), "ExitStatus.table differs from ExitStatus.all:\n\(padded(all))")
        return written
    }()

    /// `rows` as the table's lines: the status right-aligned in five columns, the name padded to
    /// eighteen, the meaning.
    static func padded(_ rows: [Row]) -> String {
        rows.map { row in
            let number = String(row.status)
            return "  " + String(repeating: " ", count: 3 - number.count) + number + "  "
                + row.name + String(repeating: " ", count: max(0, 18 - row.name.count)) + row.meaning
        }.joined(separator: "\n")
    }
}
