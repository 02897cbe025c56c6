public import Foundation

/// The answer key of a generated pair of books: what changed from the old book to the new one.
///
/// Written by `cardsync generate --diff-pair` beside the two books:
///
/// ```json
/// {"added":["…"],"edited":[{"change":"added","property":"EMAIL","uid":"…"}],"newCount":10000,
///  "oldCount":10000,"reformatted":[{"changes":["fold-width"],"uid":"…"}],"removed":["…"],
///  "schemaVersion":1,"seed":7,"uidChanged":[{"new":"…","old":"…"}]}
/// ```
public struct DiffPairLabels: Codable, Sendable, Hashable {
    /// One edited value.
    public struct Edit: Codable, Sendable, Hashable {
        /// The contact's UID (the same in both books).
        public var uid: String
        /// The upper-case name of the property edited.
        public var property: String
        /// `added`, `removed` or `changed`: what a property-level diff reports.
        public var change: String
    }

    /// A card written in another form with the same meaning.
    public struct Reformat: Codable, Sendable, Hashable {
        /// The contact's UID (the same in both books).
        public var uid: String
        /// The changes of form (the spellings of ``DuplicateLabel/Change``).
        public var changes: [DuplicateLabel.Change]
    }

    /// A card given a new UID, its content unchanged.
    public struct NewUID: Codable, Sendable, Hashable {
        /// The UID in the old book.
        public var old: String
        /// The UID in the new book.
        public var new: String
    }

    /// The version of this format; 1.
    public var schemaVersion = 1
    /// The seed the books were generated from.
    public var seed: UInt64
    /// The number of cards in the old book.
    public var oldCount: Int
    /// The number of cards in the new book.
    public var newCount: Int
    /// UIDs of the cards only in the new book.
    public var added: [String] = []
    /// UIDs of the cards only in the old book.
    public var removed: [String] = []
    /// Cards with one value added, removed or changed.
    public var edited: [Edit] = []
    /// Cards written in another form only.
    public var reformatted: [Reformat] = []
    /// Cards with a new UID and the same content.
    public var uidChanged: [NewUID] = []

    /// The labels as JSON with sorted keys, without a trailing newline.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
