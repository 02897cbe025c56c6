import Crypto
import Foundation
@testable import VCardKit

// The frozen v1 definition of the content hash, kept to prove the fast path equal.
//
// This is `ContentHash.canonicalText(of:)`, `relabelGroups`, `CanonicalForm.properties`,
// `canonicalize` and `normalizedValue` as they were at 4c5d904, with the text-escaping and
// date-form helpers they call copied beside them, before the hash was rewritten to build its
// lines as bytes. The digest is stored in every journal line and index snapshot, so it must
// never change: `ContentHashEquivalenceTests` checks `ContentHash` against this copy on every
// card it can find. Do not "improve" this file; it is the specification.

/// One canonical property as the v1 definition spelled it.
struct ReferenceCanonicalProperty: Hashable, Comparable, CustomStringConvertible {
    var group: String
    var name: String
    var parameters: [String]
    var value: String

    static func < (lhs: Self, rhs: Self) -> Bool {
        if lhs.name != rhs.name { return lhs.name < rhs.name }
        if lhs.group != rhs.group { return lhs.group < rhs.group }
        if lhs.value != rhs.value { return lhs.value < rhs.value }
        if lhs.parameters == rhs.parameters { return false }
        return lhs.parameters.joined(separator: ";") < rhs.parameters.joined(separator: ";")
    }

    var description: String {
        (group.isEmpty ? "" : group + ".") + name + parameters.map { ";" + $0 }.joined() + ":" + value
    }
}

/// The v1 content hash: the SHA-256 of ``canonicalText(of:)``'s UTF-8 bytes.
struct ReferenceContentHash: Equatable, CustomStringConvertible {
    let digest: [UInt8]

    init(of card: VCard) {
        digest = Array(SHA256.hash(data: Array(Self.canonicalText(of: card).utf8)))
    }

    /// The digest in the form ``ContentHash`` keeps it.
    var contentHash: ContentHash {
        var words: [UInt64] = [0, 0, 0, 0]
        for (index, byte) in digest.enumerated() { words[index / 8] = words[index / 8] << 8 | UInt64(byte) }
        return ContentHash(words: (words[0], words[1], words[2], words[3]))
    }

    var description: String { contentHash.hexDigits }

    static func canonicalText(of card: VCard) -> String {
        var properties = ReferenceCanonicalForm.properties(of: card, excluding: ["VERSION", "UID", "REV", "PRODID"])
        relabelGroups(&properties)
        var text = "cardsync-content-v1\n"
        for property in properties {
            let line = property.description
            text += String(line.utf8.count)
            text += " "
            text += line
            text += "\n"
        }
        return text
    }

    static func relabelGroups(_ properties: inout [ReferenceCanonicalProperty]) {
        var members: [String: [String]] = [:]
        for property in properties where !property.group.isEmpty {
            var bare = property
            bare.group = ""
            members[property.group, default: []].append(bare.description)
        }
        guard !members.isEmpty else { return }
        let ordered = members.map { (label: $0.key, content: $0.value.sorted().joined(separator: "\n")) }
            .sorted { ($0.content, $0.label) < ($1.content, $1.label) }
        var labels: [String: String] = [:]
        for (index, group) in ordered.enumerated() { labels[group.label] = "g\(index + 1)" }
        for index in properties.indices where !properties[index].group.isEmpty {
            properties[index].group = labels[properties[index].group] ?? properties[index].group
        }
        properties.sort()
    }
}

/// The v1 canonical form.
enum ReferenceCanonicalForm {
    static func properties(of card: VCard, excluding names: Set<String> = ["VERSION"]) -> [ReferenceCanonicalProperty] {
        var result: [ReferenceCanonicalProperty] = []
        for property in card.properties {
            let name = property.upperName
            if names.contains(name) { continue }
            if name == "KIND" && property.rawValue.equalsIgnoringASCIICase("individual") { continue }
            canonicalize(property, name: name, into: &result)
        }
        result.sort()
        return result
    }

