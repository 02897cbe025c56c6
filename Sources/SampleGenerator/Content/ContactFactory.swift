/// Draws the content of one contact from a seeded source of choices.
///
/// What a contact may contain depends on the card's version (GENDER only in 4.0, CLASS only in
/// 3.0), on ``GeneratorOptions/rfcOnly`` (no X- properties, groups or unregistered TYPE values)
/// and on ``GeneratorOptions/sparse``.
struct ContactFactory {
    let version: CardVersion
    let rfcOnly: Bool
    let sparse: Bool
    let photoRate: Double

    init(version: CardVersion, options: GeneratorOptions) {
        self.version = version
        rfcOnly = options.rfcOnly
        sparse = options.sparse
        photoRate = options.clampedPhotoRate
    }

    /// Returns a new contact.
    ///
    /// - Parameters:
    ///   - random: The contact's content stream.
    ///   - uid: The UID value to write.
    ///   - photoSeed: The seed of the photo's bytes, used if the contact gets a photo.
    ///   - name: A name to use instead of drawing one (for look-alikes).
    func makeContact(using random: inout SeededRandom, uid: String, photoSeed: UInt64, name: PersonName? = nil)
        -> Contact
    {
        let name = name ?? makeName(using: &random)
        var contact = Contact(uid: uid, name: name, formattedName: name.formatted())
        let region = random.element(of: Region.all)
        if sparse {
            switch random.below(5) {
            case 0, 1: contact.phones = [makePhone(using: &random, region: region, isFirst: true)]
            case 2, 3: contact.emails = makeEmails(count: 1, for: name, using: &random)
            default: break
            }
            return contact
        }
        contact.productID = random.element(of: ContentPools.productIDs)
        contact.uidComesFirst = random.chance(0.7)
        contact.usesBasicDatesIn3 = random.chance(0.3)
        contact.usesExtendedDatesIn4 = !rfcOnly && random.chance(0.1)
        if version == .v4, name.hasTransliteration, random.chance(0.4) {
            contact.alternateName = (name.language, name.latinFormatted())
        }
        if name.hasTransliteration ? random.chance(0.3) : random.chance(0.05) {
            contact.sortKey = name.latinFamily
        }
        if random.chance(0.25) {
            contact.nicknames = random.sample(ContentPools.nicknames, count: random.integer(in: 1...2))
        }
        for position in 0..<random.integer(in: 1...3) {
            let phoneRegion = position == 0 || random.chance(0.7) ? region : random.element(of: Region.all)
            contact.phones.append(makePhone(using: &random, region: phoneRegion, isFirst: position == 0))
        }
        contact.emails = makeEmails(count: random.integer(in: 1...3), for: name, using: &random)
        let addressDraw = random.unit()
        let addressCount = addressDraw < 0.35 ? 0 : addressDraw < 0.85 ? 1 : 2
        for position in 0..<addressCount {
            let addressRegion = position == 0 ? region : random.element(of: Region.all)
            contact.addresses.append(makeAddress(using: &random, region: addressRegion, isFirst: position == 0))
        }
        if random.chance(0.7) {
            contact.organization = random.element(of: ContentPools.organizations)
            if random.chance(0.85) { contact.title = random.element(of: ContentPools.titles) }
            if random.chance(0.3) { contact.role = random.element(of: ContentPools.roles) }
        }
        if random.chance(0.6) {
            contact.birthday = makeDate(using: &random, years: 1940...2008)
            if version == .v4, random.chance(0.15) { contact.birthday?.year = nil }
            contact.birthdayNamesCalendar = version == .v4 && random.chance(0.05)
        }
        if version == .v4 {
            addVersion4Content(to: &contact, using: &random)
        }
        if random.chance(0.55) {
            contact.note = makeNote(using: &random)
        }
        if random.chance(0.4) {
            contact.categories = random.sample(ContentPools.categories, count: random.integer(in: 1...3))
        }
        if random.chance(0.4) {
            contact.url = makeURL(for: name, using: &random)
        }
        if random.chance(0.15) {
            contact.geo = jitteredPoint(region, using: &random)
        }
        if random.chance(0.15) {
            contact.timeZone = random.chance(0.5) ? .named(region.timeZone) : .offset(minutes: region.utcOffsetMinutes)
        }
        if version == .v3, random.chance(0.1) {
            contact.classification = random.element(of: ContentPools.classifications)
        }
        if !rfcOnly {
            contact.extensions = makeExtensions(for: contact, using: &random)
        }
        if random.chance(photoRate) {
            contact.photo = PhotoSpec(byteCount: random.integer(in: 4096...8192), seed: photoSeed)
        }
        let revisionDate = makeDate(using: &random, years: 2015...2025)
        contact.revision = Timestamp(
            year: revisionDate.year ?? 2020, month: revisionDate.month, day: revisionDate.day,
            hour: random.below(24), minute: random.below(60), second: random.below(60))
        return contact
    }

