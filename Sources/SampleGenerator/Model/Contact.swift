/// Everything one card says, independent of how it is spelled.
///
/// A contact is rendered to content lines by ``ContactRenderer`` in vCard 3.0 or 4.0. Keeping
/// meaning and spelling apart is what lets a reformatted duplicate say exactly the same thing
/// in a different form, and a near duplicate say almost the same thing.
struct Contact: Sendable {
    var uid: String
    var name: PersonName
    var formattedName: String
    /// A second FN in Latin letters with ALTID and LANGUAGE (vCard 4.0 only).
    var alternateName: (language: String, formattedName: String)?
    /// SORT-STRING in vCard 3.0, the SORT-AS parameter of N in 4.0.
    var sortKey: String?
    var nicknames: [String] = []
    var phones: [PhoneNumber] = []
    var emails: [EmailAddress] = []
    var addresses: [PostalAddress] = []
    var organization: [String] = []
    var title: String?
    var role: String?
    var birthday: CalendarDate?
    /// Adds `CALSCALE=gregorian` to BDAY in vCard 4.0.
    var birthdayNamesCalendar = false
    var anniversary: CalendarDate?
    var gender: Gender?
    /// Writes `KIND:individual` in vCard 4.0 (the default, so leaving it out means the same).
    var spellsKind = false
    var languages: [String] = []
    var instantMessaging: [String] = []
    var relations: [Relation] = []
    /// The URI of a CLIENTPIDMAP entry; PID parameters refer to it (vCard 4.0 only).
    var clientPIDMap: String?
    var note: String?
    var categories: [String] = []
    var url: String?
    var geo: GeoPoint?
    var timeZone: TimeZoneValue?
    /// CLASS (vCard 3.0 only).
    var classification: String?
    var photo: PhotoSpec?
    /// X- properties and Apple-style grouped properties, spelled the same in both versions.
    var extensions: [ContentLine] = []
    var revision: Timestamp?
    var productID: String?
    /// Writes UID right after FN instead of at the end of the card.
    var uidComesFirst = true
    /// vCard 3.0 writes dates and REV in the basic format (`19800415`) instead of the extended one.
    var usesBasicDatesIn3 = false
    /// vCard 4.0 writes BDAY in the extended format (`1980-04-15`); common, but not RFC 6350 syntax.
    var usesExtendedDatesIn4 = false

    /// Whether every piece of the contact can be written in `version` with the same meaning.
    ///
    /// Reformatted duplicates switch version only when this holds: what one version lacks
    /// (CLASS in 4.0, GENDER or a birthday without a year in 3.0) would otherwise be lost.
    func canBeWritten(in version: CardVersion) -> Bool {
        switch version {
        case .v3:
            if let birthday, birthday.year == nil { return false }
            return alternateName == nil && anniversary == nil && gender == nil && languages.isEmpty
                && instantMessaging.isEmpty && relations.isEmpty && clientPIDMap == nil && !birthdayNamesCalendar
                && phones.allSatisfy { phone in phone.types.allSatisfy { $0.exists(in: .v3) } }
                && addresses.allSatisfy { address in
                    address.geo == nil && address.timeZone == nil && address.types.allSatisfy { $0.exists(in: .v3) }
                }
        case .v4:
            return classification == nil
                && phones.allSatisfy { phone in phone.types.allSatisfy { $0.exists(in: .v4) } }
                && addresses.allSatisfy { address in address.types.allSatisfy { $0.exists(in: .v4) } }
        }
    }
}