    private static func canonicalize(_ property: VCardProperty, name: String, into result: inout [ReferenceCanonicalProperty]) {
        let kind = property.traits.kind
        var parameters: [(String, [String])] = []
        var mediaTypeFromType: String?
        var isBase64 = false
        var label: String?
        var typeValues: [String] = []
        var pref: String?
        var sortString: String?
        var valueType: String?
        for parameter in property.parameters {
            let parameterName = parameter.name.asciiUppercased
            switch parameterName {
            case "CHARSET":
                continue
            case "ENCODING":
                let value = parameter.values.first?.asciiUppercased ?? ""
                if value == "B" || value == "BASE64" { isBase64 = true }
                continue
            case "TYPE":
                for value in parameter.values {
                    for piece in value.split(separator: ",") { typeValues.append(String(piece).asciiLowercased) }
                }
                continue
            case "PREF":
                pref = parameter.values.first
                continue
            case "LABEL" where name == "ADR":
                label = parameter.values.joined(separator: ",")
                continue
            case "SORT-AS" where name == "N" && parameter.values.count == 1:
                sortString = parameter.values[0]
                continue
            case "VALUE":
                let value = parameter.values.first?.asciiLowercased ?? ""
                valueType = value
                if value == "url" || value == "uri" || value == "binary" || value == "text" || value == "date"
                    || value == "date-time" || value == "date-and-or-time" || value == "timestamp" {
                    if kind != .unknown || value == "text" { continue }
                }
                if name == "TZ" && (value == "utc-offset" || value == "text") { continue }
                parameters.append((parameterName, [value == "url" ? "uri" : value]))
            default:
                parameters.append((parameterName, parameter.values))
            }
        }
        if name == "EMAIL" { typeValues.removeAll { $0 == "internet" } }
        if typeValues.contains("pref") {
            typeValues.removeAll { $0 == "pref" }
            if pref == nil { pref = "1" }
        }
        var value = property.rawValue
        if kind == .binary {
            if isBase64 {
                if !typeValues.isEmpty { mediaTypeFromType = MediaTypes.mediaType(forTypeValue: typeValues.removeFirst(), property: name) }
                value = "data:\(mediaTypeFromType ?? "application/octet-stream");base64," + withoutASCIIWhitespace(value)
            } else if let (mediaType, base64) = dataURI(value) {
                value = "data:\(mediaType.asciiLowercased);base64," + withoutASCIIWhitespace(base64)
            }
        }
        if let pref { parameters.append(("PREF", [pref])) }
        if !typeValues.isEmpty { parameters.append(("TYPE", typeValues.sorted())) }
        value = normalizedValue(value, kind: kind, name: name)
        if let valueType, kind == .unknown, ["date", "date-time", "date-and-or-time", "timestamp", "time"].contains(valueType) {
            value = ReferenceDateForms.basic(value, isTime: valueType == "time")
        }
        let parameterStrings = parameters.map { $0.0 + "=" + $0.1.joined(separator: ",") }.sorted()
        let group = property.group?.asciiLowercased ?? ""
        result.append(ReferenceCanonicalProperty(group: group, name: name, parameters: parameterStrings, value: value))
        if let sortString {
            result.append(ReferenceCanonicalProperty(group: group, name: "SORT-STRING", parameters: [], value: ReferenceEscaping.escape(sortString)))
        }
        if let label {
            let types = typeValues.isEmpty ? [] : ["TYPE=" + typeValues.sorted().joined(separator: ",")]
            let prefs = pref.map { ["PREF=" + $0] } ?? []
            result.append(ReferenceCanonicalProperty(group: group, name: "LABEL", parameters: (prefs + types).sorted(),
                                                     value: ReferenceEscaping.escape(label)))
        }
    }

