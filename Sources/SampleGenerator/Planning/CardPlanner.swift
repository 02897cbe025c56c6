/// Decides, for every position of the book, what the card there is and says.
///
/// Every answer is a pure function of the options and the position: a card's role, the card it
/// refers to, its version, UID and content are recomputed from seeds derived from
/// `(seed, index)`. Nothing is remembered between cards, so generation streams in constant memory
/// and any card can be produced on its own.
struct CardPlanner: Sendable {
    let options: GeneratorOptions
    private let seed: UInt64
    private let duplicateRate: Double
    private let nearRate: Double
    private let lookalikeRate: Double

    init(options: GeneratorOptions) {
        self.options = options
        seed = options.seed
        duplicateRate = options.clampedDuplicateRate
        nearRate = options.clampedNearDuplicateRate
        lookalikeRate = options.lookalikeRate
    }

    // MARK: - Roles and references

    /// The role of card `index`; card 0 is always an original.
    func role(of index: Int) -> CardRole {
        guard index > 0 else { return .original }
        let draw = SeedStream.role.unitValue(seed, index: index)
        if draw < duplicateRate {
            return SeedStream.duplicateKind.unitValue(seed, index: index) < 0.5 ? .exact : .reformatted
        }
        if draw < duplicateRate + nearRate { return .near }
        if draw < duplicateRate + nearRate + lookalikeRate { return .lookalike }
        return .original
    }

    /// A uniformly chosen earlier position (index must be positive).
    private func pick(before index: Int) -> Int {
        var random = SeedStream.target.generator(seed, index: index)
        return random.below(index)
    }

    /// The distinct card (original, near duplicate or look-alike) that repeat `index` copies.
    func repeatSource(of index: Int) -> Int {
        var source = pick(before: index)
        while role(of: source).isRepeat {
            source = pick(before: source)
        }
        return source
    }

    /// The original card that near duplicate or look-alike `index` refers to.
    func personSource(of index: Int) -> Int {
        var source = pick(before: index)
        while role(of: source) != .original {
            source = pick(before: source)
        }
        return source
    }

    /// The card `index` refers to, or nil for originals.
    func source(of index: Int, role: CardRole) -> Int? {
        switch role {
        case .original: nil
        case .exact, .reformatted: repeatSource(of: index)
        case .near, .lookalike: personSource(of: index)
        }
    }

    // MARK: - Versions and UIDs

    private func drawnVersion(of index: Int) -> CardVersion {
        switch options.version {
        case .v3: .v3
        case .v4: .v4
        case .mixed: SeedStream.version.unitValue(seed, index: index) < 0.5 ? .v3 : .v4
        }
    }

    /// The version the card's content was made for (a reformatted duplicate may be written in the other).
    func contentVersion(of index: Int) -> CardVersion {
        switch role(of: index) {
        case .original, .lookalike: drawnVersion(of: index)
        case .exact, .reformatted: contentVersion(of: repeatSource(of: index))
        case .near: drawnVersion(of: personSource(of: index))
        }
    }

    /// The UID of card `index`.
    ///
    /// A random version 4 UUID, in 4.0 cards sometimes as a `urn:uuid:` URI, and sometimes in upper
    /// case. Repeats get a new UUID written in their source's style.
    func uid(of index: Int) -> String {
        let styleOwner = role(of: index).isRepeat ? repeatSource(of: index) : index
        let styleBits = SplitMix64.finalize(SeedStream.uid.seed(seed, index: styleOwner) ^ 0x5A5A_5A5A)
        let isURN = contentVersion(of: styleOwner) == .v4 && styleBits & 1 == 0
        let isUppercase = !isURN && styleBits >> 1 & 3 == 0
        var random = SeedStream.uid.generator(seed, index: index)
        let uuid = UUIDText.make(using: &random, uppercase: isUppercase)
        return isURN ? "urn:uuid:" + uuid : uuid
    }

    // MARK: - Content

