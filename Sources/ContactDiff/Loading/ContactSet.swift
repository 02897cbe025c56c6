public import VCardKit

/// The contacts of one side of a comparison, read but not yet parsed: cards of vCard text stay
/// as their bytes until something needs them, so that two versions of a large book can be
/// compared without parsing the cards they have in common.
///
/// ```swift
/// let old = try ContactSetReader.read(path: "old.vcf")
/// let entries = old.parsed()   // every card, parsed on every core
/// ```
public struct ContactSet: Sendable {
    /// One card as read.
    public enum Item: Sendable {
        /// A card of vCard text, framed but not parsed.
        case frame(VCardFrame)
        /// A card of plain vCard text, not even framed: its bytes, the input's name, and the
        /// line its `BEGIN:VCARD` is on.
        case text(ArraySlice<UInt8>, source: String, line: Int)
        /// A card already parsed (jCard, xCard), with where it was read.
        case card(VCard, origin: String)

        /// The card's bytes as read, for vCard text.
        public var text: ArraySlice<UInt8>? {
            switch self {
            case .frame(let frame): frame.text[...]
            case .text(let bytes, _, _): bytes
            case .card: nil
            }
        }
    }

    /// What was read: the path, or the name given.
    public var name: String
    /// The cards, in reading order (files in the byte order of their names).
    public var items: [Item]
    /// Problems found while reading: unreadable files, cards with errors (left out), warnings.
    public var diagnostics: [Diagnostic]

    /// Creates a set from its items.
    public init(name: String, items: [Item], diagnostics: [Diagnostic] = []) {
        self.name = name
        self.items = items
        self.diagnostics = diagnostics
    }

    /// Every card parsed, in order, on every core. Cards that cannot be recovered are left out
    /// (their errors are in ``diagnostics`` after ``ContactSetReader`` read them).
    public func parsed() -> [ContactEntry] {
        Self.parse(items)
    }

    /// Every card parsed, in order, on every core, with only the properties named (upper case;
    /// `VERSION` is always read) where the card's text allows it (``PropertySelection``): a card
    /// of plain vCard text whose lines are all properties or folds. The entries are
    /// ``ContactEntry/isPartial``; their ``ContactEntry/hash`` and ``ContactEntry/completeCard``
    /// read the whole card. What the properties named say is the same as in ``parsed()``.
    ///
    /// ```swift
    /// let entries = set.parsed(selecting: DuplicateFinder.propertiesRead)
    /// ```
    /// - Parameters:
    ///   - names: the property names read.
    ///   - progress: called with the cards parsed (step ``ContactDiffProgress/Step/parsing``)
    ///     before the first and after each batch of cards.
    public func parsed(selecting names: Set<String>,
                       progress: (@Sendable (ContactDiffProgress) -> Void)? = nil) -> [ContactEntry] {
        let names = Set(names.map { $0.uppercased() })
        let total = items.count
        let reported = progress.map { progress in { (done: Int) in progress(ContactDiffProgress(step: .parsing, done: done, total: total)) } }
        return Parallel.map(items, minimumPerWorker: 32, progress: reported) { item -> ContactEntry? in
            guard case .text(let bytes, let source, let line) = item else { return Self.parse([item]).first }
            // Plain 3.0 and 4.0 cards are read in one pass without the full reader; the others
            // are cut down to the lines named, when their syntax allows, before the full reader.
            let card: VCard
            if let plain = PlainCardReader.read(bytes, sourceName: source, firstLine: line, selecting: names) {
                card = plain
            } else if let selected = PropertySelection.select(names, from: bytes),
                      let read = (try? VCardReader.read(selected, sourceName: source))?.cards.first {
                card = read
            } else {
                return Self.parse([item]).first
            }
            var entry = ContactEntry(card: card, origin: "\(source):\(line)")
            entry.wholeText = (bytes, source)
            return entry
        }.compactMap { $0 }
    }

    /// Parses `items` on every core, keeping their order; unrecoverable cards are left out.
    /// - Parameters:
    ///   - items: the cards.
    ///   - progress: called with the cards parsed (step ``ContactDiffProgress/Step/parsing``)
    ///     before the first and after each batch of cards.
    public static func parse(_ items: [Item], progress: (@Sendable (ContactDiffProgress) -> Void)? = nil) -> [ContactEntry] {
        let reported = progress.map { progress in { (done: Int) in progress(ContactDiffProgress(step: .parsing, done: done, total: items.count)) } }
        return Parallel.map(items, minimumPerWorker: 32, progress: reported) { item -> ContactEntry? in
            switch item {
            case .card(let card, let origin):
                return ContactEntry(card: card, origin: origin)
            case .frame(let frame):
                guard let card = frame.parse().card else { return nil }
                return ContactEntry(card: card, origin: "\(frame.sourceName):\(frame.firstLine)")
            case .text(let bytes, let source, let line):
                guard let card = (try? VCardReader.read(bytes, sourceName: source))?.cards.first else { return nil }
                return ContactEntry(card: card, origin: "\(source):\(line)")
            }
        }.compactMap { $0 }
    }
}
