/// The meaning of a card, free of its form: the basis of the content hash and of comparisons
/// that must not see folding, case, parameter order, quoting, transfer encodings, or the
/// difference between the 3.0 and 4.0 spelling of the same data.
///
/// Each property becomes a ``CanonicalProperty``; a card becomes their sorted multiset.
/// What is normalised:
/// - names upper-cased; groups lower-cased;
/// - `CHARSET` and transfer `ENCODING`s dropped (values are decoded when read); vCard 2.1
///   nameless parameters named;
/// - parameters sorted by name; `TYPE` values lower-cased, split at commas, sorted;
///   `TYPE=pref` is `PREF=1`; default `VALUE`s dropped;
/// - inline binary in either spelling is a `data:` URI with its base64 without white space;
/// - `ADR;LABEL=…` and a 3.0 `LABEL` property are the same `LABEL` item;
/// - `GEO:lat;lon` is `geo:lat,lon`;
/// - `N;SORT-AS=x` (4.0) and `SORT-STRING:x` (3.0) are the same `SORT-STRING` item;
/// - dates and times in extended form (`1985-04-12`, `-06:00`) are in basic form (`19850412`, `-0600`);
/// - defaults are left out: `EMAIL;TYPE=internet`, `KIND:individual`, `VALUE=utc-offset` on `TZ`;
/// - a telephone number is compared without its `tel:` scheme and visual separators (space, `-`, `.`, parentheses);
/// - missing trailing components of `N`, `ADR`, `GENDER` and `CLIENTPIDMAP` are empty ones;
/// - text values decoded and escaped one way (`\\`, `\,`, `\;`, `\n`).
public struct CanonicalProperty: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The lower-cased group label, or the empty string.
    public var group: String
    /// The upper-cased name.
    public var name: String
    /// `NAME=v1,v2` strings, sorted.
    public var parameters: [String]
    /// The normalised value.
    public var value: String

    /// Ordered by name, group, value, then the parameters joined by `;`: the order of the tuple
    /// comparison `(name, group, value, joined parameters)`, without joining the parameters of
    /// two properties that already differ before them (in a `perf` profile of `import`, these
    /// comparisons, joining on every call, were about a sixth of the time of a content hash).
    public static func < (lhs: Self, rhs: Self) -> Bool {
        if lhs.name != rhs.name { return lhs.name < rhs.name }
        if lhs.group != rhs.group { return lhs.group < rhs.group }
        if lhs.value != rhs.value { return lhs.value < rhs.value }
        if lhs.parameters == rhs.parameters { return false }
        return lhs.parameters.joined(separator: ";") < rhs.parameters.joined(separator: ";")
    }

    /// One line, as in a card: `group.NAME;P=v:value`.
    public var description: String {
        (group.isEmpty ? "" : group + ".") + name + parameters.map { ";" + $0 }.joined() + ":" + value
    }
}

/// Computes canonical forms of cards.
public enum CanonicalForm {
    /// Which properties the canonical form leaves out.
    public struct Exclusions: Sendable, Hashable {
        /// Upper-case names of properties left out.
        public var names: Set<String> { didSet { matcher = ExcludedNames(names) } }
        /// The names as a property's or a line's traits are compared with them, made once.
        private(set) var matcher: ExcludedNames
        /// Creates exclusions.
        public init(names: Set<String>) {
            self.names = names
            matcher = ExcludedNames(names)
        }
        /// Only `VERSION` (and the BEGIN/END frame): for comparing conversions.
        public static let versionOnly = Exclusions(names: ["VERSION"])
        /// The volatile fields that do not change what a contact says: `VERSION`, `UID`, `REV`, `PRODID`.
        public static let volatile = Exclusions(names: ["VERSION", "UID", "REV", "PRODID"])
    }

    /// The sorted canonical properties of `card`.
    ///
    /// A card read with its properties deferred (``VCardReadOptions/deferredVersions``) and not
    /// edited since is read from its lines (``DeferredProperties/canonicalize(excluding:into:)``),
    /// without building its properties; the result is the same.
    public static func properties(of card: VCard, excluding exclusions: Exclusions = .versionOnly) -> [CanonicalProperty] {
        var result: [CanonicalProperty] = []
        result.reserveCapacity(card.deferredProperties?.lineCount ?? card.properties.count)
        collect(card, excluding: exclusions, into: &result)
        result.sort()
        return result
    }

    /// Appends the canonical form of every property of `card` but the excluded ones to `sink`,
    /// unsorted: from the card's lines while its properties are deferred
    /// (``DeferredProperties/canonicalize(excluding:into:)``), else from its properties.
    static func collect(_ card: VCard, excluding exclusions: Exclusions, into sink: inout some CanonicalSink) {
        if let deferred = card.deferredProperties {
            if deferred.canonicalize(excluding: exclusions, into: &sink) { return }
            sink.removeAll()
        }
        for property in card.properties {
            if exclusions.matcher.contains(property.traits, orName: property.upperName) { continue }
            sink.append(property, name: property.upperName)
        }
    }

