import ExtrasBase64

/// Writes a ``Contact`` as content lines of one vCard version.
///
/// The same contact rendered in 3.0 and in 4.0 says the same thing in each version's own
/// spelling: `TYPE=pref` and `PREF=1`, `ENCODING=b;TYPE=JPEG` and a `data:` URI, a LABEL
/// property and a LABEL parameter, SORT-STRING and `SORT-AS`, `lat;lon` and a `geo:` URI.
struct ContactRenderer {
    let version: CardVersion
    /// When false, PHOTO gets a placeholder of the right length: for callers that need the lines' shape only.
    let includesPhotoData: Bool

    /// Returns the card's lines, BEGIN and VERSION first and END last.
    func lines(for contact: Contact) -> [ContentLine] {
        var lines: [ContentLine] = []
        lines.reserveCapacity(48)
        lines.append(ContentLine("BEGIN", "VCARD"))
        lines.append(ContentLine("VERSION", version.text))
        if let productID = contact.productID {
            lines.append(ContentLine("PRODID", TextEscaping.text(productID)))
        }
        if version == .v4, contact.spellsKind {
            lines.append(ContentLine("KIND", "individual"))
        }
        appendName(of: contact, to: &lines)
        if contact.uidComesFirst {
            lines.append(ContentLine("UID", contact.uid))
        }
        if !contact.nicknames.isEmpty {
            lines.append(ContentLine("NICKNAME", TextEscaping.list(contact.nicknames)))
        }
        for phone in contact.phones {
            lines.append(telephoneLine(phone))
        }
        for email in contact.emails {
            lines.append(emailLine(email))
        }
        for address in contact.addresses {
            appendAddress(address, to: &lines)
        }
        if !contact.organization.isEmpty {
            lines.append(ContentLine("ORG", TextEscaping.structured(contact.organization)))
        }
        if let title = contact.title {
            lines.append(ContentLine("TITLE", TextEscaping.text(title)))
        }
        if let role = contact.role {
            lines.append(ContentLine("ROLE", TextEscaping.text(role)))
        }
        if let birthday = contact.birthday {
            lines.append(birthdayLine(birthday, of: contact))
        }
        if version == .v4 {
            appendVersion4Properties(of: contact, to: &lines)
        }
        if let note = contact.note {
            lines.append(ContentLine("NOTE", TextEscaping.text(note)))
        }
        if !contact.categories.isEmpty {
            lines.append(ContentLine("CATEGORIES", TextEscaping.list(contact.categories)))
        }
        if let url = contact.url {
            lines.append(ContentLine("URL", url))
        }
        if let geo = contact.geo {
            lines.append(ContentLine("GEO", version == .v3 ? geo.latitude + ";" + geo.longitude : geo.uri))
        }
        if let timeZone = contact.timeZone {
            lines.append(timeZoneLine(timeZone))
        }
        if version == .v3, let classification = contact.classification {
            lines.append(ContentLine("CLASS", classification))
        }
        lines.append(contentsOf: contact.extensions)
        if let photo = contact.photo {
            lines.append(photoLine(photo))
        }
        if let revision = contact.revision {
            let text = version == .v3 && !contact.usesBasicDatesIn3 ? revision.extended : revision.basic
            lines.append(ContentLine("REV", text))
        }
        if !contact.uidComesFirst {
            lines.append(ContentLine("UID", contact.uid))
        }
        lines.append(ContentLine("END", "VCARD"))
        return lines
    }

    // MARK: - Names

    private func appendName(of contact: Contact, to lines: inout [ContentLine]) {
        let name = contact.name
        var parameters: [Parameter] = []
        if version == .v4, let sortKey = contact.sortKey {
            parameters.append(Parameter("SORT-AS", [TextEscaping.caret(sortKey)], quotedList: true))
        }
        let components = [
            TextEscaping.text(name.family), TextEscaping.text(name.given), TextEscaping.list(name.additional),
            TextEscaping.list(name.prefixes), TextEscaping.list(name.suffixes),
        ]
        lines.append(ContentLine("N", parameters, components.joined(separator: ";")))
        if version == .v4, let alternate = contact.alternateName {
            let native = [Parameter("ALTID", "1"), Parameter("LANGUAGE", alternate.language)]
            let latin = [Parameter("ALTID", "1"), Parameter("LANGUAGE", "en")]
            lines.append(ContentLine("FN", native, TextEscaping.text(contact.formattedName)))
            lines.append(ContentLine("FN", latin, TextEscaping.text(alternate.formattedName)))
        } else {
            lines.append(ContentLine("FN", TextEscaping.text(contact.formattedName)))
        }
        if version == .v3, let sortKey = contact.sortKey {
            lines.append(ContentLine("SORT-STRING", TextEscaping.text(sortKey)))
        }
    }

    // MARK: - Communication

    private func typeParameters(_ tokens: [String], spelling: TypeSpelling) -> [Parameter] {
        guard !tokens.isEmpty else { return [] }
        switch spelling {
        case .repeated:
            return tokens.map { Parameter("TYPE", $0) }
        case .quotedList where version == .v4 && tokens.count > 1:
            return [Parameter("TYPE", tokens, quotedList: true)]
        case .list, .quotedList:
            return [Parameter("TYPE", tokens)]
        }
    }

