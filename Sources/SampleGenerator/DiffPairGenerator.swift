/// Generates two versions of an address book with labelled differences, to test and measure
/// comparisons: the old book, the new book, and ``DiffPairLabels`` saying what changed.
///
/// ```swift
/// let pair = DiffPairGenerator(count: 10_000, seed: 7, changeRate: 0.01)
/// var old: [UInt8] = [], new: [UInt8] = []
/// let labels = pair.write(old: &old, new: &new)
/// ```
///
/// The old book is what ``AddressBookGenerator`` makes with no duplicates. Each of its cards is,
/// in the new book, with probability `changeRate` each: removed; edited (one value of `TITLE`,
/// `NOTE`, `EMAIL` or `TEL` added, removed or changed); rewritten in another form with the same
/// meaning (other version, folding, case, parameter or property order); or given a new UID.
/// The rest are copied byte for byte, and `changeRate × count` new contacts are added at the end.
public struct DiffPairGenerator: Sendable {
    /// What happens to one card of the old book.
    enum Fate {
        case kept, removed, edited, reformatted, newUID
    }

    /// The options of the old book.
    public let options: GeneratorOptions
    /// The share of old cards removed, and of each kind of change; also the share of cards added.
    public let changeRate: Double
    private let planner: CardPlanner

    /// Creates a generator.
    /// - Parameters:
    ///   - count: the number of cards in the old book.
    ///   - seed: the seed every choice is derived from.
    ///   - version: the cards' version.
    ///   - photoRate: the share of cards with a photo.
    ///   - changeRate: the share of cards removed, edited, reformatted, given a new UID (each), and added.
    public init(count: Int, seed: UInt64, version: GeneratorOptions.Version = .mixed, photoRate: Double = 0.1, changeRate: Double = 0.01) {
        options = GeneratorOptions(count: count, seed: seed, version: version, photoRate: photoRate)
        self.changeRate = min(max(changeRate.isNaN ? 0 : changeRate, 0), 0.25)
        planner = CardPlanner(options: options)
    }

    /// The number of cards added to the new book.
    public var addedCount: Int { Int((Double(options.clampedCount) * changeRate).rounded()) }

    func fate(of index: Int) -> Fate {
        let draw = SplitMix64.finalize(SeedStream.role.seed(options.seed ^ 0xD1FF_D1FF, index: index))
        let unit = SeededRandom.unit(draw)
        switch unit {
        case ..<changeRate: return .removed
        case ..<(2 * changeRate): return .edited
        case ..<(3 * changeRate): return .reformatted
        case ..<(4 * changeRate): return .newUID
        default: return .kept
        }
    }

    /// Appends the old book to `old` and the new book to `new`, and returns the labels.
    @discardableResult
    public func write(old: inout [UInt8], new: inout [UInt8]) -> DiffPairLabels {
        var labels = DiffPairLabels(seed: options.seed, oldCount: options.clampedCount, newCount: 0)
        for index in 0..<options.clampedCount {
            let prepared = planner.prepare(index)
            prepared.write(to: &old)
            let fate = fate(of: index)
            var random = SeedStream.nearChanges.generator(options.seed ^ 0xD1FF_D1FF, index: index)
            switch fate {
            case .kept:
                prepared.write(to: &new)
            case .removed:
                labels.removed.append(prepared.uid)
            case .edited:
                var contact = planner.content(of: index).contact
                let version = planner.contentVersion(of: index)
                let edit = Self.edit(&contact, version: version, options: options, using: &random)
                labels.edited.append(DiffPairLabels.Edit(uid: contact.uid, property: edit.property, change: edit.change))
                write(contact, version: version, form: .standard, to: &new)
            case .reformatted:
                let contact = planner.content(of: index).contact
                let result = Reformatter(includesPhotoData: true).reformat(
                    contact, version: planner.contentVersion(of: index), allowsVersionChange: options.version == .mixed, using: &random)
                var writer = LineWriter(form: result.form)
                writer.write(result.lines, to: &new)
                labels.reformatted.append(DiffPairLabels.Reformat(uid: contact.uid, changes: result.changes))
            case .newUID:
                var contact = planner.content(of: index).contact
                let uid = UUIDText.make(using: &random, uppercase: false)
                labels.uidChanged.append(DiffPairLabels.NewUID(old: contact.uid, new: uid))
                contact.uid = uid
                write(contact, version: planner.contentVersion(of: index), form: .standard, to: &new)
            }
        }
        for offset in 0..<addedCount {
            let prepared = planner.prepare(options.clampedCount + offset)
            prepared.write(to: &new)
            labels.added.append(prepared.uid)
        }
        labels.newCount = options.clampedCount - labels.removed.count + addedCount
        return labels
    }

    private func write(_ contact: Contact, version: CardVersion, form: LineForm, to output: inout [UInt8]) {
        var writer = LineWriter(form: form)
        writer.write(ContactRenderer(version: version, includesPhotoData: true).lines(for: contact), to: &output)
    }

    /// Adds, removes or changes one value, and says which.
    static func edit(_ contact: inout Contact, version: CardVersion, options: GeneratorOptions,
                     using random: inout SeededRandom) -> (property: String, change: String) {
        switch random.below(4) {
        case 0:
            let factory = ContactFactory(version: version, options: options)
            var address = factory.makeEmailAddress(for: contact.name, using: &random)
            var attempt = 0
            while contact.emails.contains(where: { $0.address == address }) {
                attempt += 1
                address = "edit\(attempt)." + factory.makeEmailAddress(for: contact.name, using: &random)
            }
            contact.emails.append(EmailAddress(address: address, types: [], isPreferred: false,
                                               spellsInternet: contact.emails.first?.spellsInternet ?? true, pid: nil, typeSpelling: .list))
            return ("EMAIL", "added")
        case 1 where !contact.phones.isEmpty && contact.phones.allSatisfy({ $0.pid == nil }):
            contact.phones.removeLast()
            return ("TEL", "removed")
        case 2 where contact.note != nil:
            contact.note = "Changed in the new book: " + random.digits(6)
            return ("NOTE", "changed")
        default:
            let changed = contact.title != nil
            contact.title = "Edited title " + random.digits(4)
            return ("TITLE", changed ? "changed" : "added")
        }
    }
}
