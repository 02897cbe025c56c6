/// Small, independent readers of generated card text, so the tests do not depend on the
/// generator's own code (or on VCardKit, which is tested separately).
enum CardText {
    /// The physical lines of `bytes`, each without its CRLF.
    static func physicalLines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0D, index + 1 < bytes.count, bytes[index + 1] == 0x0A {
                lines.append(bytes[start..<index])
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        if start < bytes.count { lines.append(bytes[start...]) }
        return lines
    }

    /// The number of CR or LF bytes that are not part of a CRLF pair.
    static func bareLineBreaks(_ bytes: [UInt8]) -> Int {
        var count = 0
        for index in bytes.indices {
            if bytes[index] == 0x0D, index + 1 >= bytes.count || bytes[index + 1] != 0x0A { count += 1 }
            if bytes[index] == 0x0A, index == 0 || bytes[index - 1] != 0x0D { count += 1 }
        }
        return count
    }

    /// The unfolded content lines of one card's text (CRLF followed by a space or tab is removed).
    static func contentLines(_ text: String) -> [String] {
        var lines: [String] = []
        for physical in physicalLines(Array(text.utf8)) {
            if let first = physical.first, first == 0x20 || first == 0x09, !lines.isEmpty {
                lines[lines.count - 1] += String(decoding: physical.dropFirst(), as: UTF8.self)
            } else {
                lines.append(String(decoding: physical, as: UTF8.self))
            }
        }
        return lines
    }

    /// Splits a content line into its name part (`group.NAME;params`) and its value, at the first
    /// colon outside double quotes.
    static func split(_ line: String) -> (head: String, value: String) {
        var inQuotes = false
        for index in line.indices {
            let character = line[index]
            if character == "\"" { inQuotes.toggle() }
            if character == ":", !inQuotes {
                return (String(line[..<index]), String(line[line.index(after: index)...]))
            }
        }
        return (line, "")
    }

    /// A parsed content line: upper-cased group and name, parameters as (upper-cased name, values).
    struct Property: Hashable {
        var group: String?
        var name: String
        var parameters: [Parameter]
        var value: String

        struct Parameter: Hashable {
            var name: String
            var values: [String]
        }
    }

    static func parse(_ line: String) -> Property {
        let (head, value) = split(line)
        var pieces: [String] = []
        var current = ""
        var inQuotes = false
        for character in head {
            if character == "\"" { inQuotes.toggle() }
            if character == ";", !inQuotes {
                pieces.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        pieces.append(current)
        let qualified = pieces.removeFirst()
        var group: String?
        var name = qualified
        if let dot = qualified.firstIndex(of: ".") {
            group = String(qualified[..<dot]).uppercased()
            name = String(qualified[qualified.index(after: dot)...])
        }
        let parameters = pieces.map { piece -> Property.Parameter in
            let parts = piece.split(separator: "=", maxSplits: 1).map(String.init)
            let rawValues = parts.count > 1 ? parts[1] : ""
            var values: [String] = []
            var value = ""
            var quoted = false
            for character in rawValues {
                if character == "\"" {
                    quoted.toggle()
                } else if character == ",", !quoted {
                    values.append(value)
                    value = ""
                } else {
                    value.append(character)
                }
            }
            values.append(value)
            let name = parts[0].uppercased()
            if name == "TYPE" {
                // `TYPE="work,voice"` is a list of two values (RFC 6350 section 5.6).
                values = values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
            }
            return Property.Parameter(name: name, values: values)
        }
        return Property(group: group, name: name.uppercased(), parameters: parameters, value: value)
    }

    /// A form-independent rendering of one property.
    ///
    /// Names are upper-cased, TYPE values merged, lower-cased and sorted, other parameters sorted.
    /// Two lines with the same meaning in the same version give the same string.
    static func canonical(_ property: Property) -> String {
        var types: [String] = []
        var others: [String] = []
        for parameter in property.parameters {
            if parameter.name == "TYPE" {
                types += parameter.values.map { $0.lowercased() }
            } else {
                others.append(parameter.name + "=" + parameter.values.joined(separator: ","))
            }
        }
        if !types.isEmpty { others.append("TYPE=" + types.sorted().joined(separator: ",")) }
        return (property.group.map { $0 + "." } ?? "") + property.name + ";" + others.sorted().joined(separator: ";")
            + ":" + property.value
    }

    /// The value of the first property called `name` in a card's text.
    static func value(of name: String, in text: String) -> String? {
        contentLines(text).lazy.map(parse).first { $0.name == name }?.value
    }
}