    /// The `VALUE`s the canonical form leaves out for a property of known kind (the defaults, or
    /// spellings of them); `text` is left out for any property.
    private static let defaultValueTypes: Set<String> = ["url", "uri", "binary", "text", "date", "date-time", "date-and-or-time", "timestamp"]

    /// Whether the canonical form leaves out the (lower-cased) `VALUE` `valueType` of a property
    /// named `name` of `kind`: a default or a spelling of one, and `utc-offset` or `text` on `TZ`.
    static func leavesOut(valueType: String, kind: PropertyValueKind, name: String) -> Bool {
        defaultValueTypes.contains(valueType) && (kind != .unknown || valueType == "text")
            || name == "TZ" && (valueType == "utc-offset" || valueType == "text")
    }

    /// The `VALUE`s whose values are dates or times, written in basic form for a property of unknown kind.
    static let dateValueTypes: Set<String> = ["date", "date-time", "date-and-or-time", "timestamp", "time"]

    /// What the canonical form takes from a property's parameters.
    struct ReadParameters {
        /// `NAME=v1,v2` of the parameters kept as they are, sorted at the end.
        var parameters: [String] = []
        var isBase64 = false
        /// `ADR`'s `LABEL`.
        var label: String?
        /// The `TYPE` values, lower-cased, one per comma-separated piece.
        var typeValues: [String] = []
        var pref: String?
        /// `N`'s `SORT-AS`.
        var sortString: String?
        var valueType: String?
    }

    /// Appends the canonical form of `property`, whose upper-cased name is `name`, to `result`
    /// (two or three canonical properties when it carries a `SORT-AS` or an `ADR` `LABEL`).
    static func canonicalize(_ property: VCardProperty, name: String, into result: inout [CanonicalProperty]) {
        let kind = property.traits.kind
        var read = ReadParameters()
        for parameter in property.parameters {
            let parameterName = parameter.name.asciiUppercased
            switch parameterName {
            case "CHARSET":
                continue
            case "ENCODING":
                let value = parameter.values.first?.asciiUppercased ?? ""
                if value == "B" || value == "BASE64" { read.isBase64 = true }
                continue
            case "TYPE":
                for value in parameter.values {
                    for piece in value.split(separator: ",") { read.typeValues.append(String(piece).asciiLowercased) }
                }
                continue
            case "PREF":
                read.pref = parameter.values.first
                continue
            case "LABEL" where name == "ADR":
                read.label = parameter.values.joined(separator: ",")
                continue
            case "SORT-AS" where name == "N" && parameter.values.count == 1:
                read.sortString = parameter.values[0]
                continue
            case "VALUE":
                let value = parameter.values.first?.asciiLowercased ?? ""
                read.valueType = value
                if leavesOut(valueType: value, kind: kind, name: name) { continue }
                read.parameters.append(parameterName + "=" + (value == "url" ? "uri" : value))
            default:
                read.parameters.append(parameterName + "=" + parameter.joinedValue)
            }
        }
        canonicalize(read, group: property.group?.asciiLowercased ?? "", name: name, kind: kind, rawValue: property.rawValue, into: &result)
    }

    /// Appends the canonical form of a property to `result`, from what its parameters say
    /// (`read`), its lower-cased group (or the empty string), upper-cased name, kind and value as
    /// read; appends nothing for `KIND:individual`, the default.
    static func canonicalize(_ read: ReadParameters, group: String, name: String, kind: PropertyValueKind, rawValue: String,
                             into result: inout [CanonicalProperty]) {
        if name == "KIND" && rawValue.equalsIgnoringASCIICase("individual") { return }
        var parameters = read.parameters
        var typeValues = read.typeValues
        var pref = read.pref
        let isBase64 = read.isBase64, label = read.label, sortString = read.sortString, valueType = read.valueType
        var mediaTypeFromType: String?
        if name == "EMAIL" { typeValues.removeAll { $0 == "internet" } }
        if typeValues.contains("pref") {
            typeValues.removeAll { $0 == "pref" }
            if pref == nil { pref = "1" }
        }
        var value = rawValue
        if kind == .binary {
            if isBase64 {
                if !typeValues.isEmpty { mediaTypeFromType = MediaTypes.mediaType(forTypeValue: typeValues.removeFirst(), property: name) }
                value = "data:\(mediaTypeFromType ?? "application/octet-stream");base64," + withoutASCIIWhitespace(value)
            } else if let (mediaType, base64) = VersionConverter.dataURI(value) {
                value = "data:\(mediaType.asciiLowercased);base64," + withoutASCIIWhitespace(base64)
            }
        }
        if let pref { parameters.append("PREF=" + pref) }
        if !typeValues.isEmpty { parameters.append("TYPE=" + typeValues.sorted().joined(separator: ",")) }
        value = normalizedValue(value, kind: kind, name: name)
        if let valueType, kind == .unknown, dateValueTypes.contains(valueType) {
            value = DateForms.basic(value, isTime: valueType == "time")
        }
        if parameters.count > 1 { parameters.sort() }
        result.append(CanonicalProperty(group: group, name: name, parameters: parameters, value: value))
        if let sortString {
            result.append(CanonicalProperty(group: group, name: "SORT-STRING", parameters: [], value: TextEscaping.escape(sortString)))
        }
        if let label {
            let types = typeValues.isEmpty ? [] : ["TYPE=" + typeValues.sorted().joined(separator: ",")]
            let prefs = pref.map { ["PREF=" + $0] } ?? []
            result.append(CanonicalProperty(group: group, name: "LABEL", parameters: (prefs + types).sorted(),
                                            value: TextEscaping.escape(label)))
        }
    }

