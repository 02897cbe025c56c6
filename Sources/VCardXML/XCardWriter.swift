import CLibXML2
public import VCardKit

/// Writes cards as xCard (RFC 6351). Cards in another version are
/// converted to 4.0 first, losslessly (see `VersionConverter`).
///
/// ```swift
/// let xml = XCardWriter().bytes(for: cards)   // <?xml …?><vcards xmlns="urn:ietf:params:xml:ns:vcard-4.0">…
/// ```
///
/// What xCard cannot spell directly is still kept: an unknown value type becomes `<unknown>`
/// with a `value` parameter, a property name that is not an XML name becomes
/// `<x-cardsync-property name="…">`, and an `XML` property's content is written as the XML it holds.
public struct XCardWriter: Sendable {
    /// Whether to indent the output (the default) for people to read.
    public var indents: Bool

    /// Creates a writer.
    public init(indents: Bool = true) {
        self.indents = indents
    }

    /// The xCard document holding `cards`.
    public func bytes(for cards: some Sequence<VCard>) -> [UInt8] {
        let stream = XCardStreamWriter(indents: indents)
        var output = stream.begin()
        for card in cards { output += stream.write(card) }
        output += stream.end()
        return output
    }
}

/// Writes an xCard document card by card, so that a large book never sits in memory whole.
public struct XCardStreamWriter: Sendable {
    /// Whether to indent the output.
    public var indents: Bool

    /// Creates a stream writer.
    public init(indents: Bool = true) {
        self.indents = indents
    }

