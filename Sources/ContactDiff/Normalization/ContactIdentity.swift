import Foundation
public import VCardKit

/// Who a card describes, normalised for matching: its name's words, its e-mail addresses and its
/// telephone numbers.
///
/// ```swift
/// let identity = ContactIdentity(of: card)
/// identity.nameKey   // "lovelace ada"
/// identity.emails    // ["ada@example.com"]
/// ```
public struct ContactIdentity: Sendable, Hashable {
    /// The name's words (``NameNormalizer/words(of:)``), in written order.
    public var nameWords: [String]
    /// The words sorted and joined by spaces; empty when the card names no one.
    public var nameKey: String
    /// The e-mail addresses, trimmed and lower-cased.
    public var emails: Set<String>
    /// The telephone numbers.
    public var phones: [NormalizedPhone]
    /// The birthday in canonical (basic) form, when the card has one.
    public var birthday: String?
    /// The generation the name states (``NameNormalizer/generation(of:)``: `jr`, `sr`, `iii`, …).
    public var generation: String?

    /// The identity of `card`: its name is the `FN`, or when there is none the given,
    /// additional and family names of `N`, or else the organization.
    public init(of card: VCard, phoneNormalizer: PhoneNormalizer = PhoneNormalizer()) {
        var name = card.formattedName ?? ""
        if name.allSatisfy(\.isWhitespace), let structured = card.structuredName {
            name = (structured.given + structured.additional + structured.family).joined(separator: " ")
        }
        if name.allSatisfy(\.isWhitespace), let organization = card.organization {
            name = organization.joined(separator: " ")
        }
        nameWords = NameNormalizer.words(of: name)
        generation = NameNormalizer.generation(of: name)
        nameKey = nameWords.sorted().joined(separator: " ")
        emails = Set(card.emailAddresses.map { Self.normalizedEmail($0) }.filter { !$0.isEmpty })
        phones = card.telephones.map { property in
            phoneNormalizer.normalize(property.hasTelURI ? property.rawValue : property.textValue)
        }.filter { !$0.digits.isEmpty }
        birthday = card.first("BDAY").flatMap { property in
            CanonicalForm.properties(of: VCard(version: nil, properties: [property]), excluding: CanonicalForm.Exclusions(names: [])).first?.value
        }
    }

    /// An e-mail address trimmed, without a `mailto:` scheme, and lower-cased.
    public static func normalizedEmail(_ address: String) -> String {
        let lowered = ContactEntry.trimmed(address).lowercased()
        return lowered.hasPrefix("mailto:") ? String(lowered.dropFirst(7)) : lowered
    }

    /// The e-mail addresses both identities have.
    public func sharedEmails(with other: ContactIdentity) -> Set<String> {
        emails.intersection(other.emails)
    }

    /// The numbers of this identity that are also numbers of `other` (``NormalizedPhone/isSameNumber(as:)``).
    public func sharedPhones(with other: ContactIdentity) -> [NormalizedPhone] {
        phones.filter { phone in other.phones.contains { $0.isSameNumber(as: phone) } }
    }

    /// What says the two identities are different people although they may share a detail:
    /// different birthdays (`different-birthdays`); telephone numbers on both sides with none in
    /// common (`no-shared-phone`); e-mail addresses on both sides with none in common
    /// (`no-shared-email`); names stating different generations, `Jr.` and `Sr.`
    /// (`different-generations`), or only one of them stating one (`generation-on-one-side`).
    /// Near duplicates of one person keep their birthday and at least one of their numbers and
    /// addresses; two people who share a name and, by chance, an address do not.
    public func disagreements(with other: ContactIdentity) -> [String] {
        var reasons: [String] = []
        if let birthday, let otherBirthday = other.birthday, birthday != otherBirthday { reasons.append("different-birthdays") }
        if generation != other.generation {
            reasons.append(generation != nil && other.generation != nil ? "different-generations" : "generation-on-one-side")
        }
        if !phones.isEmpty && !other.phones.isEmpty && sharedPhones(with: other).isEmpty { reasons.append("no-shared-phone") }
        if !emails.isEmpty && !other.emails.isEmpty && emails.isDisjoint(with: other.emails) { reasons.append("no-shared-email") }
        return reasons
    }

    /// Whether the identities share an e-mail address or a telephone number.
    public func sharesDetail(with other: ContactIdentity) -> Bool {
        !emails.isDisjoint(with: other.emails) || !sharedPhones(with: other).isEmpty
    }
}

extension VCardProperty {
    /// Whether the value is a `tel:` URI (or another URI) rather than text.
    var hasTelURI: Bool {
        var bytes = rawValue.utf8.makeIterator()
        guard let t = bytes.next(), let e = bytes.next(), let l = bytes.next(), let colon = bytes.next() else { return false }
        return t | 0x20 == 0x74 && e | 0x20 == 0x65 && l | 0x20 == 0x6C && colon == 0x3A
    }
}