    /// The contact that card `index` says, its version and, for near duplicates, what was changed.
    func content(of index: Int) -> (contact: Contact, changes: [DuplicateLabel.Change]) {
        let role = role(of: index)
        switch role {
        case .original:
            return (freshContact(at: index, name: nil), [])
        case .exact, .reformatted:
            var contact = content(of: repeatSource(of: index)).contact
            contact.uid = uid(of: index)
            return (contact, [])
        case .near:
            let original = content(of: personSource(of: index)).contact
            var random = SeedStream.nearChanges.generator(seed, index: index)
            let factory = ContactFactory(version: contentVersion(of: index), options: options)
            var (contact, changes) = NearDuplicateEditor(factory: factory).edit(original, using: &random)
            contact.uid = uid(of: index)
            return (contact, changes)
        case .lookalike:
            let original = content(of: personSource(of: index)).contact
            var contact = freshContact(at: index, name: original.name)
            separate(&contact, from: original, index: index)
            return (contact, [])
        }
    }

    private func freshContact(at index: Int, name: PersonName?) -> Contact {
        var random = SeedStream.content.generator(seed, index: index)
        let factory = ContactFactory(version: drawnVersion(of: index), options: options)
        return factory.makeContact(
            using: &random, uid: uid(of: index), photoSeed: SeedStream.photo.seed(seed, index: index), name: name)
    }

    /// Makes sure a look-alike shares no e-mail address or telephone number with its namesake.
    private func separate(_ contact: inout Contact, from original: Contact, index: Int) {
        var random = SeedStream.nearChanges.generator(seed, index: index)
        let factory = ContactFactory(version: drawnVersion(of: index), options: options)
        let takenAddresses = Set(original.emails.map(\.address))
        for position in contact.emails.indices {
            var attempts = 0
            while takenAddresses.contains(contact.emails[position].address)
                || contact.emails[..<position].contains(where: { $0.address == contact.emails[position].address })
            {
                attempts += 1
                var address = factory.makeEmailAddress(for: contact.name, using: &random)
                if attempts > 8 {
                    address = "contact" + String(index) + "." + address
                }
                contact.emails[position].address = address
            }
        }
        let takenNumbers = Set(original.phones.map(\.digits))
        for position in contact.phones.indices {
            while takenNumbers.contains(contact.phones[position].digits) {
                let lastGroup = contact.phones[position].groups.count - 1
                let length = contact.phones[position].groups[lastGroup].count
                contact.phones[position].groups[lastGroup] = random.digits(length)
            }
        }
    }

    // MARK: - Cards

    /// Everything needed to write card `index`, and its label.
    ///
    /// - Parameter includesPhotoData: When false, PHOTO values are placeholders of the right length;
    ///   the label and every decision are the same as with the real data.
    func prepare(_ index: Int, includesPhotoData: Bool = true) -> PreparedCard {
        let role = role(of: index)
        let (contact, nearChanges) = content(of: index)
        var version = contentVersion(of: index)
        var lines: [ContentLine]
        var form = LineForm.standard
        var changes = nearChanges
        if role == .reformatted {
            var random = SeedStream.form.generator(seed, index: index)
            let reformat = Reformatter(includesPhotoData: includesPhotoData).reformat(
                contact, version: version, allowsVersionChange: options.version == .mixed, using: &random)
            lines = reformat.lines
            form = reformat.form
            version = reformat.version
            changes = reformat.changes
        } else {
            lines = ContactRenderer(version: version, includesPhotoData: includesPhotoData).lines(for: contact)
        }
        let label = makeLabel(index: index, uid: contact.uid, role: role, changes: changes)
        return PreparedCard(index: index, uid: contact.uid, version: version, lines: lines, form: form, label: label)
    }

    /// The label of card `index`, computing only what the label needs.
    func label(of index: Int) -> DuplicateLabel? {
        switch role(of: index) {
        case .original:
            return nil
        case .exact:
            return makeLabel(index: index, uid: uid(of: index), role: .exact, changes: [])
        case .lookalike:
            return makeLabel(index: index, uid: uid(of: index), role: .lookalike, changes: [])
        case .near, .reformatted:
            return prepare(index, includesPhotoData: false).label
        }
    }

    private func makeLabel(index: Int, uid: String, role: CardRole, changes: [DuplicateLabel.Change])
        -> DuplicateLabel?
    {
        guard let kind = role.labelKind, let source = source(of: index, role: role) else { return nil }
        return DuplicateLabel(
            index: index, uid: uid, kind: kind, of: source, ofUID: self.uid(of: source), changes: changes)
    }
}
