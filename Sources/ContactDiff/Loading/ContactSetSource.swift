/// Where a contact set is read from, given to ContactDiff by whoever knows the place: a file or
/// folder (``ContactPathSource``), or a server's database, which the `cardsync` command wires to
/// its client. ContactDiff compares contact sets and knows no network or sync protocol.
///
/// ```swift
/// struct Snapshot: ContactSetSource {
///     var name: String { "snapshot" }
///     var vcf: [UInt8]
///     func readContactSet() async throws -> ContactSet { ContactSetReader.read(bytes: vcf, name: name) }
/// }
/// let old = try await ContactSetReader.read(from: Snapshot(vcf: bytes))
/// ```
public protocol ContactSetSource: Sendable {
    /// What the set is called in origins and diagnostics (never a password).
    var name: String { get }

    /// Reads the set: its cards (vCard text is kept unparsed until needed, see ``ContactSet``),
    /// and the problems met, as diagnostics of the set (a card that cannot be read is left out
    /// and reported there).
    /// - Throws: when the source cannot be read at all.
    func readContactSet() async throws -> ContactSet
}

/// A file (vCard, jCard or xCard) or a folder of them, read with ``ContactSetReader/read(path:)``.
public struct ContactPathSource: ContactSetSource {
    /// The path.
    public var path: String

    /// A source for the file or folder at `path`.
    public init(path: String) {
        self.path = path
    }

    public var name: String { path }

    /// - Throws: ``ContactDiffError`` — `missingInput`, `io` or `invalidInput`.
    public func readContactSet() async throws -> ContactSet {
        try ContactSetReader.read(path: path)
    }
}

extension ContactSetReader {
    /// Reads the contact set `source` holds.
    /// - Throws: what the source throws when it cannot be read.
    public static func read(from source: some ContactSetSource) async throws -> ContactSet {
        try await source.readContactSet()
    }
}
