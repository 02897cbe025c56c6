/// What a scan of the folder found and recorded.
public struct ScanReport: Sendable {
    /// The contact files in the folder.
    public var filesSeen = 0
    /// The files that were read because they were new or their size, times or inode changed.
    public var filesRead = 0
    /// The events the scan recorded (additions, updates, renames, deletions), without card text.
    public var events: [JournalEvent] = []
    /// Files that could not be read or tracked; they were left untouched.
    public var problems: [StoreProblem] = []
    /// Files rewritten to hold their generated UID (`addingMissingUIDs`).
    public var filesGivenUIDs: [String] = []

    /// Creates an empty report.
    public init() {}

    /// The number of events with operation `operation`.
    public func count(_ operation: JournalEvent.Operation) -> Int {
        events.count { $0.operation == operation }
    }

    /// Whether the scan found no change.
    public var isUnchanged: Bool { events.isEmpty }
}

/// A problem with one file or card, reported and left alone.
public struct StoreProblem: Sendable, Hashable, CustomStringConvertible {
    /// A stable, kebab-case kind: `unreadable-file`, `duplicate-uid`, `invalid-card`, …
    public var code: String
    /// The file, relative to the book (or the input path, for imports).
    public var file: String
    /// The 1-based line, when known.
    public var line: Int?
    /// What is wrong and what to do.
    public var message: String

    /// Creates a problem.
    public init(code: String, file: String, line: Int? = nil, message: String) {
        self.code = code
        self.file = file
        self.line = line
        self.message = message
    }

    /// `file:line: message [code]`.
    public var description: String {
        "\(file)\(line.map { ":\($0)" } ?? ""): \(message) [\(code)]"
    }
}