    /// The XML declaration and the opening `<vcards>` tag.
    public func begin() -> [UInt8] {
        Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<vcards xmlns=\"\(XCardVocabulary.namespace)\">\n".utf8)
    }

    /// The closing `</vcards>` tag.
    public func end() -> [UInt8] {
        Array("</vcards>\n".utf8)
    }

    /// One `<vcard>` element.
    public func write(_ card: VCard) -> [UInt8] {
        let card4 = (card.sourceVersion ?? card.version) == .v4_0 ? card : VersionConverter.convert(card, to: .v4_0).card
        let writer = XMLOutput(indents: indents)
        writer.start("vcard")
        var index = 0
        let properties = card4.properties
        while index < properties.count {
            let group = properties[index].group
            if let group, !group.isEmpty {
                writer.start("group")
                writer.attribute("name", group)
                while index < properties.count, properties[index].group == group {
                    writeProperty(properties[index], writer)
                    index += 1
                }
                writer.end()
            } else {
                writeProperty(properties[index], writer)
                index += 1
            }
        }
        writer.end()
        var bytes = writer.bytes
        bytes.append(0x0A)
        return bytes
    }

    private func start(_ writer: XMLOutput, _ name: String) { writer.start(name) }

    private func attribute(_ writer: XMLOutput, _ name: String, _ value: String) { writer.attribute(name, value) }

    private func element(_ writer: XMLOutput, _ name: String, _ text: String) { writer.element(name, Self.xmlSafe(text)) }

    /// Whether libxml2 parses `text` as a URI reference (the schema's `xsd:anyURI`).
    static func isURI(_ text: String) -> Bool {
        if text.utf8.contains(where: { $0 == 0x5C || $0 == 0x20 }) { return false }
        guard let uri = xmlParseURI(text) else { return false }
        xmlFreeURI(uri)
        return true
    }

    static func hasControlCharacters(_ text: String) -> Bool {
        text.utf8.contains { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
    }

    static func shiftingControlCharacters(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map {
            $0.value < 0x20 && $0 != "\t" && $0 != "\n" && $0 != "\r" ? Unicode.Scalar(0xF700 + $0.value)! : $0
        }))
    }

    /// XML 1.0 cannot hold most C0 control characters, even escaped; they become U+FFFD.
    static func xmlSafe(_ text: String) -> String {
        guard hasControlCharacters(text) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 && $0 != "\t" && $0 != "\n" && $0 != "\r" ? "\u{FFFD}" : $0 }))
    }

    /// Parameters in the order RFC 6351's schema lists them (its `parameters` content is a
    /// sequence); extension parameters go where `altid` goes, which `xcard.rng` allows.
    static func inSchemaOrder(_ parameters: [VCardParameter], property: String) -> [VCardParameter] {
        guard parameters.count > 1 else { return parameters }
        let rank = property == "N" ? nameRank : defaultRank
        let other = rank["*"]!
        // A registered parameter the property does not list in the schema is an "other" one too.
        let allowed = allowedParameters[property] ?? []
        return parameters.enumerated().sorted { a, b in
            func key(_ p: VCardParameter) -> Int {
                let name = p.name.uppercased()
                guard let position = rank[name], allowed.contains(name) else { return other }
                return position
            }
            let (ka, kb) = (key(a.element), key(b.element))
            return ka != kb ? ka < kb : a.offset < b.offset
        }.map(\.element)
    }

    private static let nameRank = ranks(["LANGUAGE", "SORT-AS", "ALTID", "*", "PID", "PREF", "TYPE", "MEDIATYPE", "CALSCALE", "GEO", "TZ", "LABEL"])
    private static let defaultRank = ranks(["LANGUAGE", "ALTID", "*", "PID", "PREF", "TYPE", "MEDIATYPE", "CALSCALE", "SORT-AS", "GEO", "TZ", "LABEL"])

    private static func ranks(_ order: [String]) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
    }

    /// The registered parameters RFC 6351's schema lists for each property.
    private static let allowedParameters: [String: Set<String>] = {
        var table: [String: Set<String>] = [:]
        for name in ["SOURCE", "MEMBER"] { table[name] = ["ALTID", "PID", "PREF", "MEDIATYPE"] }
        for name in ["FN", "NICKNAME", "TITLE", "ROLE", "NOTE"] { table[name] = ["LANGUAGE", "ALTID", "PID", "PREF", "TYPE"] }
        table["N"] = ["LANGUAGE", "SORT-AS", "ALTID"]
        for name in ["PHOTO", "IMPP", "TZ", "GEO", "URL", "KEY", "FBURL", "CALADRURI", "CALURI", "TEL", "RELATED"] {
            table[name] = ["ALTID", "PID", "PREF", "TYPE", "MEDIATYPE"]
        }
        for name in ["BDAY", "ANNIVERSARY"] { table[name] = ["ALTID", "CALSCALE"] }
        table["ADR"] = ["LANGUAGE", "ALTID", "PID", "PREF", "TYPE", "GEO", "TZ", "LABEL"]
        for name in ["EMAIL", "LANG", "CATEGORIES"] { table[name] = ["ALTID", "PID", "PREF", "TYPE"] }
        for name in ["LOGO", "SOUND"] { table[name] = ["LANGUAGE", "ALTID", "PID", "PREF", "TYPE", "MEDIATYPE"] }
        table["ORG"] = ["LANGUAGE", "ALTID", "PID", "PREF", "TYPE", "SORT-AS"]
        return table
    }()

    private func writeProperty(_ property: VCardProperty, _ writer: XMLOutput) {
        let name = property.name.asciiUppercasedForXML
        // xCard has no VERSION element: the namespace is the version (RFC 6351 §4).
        if name == "VERSION" { return }
        if name == "XML" {
            // The XML property holds extension elements: write them as XML (RFC 6351 §4). A value
            // that is no element (an empty `<xml/>` of the vCard namespace was read as one) is
            // written as an ordinary property instead: as raw text it would vanish or be read
            // back as something else.
            let markup = TextEscaping.unescape(property.rawValue)
            if markup.utf8.first == UInt8(ascii: "<") {
                writer.raw(markup)
                return
            }
        }
        let isXMLName = XCardVocabulary.isXMLName(property.name)
        start(writer, isXMLName ? property.name.lowercased() : "x-cardsync-property")
        if !isXMLName { attribute(writer, "name", property.name) }

        // The value type: VALUE when jCard/xCard knows it, else the property's default.
        let defaultType = XCardValueTypes.defaultType(of: name)
        var type = defaultType
        var parameters: [VCardParameter] = []
        for parameter in property.parameters {
            if parameter.name.uppercased() == "VALUE", parameter.values.count == 1,
               XCardVocabulary.valueTypes.contains(parameter.values[0].lowercased()) {
                type = parameter.values[0].lowercased()
            } else {
                parameters.append(parameter)
            }
        }
        let raw = property.rawValue
        var valueElements: [(String, String)] = []
        var components: [(String, [String])]? = nil
        let kind = property.valueKind
        switch type {
        case "text" where XCardVocabulary.components(of: name) != nil && kind == .structured:
            let names = XCardVocabulary.components(of: name)!
            let parts = TextEscaping.components(raw)
            if parts.count <= names.count {
                components = names.enumerated().map { offset, element in
                    (element, offset < parts.count ? parts[offset] : [])
                }
            } else {
                valueElements = [("unknown", raw)]
                parameters.append(VCardParameter(name: "VALUE", value: "text"))
            }
        case "text" where kind == .structuredText || kind == .structured:
            valueElements = TextEscaping.split(raw, separator: 0x3B).map { ("text", TextEscaping.unescape($0)) }
        case "text" where kind == .textList:
            valueElements = TextEscaping.split(raw, separator: 0x2C).map { ("text", TextEscaping.unescape($0)) }
        case "text" where kind == .text || kind == .embeddedCard:
            valueElements = [("text", TextEscaping.unescape(raw))]
        case "text":
            valueElements = [("text", raw)]
        case "date-and-or-time", "date", "date-time", "time", "timestamp":
            let basic = XCardValueTypes.basicDate(raw)
            let element: String?
            switch type {
            case "date-and-or-time": element = XCardVocabulary.dateAndOrTimeElement(basic)
            case "date": element = XCardVocabulary.isDate(basic) ? "date" : nil
            case "date-time": element = XCardVocabulary.isDateTime(basic) ? "date-time" : nil
            case "time": element = XCardVocabulary.isTime(basic) ? "time" : nil
            default: element = XCardVocabulary.isTimestamp(basic) ? "timestamp" : nil
            }
            if let element {
                valueElements = [(element, element == "time" && type == "date-and-or-time" ? String(basic.dropFirst()) : basic)]
                if type != defaultType && !(defaultType == "date-and-or-time" && ["date", "date-time", "time"].contains(type)) {
                    // An explicit type the element name alone does not carry.
                    parameters.append(VCardParameter(name: "VALUE", value: type))
                }
            } else {
                valueElements = [("unknown", raw)]
                if type != defaultType { parameters.append(VCardParameter(name: "VALUE", value: type)) }
            }
        case "utc-offset":
            let basic = String(raw.filter { $0 != ":" })
            valueElements = XCardVocabulary.isUTCOffset(basic) ? [("utc-offset", basic)] : [("unknown", raw)]
        case "integer" where Int(raw) != nil, "float" where Double(raw) != nil, "boolean" where ["true", "false"].contains(raw.lowercased()):
            valueElements = [(type, raw)]
        case "uri", "language-tag", "unknown":
            valueElements = [(type, raw)]
        default:
            valueElements = [("unknown", raw)]
            parameters.append(VCardParameter(name: "VALUE", value: type))
        }
        // A value element the schema does not allow for this property, or a URI that is not one,
        // is kept as <unknown>, with a VALUE parameter saying what it was.
        if components == nil, let allowed = XCardVocabulary.allowedValueElements(name) {
            let fits = valueElements.allSatisfy { element, text in
                allowed.contains(element) && (element != "uri" || Self.isURI(text))
            }
            if !fits {
                let declared = valueElements.first?.0 ?? type
                valueElements = [("unknown", raw)]
                if declared != "unknown" && !parameters.contains(where: { $0.name.uppercased() == "VALUE" }) {
                    parameters.append(VCardParameter(name: "VALUE", value: type == defaultType ? declared : type))
                }
            }
        }
        // XML 1.0 cannot hold C0 control characters, even escaped: they move to the private-use
        // range U+F700…, and a parameter says so, so that the reader can move them back.
        if valueElements.contains(where: { Self.hasControlCharacters($0.1) }) {
            valueElements = valueElements.map { ($0.0, Self.shiftingControlCharacters($0.1)) }
            parameters.append(VCardParameter(name: XCardVocabulary.controlMarker, value: "U+F700"))
        }
        // (A VALUE parameter naming a type xCard does not know is already in `parameters`, from
        // the loop above; adding it again doubled it on every round trip, found by fuzzing.)
        parameters = Self.inSchemaOrder(parameters.filter { !($0.name.uppercased() == "CHARSET") }, property: name)
        if !parameters.isEmpty {
            start(writer, "parameters")
            for parameter in parameters {
                let parameterName = parameter.name.uppercased()
                start(writer, XCardVocabulary.isXMLName(parameter.name) ? parameter.name.lowercased() : "x-cardsync-parameter")
                if !XCardVocabulary.isXMLName(parameter.name) { attribute(writer, "name", parameter.name) }
                var valueType = XCardVocabulary.parameterValueType(parameterName)
                if valueType == "integer" && !parameter.values.allSatisfy({ Int($0) != nil }) { valueType = "text" }
                for value in parameter.values {
                    element(writer, valueType, parameterName == "TYPE" ? XCardVocabulary.registeredCase(ofType: value) : value)
                }
                writer.end()
            }
            writer.end()
        }
        if let components {
            for (element, items) in components {
                if items.isEmpty {
                    // As an empty string: reading `<x/>` back gives one empty item, written the same way.
                    self.element(writer, element, "")
                } else {
                    for item in items { self.element(writer, element, item) }
                }
            }
        } else {
            for (element, text) in valueElements { self.element(writer, element, text) }
        }
        writer.end()
    }
}

extension String {
    var asciiUppercasedForXML: String { uppercased() }
}