    private func telephoneLine(_ phone: PhoneNumber) -> ContentLine {
        switch version {
        case .v3:
            var tokens = phone.types.map { $0.token.uppercased() }
            if phone.isPreferred { tokens.append("pref") }
            return ContentLine("TEL", typeParameters(tokens, spelling: phone.typeSpelling),
                               phone.isURI ? phone.internationalText : phone.text)
        case .v4:
            var parameters: [Parameter] = []
            if phone.isURI { parameters.append(Parameter("VALUE", "uri")) }
            parameters += typeParameters(phone.types.map(\.token), spelling: phone.typeSpelling)
            if phone.isPreferred { parameters.append(Parameter("PREF", "1")) }
            if let pid = phone.pid { parameters.append(Parameter("PID", pid)) }
            return ContentLine("TEL", parameters, phone.value)
        }
    }

    private func emailLine(_ email: EmailAddress) -> ContentLine {
        switch version {
        case .v3:
            var tokens = email.spellsInternet ? ["INTERNET"] : []
            tokens += email.types.map { $0.token.uppercased() }
            if email.isPreferred { tokens.append("pref") }
            return ContentLine("EMAIL", typeParameters(tokens, spelling: email.typeSpelling), email.address)
        case .v4:
            var parameters = typeParameters(email.types.map(\.token), spelling: email.typeSpelling)
            if email.isPreferred { parameters.append(Parameter("PREF", "1")) }
            if let pid = email.pid { parameters.append(Parameter("PID", pid)) }
            return ContentLine("EMAIL", parameters, email.address)
        }
    }

    private func appendAddress(_ address: PostalAddress, to lines: inout [ContentLine]) {
        let value = TextEscaping.structured(address.components)
        switch version {
        case .v3:
            var tokens = address.types.map { $0.token.uppercased() }
            if address.isPreferred { tokens.append("pref") }
            let parameters = typeParameters(tokens, spelling: address.typeSpelling)
            lines.append(ContentLine("ADR", parameters, value))
            if let label = address.label {
                lines.append(ContentLine("LABEL", parameters, TextEscaping.text(label)))
            }
        case .v4:
            var parameters = typeParameters(address.types.map(\.token), spelling: address.typeSpelling)
            if address.isPreferred { parameters.append(Parameter("PREF", "1")) }
            if let label = address.label {
                parameters.append(Parameter("LABEL", [TextEscaping.caret(label)], quotedList: true))
            }
            if let geo = address.geo { parameters.append(Parameter("GEO", geo.uri)) }
            if let timeZone = address.timeZone { parameters.append(Parameter("TZ", timeZone)) }
            lines.append(ContentLine("ADR", parameters, value))
        }
    }

    // MARK: - Dates and version 4.0 properties

    private func birthdayLine(_ birthday: CalendarDate, of contact: Contact) -> ContentLine {
        switch version {
        case .v3:
            return ContentLine("BDAY", contact.usesBasicDatesIn3 ? birthday.basic : birthday.extended)
        case .v4:
            let parameters = contact.birthdayNamesCalendar ? [Parameter("CALSCALE", "gregorian")] : []
            let text = contact.usesExtendedDatesIn4 && birthday.year != nil ? birthday.extended : birthday.basic
            return ContentLine("BDAY", parameters, text)
        }
    }

    private func appendVersion4Properties(of contact: Contact, to lines: inout [ContentLine]) {
        if let anniversary = contact.anniversary {
            lines.append(ContentLine("ANNIVERSARY", anniversary.basic))
        }
        if let gender = contact.gender {
            lines.append(
                ContentLine("GENDER", gender.sex + (gender.identity.map { ";" + TextEscaping.text($0) } ?? "")))
        }
        for (position, language) in contact.languages.enumerated() {
            lines.append(ContentLine("LANG", [Parameter("PREF", String(position + 1))], language))
        }
        for (position, address) in contact.instantMessaging.enumerated() {
            lines.append(ContentLine("IMPP", position == 0 ? [Parameter("PREF", "1")] : [], address))
        }
        for relation in contact.relations {
            if let uri = relation.uri {
                lines.append(ContentLine("RELATED", [Parameter("TYPE", relation.type)], uri))
            } else if let text = relation.text {
                let parameters = [Parameter("VALUE", "text"), Parameter("TYPE", relation.type)]
                lines.append(ContentLine("RELATED", parameters, TextEscaping.text(text)))
            }
        }
        if let map = contact.clientPIDMap {
            lines.append(ContentLine("CLIENTPIDMAP", "1;" + map))
        }
    }

    private func timeZoneLine(_ timeZone: TimeZoneValue) -> ContentLine {
        switch (version, timeZone) {
        case (.v3, .named(let name)):
            ContentLine("TZ", [Parameter("VALUE", "text")], TextEscaping.text(name))
        case (.v3, .offset(let minutes)):
            ContentLine("TZ", TimeZoneValue.extendedOffset(minutes))
        case (.v4, .named(let name)):
            ContentLine("TZ", TextEscaping.text(name))
        case (.v4, .offset(let minutes)):
            ContentLine("TZ", [Parameter("VALUE", "utc-offset")], TimeZoneValue.basicOffset(minutes))
        }
    }

    private func photoLine(_ photo: PhotoSpec) -> ContentLine {
        let data =
            includesPhotoData
            ? Base64.encodeToString(bytes: PhotoFactory.makeJPEG(photo))
            : String(repeating: "A", count: (PhotoFactory.byteCount(of: photo) + 2) / 3 * 4)
        switch version {
        case .v3:
            return ContentLine("PHOTO", [Parameter("ENCODING", "b"), Parameter("TYPE", "JPEG")], data)
        case .v4:
            return ContentLine("PHOTO", "data:image/jpeg;base64," + data)
        }
    }
}