    // MARK: - Names

    /// Returns a name from a weighted culture, now and then with honorifics or oddities people type.
    func makeName(using random: inout SeededRandom) -> PersonName {
        let culture = NameCulture.all[random.element(of: NameCulture.weightedIndices)]
        let given = random.element(of: culture.given)
        let familyEntry = random.element(of: culture.family)
        let isFemale = given.sex == .female || (given.sex == .either && random.chance(0.5))
        var family = familyEntry.native
        var latinFamily = familyEntry.latin
        if isFemale, let feminine = familyEntry.feminine {
            family = feminine.native
            latinFamily = feminine.latin
        }
        var name = PersonName(
            family: family, given: given.native, additional: [], prefixes: [], suffixes: [], order: culture.order,
            displayStyle: .natural, language: culture.language, latinFamily: latinFamily, latinGiven: given.latin,
            phoneticFamily: familyEntry.phonetic, phoneticGiven: given.phonetic)
        let matchingAdditional = culture.additional.filter { entry in
            entry.sex == .either || (entry.sex == .female) == isFemale
        }
        if !matchingAdditional.isEmpty, random.chance(0.3) {
            name.additional = [random.element(of: matchingAdditional).native]
        }
        if culture.usesHonorifics {
            if random.chance(0.12) {
                let unsuitable = isFemale ? "Mr." : "Ms."
                name.prefixes = random.element(of: ContentPools.prefixes.filter { $0 != [unsuitable] })
            }
            if random.chance(0.08) {
                name.suffixes = random.element(of: ContentPools.suffixes)
            }
            let oddity = random.unit()
            if oddity < 0.01 {
                name.family += ", Jr."
                name.latinFamily += ", Jr."
            } else if oddity < 0.02 {
                let second = random.element(of: culture.family)
                name.family += "; " + second.native
                name.latinFamily += "; " + second.latin
            }
        }
        let style = random.unit()
        if culture.order == .givenFirst, style < 0.08 {
            name.displayStyle = .familyComma
        } else if style > 0.97 {
            name.displayStyle = .annotated(random.element(of: ContentPools.nameRemarks))
        }
        return name
    }

    // MARK: - Communication

    private func makePhone(using random: inout SeededRandom, region: Region, isFirst: Bool) -> PhoneNumber {
        let pattern = random.element(of: region.numberPatterns)
        let groups = pattern.split(separator: " ").map { group in
            String(group.map { $0 == "#" ? Character(String(random.below(10))) : $0 })
        }
        let formatDraw = random.unit()
        let format: PhoneNumber.Format =
            formatDraw < 0.3 ? .spaced : formatDraw < 0.45 ? .dashed : formatDraw < 0.65 ? .compact : .national
        var typeChoices: [[TelephoneType]] = [
            [.cell], [.work, .voice], [.home, .voice], [.home], [.work], [.work, .fax], [.home, .fax], [.pager],
            [.cell, .voice], [.video], [],
        ]
        switch version {
        case .v3: typeChoices += [[.message], [.car], [.isdn]]
        case .v4: typeChoices += [[.text], [.cell, .text], [.textphone]]
        }
        if !rfcOnly {
            typeChoices += [[.iPhone, .cell], [.main]]
        }
        return PhoneNumber(
            countryCode: region.countryCode, groups: groups, trunkPrefix: region.trunkPrefix, format: format,
            types: random.element(of: typeChoices), isPreferred: isFirst && random.chance(0.4),
            isURI: version == .v4 && random.chance(0.35), pid: nil, typeSpelling: makeTypeSpelling(using: &random))
    }

