/// Turns a contact into a near duplicate: the same person, entered or exported differently.
///
/// Each edit is one people make or tools cause: a letter swapped or dropped in a name, given and
/// family name in the wrong fields, an extra space in FN, a number written in another format,
/// one e-mail address more or less. One or two edits are made and reported.
struct NearDuplicateEditor {
    let factory: ContactFactory

    /// Returns the edited contact and its changes, in the order ``DuplicateLabel/Change/allCases`` lists them.
    func edit(_ original: Contact, using random: inout SeededRandom) -> (Contact, [DuplicateLabel.Change]) {
        var contact = original
        var available: [DuplicateLabel.Change] = [.nameWhitespace, .emailAdded]
        if typoCandidates(in: contact.name).isEmpty == false { available.append(.nameTypo) }
        if !contact.name.given.isEmpty, !contact.name.family.isEmpty, contact.name.given != contact.name.family {
            available.append(.namesSwapped)
        }
        if !contact.phones.isEmpty { available.append(.phoneFormat) }
        if contact.emails.count >= 2 { available.append(.emailRemoved) }
        var chosen = random.sample(available, count: random.chance(0.35) ? 2 : 1)
        if chosen.contains(.emailAdded), chosen.contains(.emailRemoved) {
            chosen.removeAll { $0 == .emailRemoved }
        }
        let changes = DuplicateLabel.Change.allCases.filter { chosen.contains($0) }

        if changes.contains(.nameTypo) {
            introduceTypo(in: &contact.name, using: &random)
        }
        if changes.contains(.namesSwapped) {
            swap(&contact.name.given, &contact.name.family)
            swap(&contact.name.latinGiven, &contact.name.latinFamily)
            swap(&contact.name.phoneticGiven, &contact.name.phoneticFamily)
        }
        contact.formattedName = contact.name.formatted()
        if changes.contains(.nameWhitespace) {
            contact.formattedName = Self.addingWhitespace(to: contact.formattedName, using: &random)
        }
        if changes.contains(.phoneFormat) {
            let position = random.below(contact.phones.count)
            let phone = contact.phones[position]
            let formats = PhoneNumber.Format.allCases.filter { format in
                var candidate = phone
                candidate.format = format
                return candidate.value != phone.value
            }
            contact.phones[position].format = random.element(of: formats)
        }
        if changes.contains(.emailAdded) {
            var address = factory.makeEmailAddress(for: contact.name, using: &random)
            while contact.emails.contains(where: { $0.address == address }) {
                address = factory.makeEmailAddress(for: contact.name, using: &random)
            }
            contact.emails.append(
                EmailAddress(
                    address: address, types: [], isPreferred: false,
                    spellsInternet: contact.emails.first?.spellsInternet ?? true,
                    pid: nil, typeSpelling: .list))
        }
        if changes.contains(.emailRemoved) {
            contact.emails.remove(at: random.below(contact.emails.count))
        }
        return (contact, changes)
    }

    /// Name parts that can take a typo: key path and whether swapping and dropping are possible.
    private func typoCandidates(in name: PersonName) -> [WritableKeyPath<PersonName, String>] {
        [\PersonName.given, \PersonName.family].filter { part in
            let characters = Array(name[keyPath: part])
            return characters.count >= 3 || Self.swappablePositions(characters).isEmpty == false
        }
    }

    private static func swappablePositions(_ characters: [Character]) -> [Int] {
        guard characters.count >= 2 else { return [] }
        return (0..<characters.count - 1).filter { position in
            characters[position] != characters[position + 1] && !characters[position].isWhitespace
                && !characters[position + 1].isWhitespace
        }
    }

    private func introduceTypo(in name: inout PersonName, using random: inout SeededRandom) {
        let part = random.element(of: typoCandidates(in: name))
        var characters = Array(name[keyPath: part])
        let swappable = Self.swappablePositions(characters)
        if !swappable.isEmpty, characters.count < 3 || random.chance(0.5) {
            let position = random.element(of: swappable)
            characters.swapAt(position, position + 1)
        } else {
            let droppable = characters.indices.filter { !characters[$0].isWhitespace }
            characters.remove(at: random.element(of: droppable))
        }
        name[keyPath: part] = String(characters)
    }

    /// "John  Smith": doubles one space, or puts one between the parts of a name written without spaces.
    static func addingWhitespace(to formattedName: String, using random: inout SeededRandom) -> String {
        var characters = Array(formattedName)
        let spaces = characters.indices.filter { characters[$0] == " " }
        if !spaces.isEmpty {
            characters.insert(" ", at: random.element(of: spaces))
        } else if characters.count >= 2 {
            characters.insert(" ", at: 1 + random.below(characters.count - 1))
        } else {
            characters.append(" ")
        }
        return String(characters)
    }
}