    private static func withoutASCIIWhitespace(_ text: some StringProtocol) -> String {
        let utf8 = text.utf8
        if utf8.contains(where: { $0 >= 0x80 }) { return String(text.filter { !$0.isWhitespace }) }
        guard utf8.contains(where: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else { return String(text) }
        return String(decoding: utf8.filter { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }, as: UTF8.self)
    }

    private static func emptyElementsCollapsed(_ xml: String) -> String {
        guard xml.contains("></") else { return xml }
        let pattern = /<([A-Za-z_][A-Za-z0-9_:.\-]*)([^<>]*)><\/\1>/
        return xml.replacing(pattern) { match in "<\(match.output.1)\(match.output.2)/>" }
    }

    private static func normalizedValue(_ value: String, kind: PropertyValueKind, name: String) -> String {
        typealias E = ReferenceEscaping
        if name == "XML" { return emptyElementsCollapsed(E.escape(E.unescape(value))) }
        switch kind {
        case .text, .embeddedCard:
            return E.escape(E.unescape(value))
        case .textList:
            return E.split(value, separator: 0x2C).map { E.escape(E.unescape($0)) }.joined(separator: ",")
        case .structured:
            var components = E.components(value)
            let expected = name == "N" ? 5 : name == "ADR" ? 7 : name == "GENDER" || name == "CLIENTPIDMAP" ? 2 : 0
            while components.count < expected { components.append([""]) }
            return E.joinComponents(components)
        case .structuredText:
            return E.split(value, separator: 0x3B).map { E.escape(E.unescape($0)) }.joined(separator: ";")
        case .uri where name == "GEO":
            return geoURI(fromPair: value) ?? value
        case .uri where name == "TEL":
            let number = value.hasPrefix("tel:") ? String(value.dropFirst(4)) : E.unescape(value)
            return String(number.filter { !($0 == " " || $0 == "-" || $0 == "." || $0 == "(" || $0 == ")") })
        case .uri where name == "TZ":
            return value.referenceReplacingColons
        case .dateTime:
            return ReferenceDateForms.basic(value)
        case .uri, .binary, .unknown:
            return value
        }
    }

    private static func dataURI(_ value: String) -> (String, String)? {
        guard value.utf8.count > 5, value.utf8.starts(with: "data:".utf8) else { return nil }
        guard let comma = value.utf8.firstIndex(of: 0x2C) else { return nil }
        let header = String(value[value.index(value.startIndex, offsetBy: 5)..<comma])
        guard header.hasSuffix(";base64") else { return nil }
        let mediaType = String(header.dropLast(7))
        return (mediaType.isEmpty ? "application/octet-stream" : mediaType, String(value[value.index(after: comma)...]))
    }

    private static func geoURI(fromPair value: String) -> String? {
        let parts = ReferenceEscaping.split(value, separator: 0x3B)
        guard parts.count == 2, parts.allSatisfy({ Double($0.trimmingASCIISpaces) != nil }) else { return nil }
        return "geo:\(parts[0].trimmingASCIISpaces),\(parts[1].trimmingASCIISpaces)"
    }
}

/// The v1 text escaping.
enum ReferenceEscaping {
    static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x5C || $0 == 0x0A || $0 == 0x0D || $0 == 0x2C || $0 == 0x3B }) else {
            return text
        }
        var out: [UInt8] = []
        var previousWasCR = false
        for byte in text.utf8 {
            switch byte {
            case 0x5C: out += [0x5C, 0x5C]
            case 0x2C: out += [0x5C, 0x2C]
            case 0x3B: out += [0x5C, 0x3B]
            case 0x0D: out += [0x5C, 0x6E]
            case 0x0A: if !previousWasCR { out += [0x5C, 0x6E] }
            default: out.append(byte)
            }
            previousWasCR = byte == 0x0D
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func unescape(_ value: String) -> String {
        guard value.utf8.contains(0x5C) else { return value }
        var out: [UInt8] = []
        var escaping = false
        for byte in value.utf8 {
            if escaping {
                switch byte {
                case 0x6E, 0x4E: out.append(0x0A)
                default: out.append(byte)
                }
                escaping = false
            } else if byte == 0x5C {
                escaping = true
            } else {
                out.append(byte)
            }
        }
        if escaping { out.append(0x5C) }
        return String(decoding: out, as: UTF8.self)
    }

    static func split(_ value: String, separator: UInt8) -> [String] {
        var parts: [String] = []
        var current: [UInt8] = []
        var escaping = false
        for byte in value.utf8 {
            if escaping {
                current.append(byte)
                escaping = false
            } else if byte == 0x5C {
                current.append(byte)
                escaping = true
            } else if byte == separator {
                parts.append(String(decoding: current, as: UTF8.self))
                current.removeAll(keepingCapacity: true)
            } else {
                current.append(byte)
            }
        }
        parts.append(String(decoding: current, as: UTF8.self))
        return parts
    }

    static func components(_ value: String) -> [[String]] {
        split(value, separator: 0x3B).map { component in split(component, separator: 0x2C).map(unescape) }
    }

    static func joinComponents(_ components: [[String]]) -> String {
        components.map { $0.map(escape).joined(separator: ",") }.joined(separator: ";")
    }
}