    private func makeTypeSpelling(using random: inout SeededRandom) -> TypeSpelling {
        let draw = random.unit()
        return draw < 0.3 ? .repeated : draw < 0.65 ? .quotedList : .list
    }

    /// Returns `count` distinct addresses built from the name's Latin spelling.
    func makeEmails(count: Int, for name: PersonName, using random: inout SeededRandom) -> [EmailAddress] {
        var emails: [EmailAddress] = []
        while emails.count < count {
            let address = makeEmailAddress(for: name, using: &random)
            guard !emails.contains(where: { $0.address == address }) else { continue }
            let typeDraw = random.below(3)
            emails.append(
                EmailAddress(
                    address: address, types: typeDraw == 0 ? [.work] : typeDraw == 1 ? [.home] : [],
                    isPreferred: emails.isEmpty && random.chance(0.3), spellsInternet: random.chance(0.7), pid: nil,
                    typeSpelling: makeTypeSpelling(using: &random)))
        }
        return emails
    }

    /// Returns one plausible address for the name: `given.family`, `gfamily`, `family.given` and so on.
    func makeEmailAddress(for name: PersonName, using random: inout SeededRandom) -> String {
        let (given, family) = name.slugParts
        var local: String
        switch random.below(5) {
        case 0: local = given + "." + family
        case 1: local = String(given.prefix(1)) + family
        case 2: local = given + family
        case 3: local = family + "." + given
        default: local = given + "_" + family
        }
        if random.chance(0.4) {
            local += random.digits(random.integer(in: 2...4))
        }
        return local + "@" + random.element(of: ContentPools.emailDomains)
    }

    private func makeAddress(using random: inout SeededRandom, region: Region, isFirst: Bool) -> PostalAddress {
        let locality = random.element(of: region.localities)
        var street = random.element(of: region.streets)
        if random.chance(0.12) {
            street += "\n" + random.element(of: ["Building C", "2nd floor", "Hinterhaus", "Rear entrance"])
        }
        let extended = random.chance(0.2) ? random.element(of: ["Suite 210", "Apt. 4", "c/o Reception", "2. OG"]) : ""
        var types: [AddressType] = [random.chance(0.6) ? .home : .work]
        if version == .v3, random.chance(0.15) {
            types.append(random.element(of: [.domestic, .international, .postal, .parcel]))
        }
        var address = PostalAddress(
            postOfficeBox: random.chance(0.03) ? "PO Box " + random.digits(4) : "", extended: extended,
            street: street, locality: locality.name, region: locality.region, postalCode: locality.postalCode,
            country: region.country, types: types, isPreferred: isFirst && random.chance(0.25), label: nil,
            geo: nil, timeZone: nil, typeSpelling: makeTypeSpelling(using: &random))
        if random.chance(0.3) {
            let cityLine = [locality.postalCode, locality.name].filter { !$0.isEmpty }.joined(separator: " ")
            address.label = [extended, street, cityLine, region.country].filter { !$0.isEmpty }
                .joined(separator: "\n")
        }
        if version == .v4, random.chance(0.1) {
            address.geo = jitteredPoint(region, using: &random)
        }
        if version == .v4, random.chance(0.05) {
            address.timeZone = region.timeZone
        }
        return address
    }

