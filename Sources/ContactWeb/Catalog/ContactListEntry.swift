import ContactStore
import VCardKit

/// One row of the contact list: what the list shows and what the search box matches.
struct ContactListEntry: Sendable {
    var uid: String
    /// The formatted name, else the structured name, else the first e-mail address, else the UID.
    var displayName: String
    /// The family name (`N`'s first component), possibly empty.
    var familyName: String
    var email: String?
    var phone: String?
    /// A small inline photo (`data:` URI) when the card has one.
    var photoDataURI: String?
    /// Sort keys, folded.
    var nameKey: String
    var familyKey: String
    /// Names, e-mail addresses, organisations, notes, nicknames and phone numbers as typed, folded.
    var searchText: [UInt8]
    /// The digits of every phone number, separated by spaces.
    var phoneDigits: [UInt8]

    /// An entry from its stored fields (``ContactListCache``).
    init(uid: String, displayName: String, familyName: String, email: String?, phone: String?, photoDataURI: String?,
         nameKey: String, familyKey: String, searchText: [UInt8], phoneDigits: [UInt8]) {
        self.uid = uid
        self.displayName = displayName
        self.familyName = familyName
        self.email = email
        self.phone = phone
        self.photoDataURI = photoDataURI
        self.nameKey = nameKey
        self.familyKey = familyKey
        self.searchText = searchText
        self.phoneDigits = phoneDigits
    }

    /// The entry of `card`.
    init(uid: String, card: VCard) {
        self.uid = uid
        let structured = card.structuredName
        let family = structured?.family.joined(separator: " ") ?? ""
        let given = structured?.given.joined(separator: " ") ?? ""
        var name = card.formattedName ?? ""
        if name.trimmingCharacters(in: .whitespaces).isEmpty {
            name = [given, family].filter { !$0.isEmpty }.joined(separator: " ")
        }
        let emails = card.emailAddresses
        let phones = card.telephoneNumbers
        if name.isEmpty { name = emails.first ?? uid }
        displayName = name
        familyName = family
        email = Self.preferred(card.emails).map(\.textValue) ?? emails.first
        phone = Self.preferred(card.telephones).map(Self.phoneText) ?? phones.first
        if let photo = card.photo, let data = photo.binaryData, data.count <= 48 * 1024 {
            let type = photo.mediaType ?? "image/jpeg"
            if type.hasPrefix("image/") { photoDataURI = "data:\(type);base64,\(VCardKit.Base64.encode(data))" }
        } else if let photo = card.photo, photo.rawValue.hasPrefix("data:image/"), photo.rawValue.utf8.count <= 64 * 1024 {
            photoDataURI = photo.rawValue
        }
        nameKey = SearchText.fold(name)
        familyKey = SearchText.fold(family.isEmpty ? name : family + " " + given)
        var text: [String] = [name, family, given]
        text.append(contentsOf: card.nicknames)
        text.append(contentsOf: emails)
        text.append(contentsOf: phones)
        text.append(contentsOf: card.all("ORG").map { $0.components.map { $0.joined(separator: " ") }.joined(separator: " ") })
        text.append(contentsOf: card.notes)
        text.append(contentsOf: card.all("TITLE").map(\.textValue))
        searchText = Array(SearchText.fold(text.joined(separator: "\n")).utf8)
        phoneDigits = Array(phones.map(SearchText.digits).joined(separator: " ").utf8)
    }

    /// Whether the entry matches a folded query (and, when the query has digits, its digits).
    func matches(folded: [UInt8], digits: [UInt8]) -> Bool {
        if SearchText.contains(searchText, folded) { return true }
        return digits.count >= 3 && SearchText.contains(phoneDigits, digits)
    }

    /// The value preferred by `PREF`/`TYPE=pref`, else the first.
    private static func preferred(_ properties: [VCardProperty]) -> VCardProperty? {
        properties.min { ($0.preference ?? 100) < ($1.preference ?? 100) }
    }

    static func phoneText(_ property: VCardProperty) -> String {
        let text = property.textValue
        return text.hasPrefix("tel:") ? String(text.dropFirst(4)) : text
    }
}