/// The v1 conversion of dates and times to their basic form.
enum ReferenceDateForms {
    static func basic(_ value: String, isTime: Bool = false) -> String {
        if isTime && !value.contains("T") { return isTimeLike(value) ? "T" + basicTime(value) : value }
        let (date, time) = split(value)
        if let time, !isTimeLike(time) { return value }
        var result = basicDate(date)
        if let time { result += "T" + basicTime(time) }
        return result
    }

    private static func split(_ value: String) -> (String, String?) {
        if let t = value.firstIndex(where: { $0 == "T" || $0 == "t" }) {
            return (String(value[..<t]), String(value[value.index(after: t)...]))
        }
        return (value, nil)
    }

    private static func isDigit(_ c: Character) -> Bool { c.isASCII && c.isNumber }

    private static func isDigits(_ text: Substring) -> Bool { !text.isEmpty && text.allSatisfy(isDigit) }

    private static func basicDate(_ date: String) -> String {
        let s = Substring(date)
        if s.count == 10, s.dropFirst(4).first == "-", s.dropFirst(7).first == "-" {
            let digits = s.filter { $0 != "-" }
            if digits.count == 8 && isDigits(Substring(digits)) { return digits }
        }
        if s.hasPrefix("--") && !s.hasPrefix("---") && s.count == 7 && s.dropFirst(4).first == "-",
           isDigits(s.dropFirst(2).prefix(2)), isDigits(s.suffix(2)) {
            return "--" + s.dropFirst(2).filter { $0 != "-" }
        }
        return date
    }

    private static func zoneSplit(_ time: String) -> (String, String) {
        if time.hasSuffix("Z") || time.hasSuffix("z") { return (String(time.dropLast()), "Z") }
        if let sign = time.lastIndex(where: { $0 == "+" || $0 == "-" }), sign != time.startIndex,
           time[time.startIndex..<sign].contains(where: isDigit) {
            return (String(time[..<sign]), String(time[sign...]))
        }
        return (time, "")
    }

    private static func isTimeLike(_ time: String) -> Bool {
        let (clock, zone) = zoneSplit(time)
        let c = clock.referenceReplacingColons
        let z = zone.referenceReplacingColons
        let isClock = !c.isEmpty && c.allSatisfy { isDigit($0) || $0 == "-" || $0 == "." }
        let isZone = z.isEmpty || z == "Z" || (z.count == 5 && (z.first == "+" || z.first == "-") && isDigits(Substring(z).dropFirst()))
        return isClock && isZone
    }

    private static func basicTime(_ time: String) -> String {
        let (clock, zone) = zoneSplit(time)
        return clock.referenceReplacingColons + zone.referenceReplacingColons
    }
}

extension String {
    fileprivate var referenceReplacingColons: String { contains(":") ? String(filter { $0 != ":" }) : self }
}