    private func jitteredPoint(_ region: Region, using random: inout SeededRandom) -> GeoPoint {
        GeoPoint(
            latitudeMicrodegrees: region.latitude + random.integer(in: -60_000...60_000),
            longitudeMicrodegrees: region.longitude + random.integer(in: -60_000...60_000))
    }

    // MARK: - Dates, notes, links

    private func makeDate(using random: inout SeededRandom, years: ClosedRange<Int>) -> CalendarDate {
        let year = random.integer(in: years)
        let month = random.integer(in: 1...12)
        let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return CalendarDate(year: year, month: month, day: random.integer(in: 1...days))
    }

    private func makeNote(using random: inout SeededRandom) -> String {
        var parts: [String] = []
        if random.chance(0.15) {
            // A long note (1–2 KB) so that folding happens many times within one value.
            let target = random.integer(in: 1000...2000)
            var length = 0
            while length < target {
                let fragment = random.element(of: ContentPools.noteFragments)
                parts.append(fragment)
                length += fragment.utf8.count + 1
            }
        } else {
            for _ in 0..<random.integer(in: 1...3) {
                parts.append(random.element(of: ContentPools.noteFragments))
            }
        }
        return parts.joined(separator: " ")
    }

    private func makeURL(for name: PersonName, using random: inout SeededRandom) -> String {
        let (given, family) = name.slugParts
        switch random.below(3) {
        case 0: return "https://www." + random.element(of: ["example.com", "example.org"]) + "/~" + given
        case 1: return "https://" + given + family + ".example.net/"
        default: return "http://blog.example.com/" + given + "-" + family + "?lang=en&ref=vcard"
        }
    }

    // MARK: - Version-specific and extension content

    private func addVersion4Content(to contact: inout Contact, using random: inout SeededRandom) {
        contact.spellsKind = random.chance(0.6)
        if random.chance(0.15) {
            contact.anniversary = makeDate(using: &random, years: 1965...2024)
        }
        if random.chance(0.3) {
            let draw = random.unit()
            if draw < 0.75 {
                contact.gender = Gender(sex: random.chance(0.5) ? "F" : "M", identity: nil)
            } else if draw < 0.87 {
                contact.gender = Gender(sex: "O", identity: random.element(of: ContentPools.genderIdentities))
            } else if draw < 0.94 {
                contact.gender = Gender(sex: "N", identity: nil)
            } else {
                contact.gender = Gender(sex: "U", identity: nil)
            }
        }
        if random.chance(0.2) {
            contact.languages = [contact.name.language]
            if contact.name.language != "en", random.chance(0.5) { contact.languages.append("en") }
        }
        let (given, family) = contact.name.slugParts
        if random.chance(0.2) {
            contact.instantMessaging.append(
                random.chance(0.6)
                    ? "xmpp:" + given + "." + family + "@chat.example.org"
                    : "sip:" + given + "@voip.example.com")
        }
        if random.chance(0.1) {
            let type = random.element(of: ContentPools.relationTypes)
            if random.chance(0.5) {
                contact.relations.append(
                    Relation(type: type, uri: "urn:uuid:" + UUIDText.make(using: &random), text: nil))
            } else {
                let other = makeName(using: &random)
                contact.relations.append(Relation(type: type, uri: nil, text: other.formatted()))
            }
        }
        if random.chance(0.08) {
            contact.clientPIDMap = "urn:uuid:" + UUIDText.make(using: &random)
            for position in contact.phones.indices {
                contact.phones[position].pid = String(position + 1) + ".1"
            }
            for position in contact.emails.indices {
                contact.emails[position].pid = String(position + 1) + ".1"
            }
        }
    }

