import SampleGenerator
import Testing

@Suite struct VocabularyTests {
    @Test(arguments: [GeneratorOptions.Version.v3, .v4])
    func singleVersionBooksContainOnlyThatVersion(version: GeneratorOptions.Version) {
        let options = GeneratorOptions(
            count: 400, seed: 31, version: version, duplicateRate: 0.3, nearDuplicateRate: 0.2)
        for card in AddressBookGenerator(options: options).makeCards() {
            #expect(card.version == version)
            #expect(CardText.contentLines(card.text)[1].uppercased() == "VERSION:" + version.rawValue)
        }
    }

    @Test func mixedBooksContainBothVersionsInRoughlyEqualShares() {
        let cards = Array(AddressBookGenerator(options: GeneratorOptions(count: 1000, seed: 8)).makeCards())
        let version4 = cards.filter { $0.version == .v4 }.count
        #expect(version4 > 420 && version4 < 580, "\(version4) of 1000 cards are 4.0")
        #expect(cards.allSatisfy { $0.version != .mixed })
    }

    @Test func versionSpecificPropertiesStayInTheirVersion() {
        let cards = Array(AddressBookGenerator(options: GeneratorOptions(count: 800, seed: 21)).makeCards())
        var seen = Set<String>()
        for card in cards {
            let names = Set(CardText.contentLines(card.text).map { CardText.parse($0).name })
            seen.formUnion(names)
            if card.version == .v3 {
                #expect(
                    names.isDisjoint(with: ["KIND", "GENDER", "ANNIVERSARY", "LANG", "IMPP", "RELATED", "CLIENTPIDMAP"])
                )
                #expect(!card.text.contains(";PREF="))
                #expect(!card.text.contains("data:image"))
            } else {
                #expect(names.isDisjoint(with: ["CLASS", "SORT-STRING", "LABEL"]))
                let properties = CardText.contentLines(card.text).map(CardText.parse).filter {
                    !$0.name.hasPrefix("X-")
                }
                let parameters = properties.flatMap(\.parameters)
                #expect(!parameters.contains { $0.name == "ENCODING" })
                #expect(!parameters.contains { $0.name == "TYPE" && $0.values.contains { $0.lowercased() == "pref" } })
            }
        }
        let expected: Set<String> = [
            "KIND", "GENDER", "ANNIVERSARY", "LANG", "IMPP", "RELATED", "CLASS", "SORT-STRING", "LABEL", "TEL",
            "EMAIL", "ADR", "ORG", "TITLE", "ROLE", "BDAY", "NICKNAME", "NOTE", "CATEGORIES", "URL", "GEO", "TZ",
            "REV", "PRODID", "X-SOCIALPROFILE", "X-EVOLUTION-FILE-AS", "X-ABDATE", "X-ABLABEL",
        ]
        #expect(expected.subtracting(seen).isEmpty, "never generated: \(expected.subtracting(seen).sorted())")
    }

    @Test func appleGroupsAndExtensionsAppearUnlessRFCOnly() {
        let cards = Array(AddressBookGenerator(options: GeneratorOptions(count: 300, seed: 2)).makeCards())
        let properties = cards.flatMap { CardText.contentLines($0.text).map(CardText.parse) }
        #expect(properties.contains { $0.group != nil && $0.name == "EMAIL" })
        #expect(properties.contains { $0.group != nil && $0.name == "X-ABLABEL" && $0.value == "_$!<Other>!$_" })
        #expect(
            properties.contains { $0.name == "X-SOCIALPROFILE" && $0.parameters.contains { $0.name.hasPrefix("X-") } })
    }

    private static let properties4: Set<String> = [
        "BEGIN", "END", "SOURCE", "KIND", "XML", "FN", "N", "NICKNAME", "PHOTO", "BDAY", "ANNIVERSARY", "GENDER",
        "ADR", "TEL", "EMAIL", "IMPP", "LANG", "TZ", "GEO", "TITLE", "ROLE", "LOGO", "ORG", "MEMBER", "RELATED",
        "CATEGORIES", "NOTE", "PRODID", "REV", "SOUND", "UID", "CLIENTPIDMAP", "URL", "VERSION", "KEY", "FBURL",
        "CALADRURI", "CALURI",
    ]
    private static let parameters4: Set<String> = [
        "LANGUAGE", "VALUE", "PREF", "ALTID", "PID", "TYPE", "MEDIATYPE", "CALSCALE", "SORT-AS", "GEO", "TZ", "LABEL",
    ]
    private static let types4: Set<String> = [
        "work", "home", "text", "voice", "fax", "cell", "video", "pager", "textphone", "contact", "acquaintance",
        "friend", "met", "co-worker", "colleague", "co-resident", "neighbor", "child", "parent", "sibling", "spouse",
        "kin", "muse", "crush", "date", "sweetheart", "me", "agent", "emergency",
    ]
    private static let properties3: Set<String> = [
        "BEGIN", "END", "VERSION", "FN", "N", "NICKNAME", "PHOTO", "BDAY", "ADR", "LABEL", "TEL", "EMAIL", "MAILER",
        "TZ", "GEO", "TITLE", "ROLE", "LOGO", "AGENT", "ORG", "CATEGORIES", "NOTE", "PRODID", "REV", "SORT-STRING",
        "SOUND", "UID", "URL", "CLASS", "KEY", "NAME", "PROFILE", "SOURCE",
    ]
    private static let parameters3: Set<String> = ["TYPE", "ENCODING", "VALUE", "LANGUAGE"]
    private static let types3: Set<String> = [
        "home", "msg", "work", "pref", "voice", "fax", "cell", "video", "pager", "bbs", "modem", "car", "isdn", "pcs",
        "internet", "x400", "dom", "intl", "postal", "parcel", "jpeg",
    ]

    @Test(arguments: [GeneratorOptions.Version.v3, .v4, .mixed])
    func rfcOnlyEmitsOnlyRegisteredNamesAndNoGroups(version: GeneratorOptions.Version) {
        let options = GeneratorOptions(
            count: 600, seed: 99, version: version, photoRate: 0.2, duplicateRate: 0.2, nearDuplicateRate: 0.2,
            rfcOnly: true)
        for card in AddressBookGenerator(options: options).makeCards() {
            let isVersion4 = card.version == .v4
            for line in CardText.contentLines(card.text) {
                let property = CardText.parse(line)
                #expect(property.group == nil, "card \(card.index): \(line.prefix(40))")
                #expect(!property.name.hasPrefix("X-"))
                #expect((isVersion4 ? Self.properties4 : Self.properties3).contains(property.name), "\(property.name)")
                for parameter in property.parameters {
                    #expect(
                        (isVersion4 ? Self.parameters4 : Self.parameters3).contains(parameter.name), "\(parameter.name)"
                    )
                    if parameter.name == "TYPE" {
                        for value in parameter.values {
                            #expect(
                                (isVersion4 ? Self.types4 : Self.types3).contains(value.lowercased()), "TYPE=\(value)")
                        }
                    }
                }
                if isVersion4, property.name == "BDAY" || property.name == "ANNIVERSARY" {
                    #expect(!property.value.dropFirst(2).contains("-"), "RFC 6350 dates are basic format: \(line)")
                }
            }
        }
    }
}
