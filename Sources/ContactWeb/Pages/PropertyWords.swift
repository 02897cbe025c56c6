import VCardKit

/// Property names and parameters in words, for people.
enum PropertyWords {
    static let names: [String: String] = [
        "FN": "Display name", "N": "Name", "NICKNAME": "Nickname", "ORG": "Organisation", "TITLE": "Title", "ROLE": "Role",
        "TEL": "Phone", "EMAIL": "Email", "ADR": "Address", "URL": "Web address", "BDAY": "Birthday", "ANNIVERSARY": "Anniversary",
        "NOTE": "Note", "CATEGORIES": "Categories", "PHOTO": "Photo", "LOGO": "Logo", "UID": "UID", "REV": "Revised", "VERSION": "vCard version",
        "IMPP": "Instant messaging", "GENDER": "Gender", "LANG": "Language", "TZ": "Time zone", "GEO": "Location", "RELATED": "Related",
        "MEMBER": "Member", "KIND": "Kind", "PRODID": "Made by", "SOUND": "Sound", "KEY": "Key", "SOURCE": "Source", "LABEL": "Address label",
        "X-ABLABEL": "Label", "X-SOCIALPROFILE": "Social profile", "X-AIM": "AIM", "X-JABBER": "Jabber", "X-SKYPE": "Skype",
    ]

    static let types: [String: String] = [
        "home": "home", "work": "work", "cell": "mobile", "voice": "voice", "fax": "fax", "pager": "pager", "text": "text",
        "video": "video", "textphone": "textphone", "internet": "internet", "pref": "preferred", "main": "main", "iphone": "iPhone",
        "other": "other", "x400": "X.400", "dom": "domestic", "intl": "international", "postal": "postal", "parcel": "parcel",
    ]

    /// The name of `property` in words ("Phone"), or the name as written for unknown ones.
    static func name(_ property: VCardProperty) -> String {
        names[property.name.uppercased()] ?? property.name
    }

    /// An Apple label such as `_$!<Mobile>!$_` as a word ("Mobile"); other labels as written.
    static func label(_ text: String) -> String {
        if text.hasPrefix("_$!<") && text.hasSuffix(">!$_") { return String(text.dropFirst(4).dropLast(4)) }
        return text
    }

    /// The parameters of `property` in words: "home, preferred", "language en", "value uri".
    static func parameters(_ property: VCardProperty) -> [String] {
        var words: [String] = []
        for parameter in property.parameters {
            let name = parameter.name.uppercased()
            switch name {
            case "TYPE", "":
                words.append(contentsOf: parameter.values.flatMap { $0.split(separator: ",") }.map { types[$0.lowercased()] ?? String($0) })
            case "PREF":
                words.append(parameter.values.first == "1" ? "preferred" : "preference \(parameter.joinedValue)")
            case "ENCODING", "CHARSET", "VALUE", "MEDIATYPE":
                continue
            case "LANGUAGE":
                words.append("language \(parameter.joinedValue)")
            case "LABEL":
                words.append("label “\(parameter.joinedValue)”")
            default:
                words.append(parameter.isNameless ? parameter.joinedValue : "\(parameter.name.lowercased()) \(parameter.joinedValue)")
            }
        }
        return words
    }

    /// The value of `property` for reading: components on their own lines, text unescaped.
    static func value(_ property: VCardProperty) -> String {
        switch property.name.uppercased() {
        case "N":
            let name = StructuredName(property)
            return [name.prefixes, name.given, name.additional, name.family, name.suffixes]
                .map { $0.joined(separator: " ") }.filter { !$0.isEmpty }.joined(separator: " ")
        case "ADR":
            return property.components.map { $0.joined(separator: ", ") }.filter { !$0.isEmpty }.joined(separator: "\n")
        case "ORG":
            return property.components.map { $0.joined(separator: ", ") }.filter { !$0.isEmpty }.joined(separator: ", ")
        case "CATEGORIES", "NICKNAME":
            return property.listValues.joined(separator: ", ")
        case "URL", "BDAY", "ANNIVERSARY", "REV", "UID", "GEO", "TZ", "IMPP", "MEMBER", "RELATED", "SOURCE", "KEY", "SOUND":
            return property.rawValue
        default:
            return property.textValue
        }
    }
}