    /// Base64 text without spaces, tabs and line ends, compared byte by byte (base64 is ASCII;
    /// testing `Character.isWhitespace` on every character of a photo was most of the time of
    /// hashing a card with one).
    /// Text with other bytes keeps the old rule (any white space character), so hashes stay the same.
    /// One pass over the bytes decides which of the three cases applies.
    private static func withoutASCIIWhitespace(_ text: some StringProtocol) -> String {
        let utf8 = text.utf8
        var hasWhitespace = false
        for byte in utf8 {
            if byte >= 0x80 { return String(text.filter { !$0.isWhitespace }) }
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { hasWhitespace = true }
        }
        guard hasWhitespace else { return String(text) }
        return String(decoding: utf8.filter { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }, as: UTF8.self)
    }

    /// `<a x="1"></a>` and `<a x="1"/>` are the same XML.
    private static func emptyElementsCollapsed(_ xml: String) -> String {
        guard xml.contains("></") else { return xml }
        let pattern = /<([A-Za-z_][A-Za-z0-9_:.\-]*)([^<>]*)><\/\1>/
        return xml.replacing(pattern) { match in "<\(match.output.1)\(match.output.2)/>" }
    }

    /// How many components a structured value of the property `name` has at least (missing
    /// trailing ones are empty ones): 5 for `N`, 7 for `ADR`, 2 for `GENDER` and `CLIENTPIDMAP`, else 0.
    static func componentCount(ofStructured name: String) -> Int {
        name == "N" ? 5 : name == "ADR" ? 7 : name == "GENDER" || name == "CLIENTPIDMAP" ? 2 : 0
    }

    /// The value of a property named `name` of `kind` as the canonical form compares it.
    static func normalizedValue(_ value: String, kind: PropertyValueKind, name: String) -> String {
        // Each text form is `escape(unescape(part))` of its parts, joined again; `reescaped`
        // does that in one pass (and gives `value` itself when nothing changes).
        var separators = 0
        if name == "XML" { return emptyElementsCollapsed(TextEscaping.reescaped(value, separator: 0, separatorCount: &separators)) }
        switch kind {
        case .text, .embeddedCard:
            return TextEscaping.reescaped(value, separator: 0, separatorCount: &separators)
        case .textList:
            return TextEscaping.reescaped(value, separator: 0x2C, separatorCount: &separators)
        case .structured:
            // Missing trailing components mean empty ones: `N:Doe;Jane` is `N:Doe;Jane;;;`.
            let expected = componentCount(ofStructured: name)
            let text = TextEscaping.reescaped(value, separator: 0x3B, secondSeparator: 0x2C, separatorCount: &separators)
            let present = separators + 1
            return present >= expected ? text : text + String(repeating: ";", count: expected - present)
        case .structuredText:
            return TextEscaping.reescaped(value, separator: 0x3B, separatorCount: &separators)
        case .uri where name == "GEO":
            return VersionConverter.geoURI(fromPair: value) ?? value
        case .uri where name == "TEL":
            let number = value.hasPrefix("tel:") ? String(value.dropFirst(4)) : TextEscaping.unescape(value)
            // An ASCII number is filtered byte by byte: each ASCII byte is a character of its own
            // (but CR LF, which is kept either way).
            if !number.utf8.contains(where: { $0 >= 0x80 }) {
                func isSeparator(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x2D || byte == 0x2E || byte == 0x28 || byte == 0x29 }
                guard number.utf8.contains(where: isSeparator) else { return number }
                return String(decoding: number.utf8.filter { !isSeparator($0) }, as: UTF8.self)
            }
            return String(number.filter { !($0 == " " || $0 == "-" || $0 == "." || $0 == "(" || $0 == ")") })
        case .uri where name == "TZ":
            return DateForms.basicOffset(value)
        case .dateTime:
            return DateForms.basic(value)
        case .uri, .binary, .unknown:
            return value
        }
    }
}