    private func makeExtensions(for contact: Contact, using random: inout SeededRandom) -> [ContentLine] {
        var lines: [ContentLine] = []
        let name = contact.name
        let (given, family) = name.slugParts
        let handle = given + "." + family
        let propertyDraw = random.unit()
        let propertyCount = propertyDraw < 0.5 ? 0 : propertyDraw < 0.8 ? 1 : propertyDraw < 0.95 ? 2 : 3
        var candidates = [0, 1, 2, 3, 4, 5, 6]
        random.shuffle(&candidates)
        for candidate in candidates.prefix(propertyCount) {
            switch candidate {
            case 0:
                lines.append(ContentLine("X-EVOLUTION-FILE-AS", TextEscaping.text(name.family + ", " + name.given)))
            case 1:
                lines.append(ContentLine("X-SKYPE", "live:" + handle))
            case 2:
                lines.append(ContentLine("X-JABBER", [Parameter("TYPE", "HOME")], given + "@jabber.example.org"))
            case 3:
                lines.append(ContentLine("X-MOZILLA-HTML", random.chance(0.5) ? "FALSE" : "TRUE"))
            case 4:
                // Android writes its custom rows with raw semicolons; X- values are not text-escaped.
                lines.append(
                    ContentLine("X-ANDROID-CUSTOM", "vnd.android.cursor.item/nickname;" + given + ";1;;;;;;;;;;;;;"))
            case 5:
                let parameters = [Parameter("X-SOURCE", "import"), Parameter("X-TAGS", ["a", "b"], quotedList: true)]
                lines.append(ContentLine("X-CUSTOM-FIELD", parameters, "value;with;raw;semicolons"))
            default:
                lines.append(ContentLine("X-ABShowAs", contact.organization.isEmpty ? "PERSON" : "COMPANY"))
            }
        }
        if let phoneticFamily = name.phoneticFamily, let phoneticGiven = name.phoneticGiven, random.chance(0.6) {
            lines.append(ContentLine("X-PHONETIC-LAST-NAME", phoneticFamily))
            lines.append(ContentLine("X-PHONETIC-FIRST-NAME", phoneticGiven))
        }
        if random.chance(0.2) {
            let network = random.element(of: ContentPools.socialNetworks)
            let parameters = [Parameter("TYPE", network), Parameter("X-USER", handle)]
            lines.append(ContentLine("X-SOCIALPROFILE", parameters, "https://" + network + ".example.com/" + handle))
        }
        if random.chance(0.3) {
            lines += makeAppleGroups(handle: handle, using: &random)
        }
        return lines
    }

    /// Apple-style grouped properties: `item1.EMAIL` and the `item1.X-ABLabel` that names it.
    private func makeAppleGroups(handle: String, using random: inout SeededRandom) -> [ContentLine] {
        var lines: [ContentLine] = []
        var number = 1
        func add(_ line: ContentLine, label: String) {
            let group = "item" + String(number)
            var grouped = line
            grouped.group = group
            lines.append(grouped)
            lines.append(ContentLine(group: group, "X-ABLabel", [], label))
            number += 1
        }
        let wantsEmail = random.chance(0.7)
        let wantsURL = random.chance(0.5)
        let wantsDate = random.chance(0.4)
        let wantsRelative = random.chance(0.3)
        if wantsEmail || !(wantsURL || wantsDate || wantsRelative) {
            let address = handle + ".other@" + random.element(of: ContentPools.emailDomains)
            add(
                ContentLine("EMAIL", [Parameter("type", "INTERNET")], address),
                label: random.element(of: ContentPools.appleLabels))
        }
        if wantsURL {
            add(ContentLine("URL", "https://blog.example.com/" + handle), label: "_$!<HomePage>!$_")
        }
        if wantsDate {
            let date = makeDate(using: &random, years: 1980...2024)
            add(ContentLine("X-ABDATE", [Parameter("type", "pref")], date.extended), label: "_$!<Anniversary>!$_")
        }
        if wantsRelative {
            let relative = makeName(using: &random)
            add(ContentLine("X-ABRELATEDNAMES", TextEscaping.text(relative.formatted())), label: "_$!<Spouse>!$_")
        }
        return lines
    }
}
