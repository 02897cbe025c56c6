public import Foundation
public import Testing

/// One row of `../shared/corpus/INDEX.tsv`.
public struct CorpusEntry: Sendable, Hashable, CustomStringConvertible {
    /// What a reader must make of the file.
    public enum Expectation: String, Sendable, Hashable {
        /// Conforms to its version: no errors.
        case valid
        /// Deviates, but every card is read, with warnings.
        case lenient
        /// Broken: an error naming the line.
        case invalid
    }

    public var path: String
    public var version: String
    public var cards: Int
    public var bytes: Int
    public var quirks: [String]
    public var expected: Expectation

    /// Whether the file is vCard text (not jCard or xCard).
    public var isVCardText: Bool { version != "jcard" && version != "xcard" }

    public var url: URL { TestPaths.corpus.appendingPathComponent(path) }

    public var description: String { path }
}

/// The corpus index, read once.
public enum CorpusIndex {
    /// Every row of INDEX.tsv, or an empty list when the corpus is not there (and `CI` is not
    /// set: in CI a missing corpus is a failure, reported by ``isAvailable``).
    public static let entries: [CorpusEntry] = {
        let indexURL = TestPaths.corpus.appendingPathComponent("INDEX.tsv")
        guard let text = try? String(contentsOf: indexURL, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line -> CorpusEntry? in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 6, let expected = CorpusEntry.Expectation(rawValue: fields[5]) else { return nil }
            return CorpusEntry(path: fields[0], version: fields[1], cards: Int(fields[2]) ?? 0, bytes: Int(fields[3]) ?? 0,
                               quirks: fields[4].split(separator: ",").map(String.init), expected: expected)
        }
    }()

    /// Whether the corpus was found.
    public static var isAvailable: Bool { !entries.isEmpty }
}

extension Trait where Self == ConditionTrait {
    /// Runs a test only when `../shared/corpus` is there, and says why it is skipped otherwise.
    public static var needsSharedCorpus: Self {
        .enabled(if: CorpusIndex.isAvailable,
                 "needs the real-world corpus in ../shared/corpus beside the repository (or CARDSYNC_SHARED); it is absent")
    }
}
