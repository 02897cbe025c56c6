/// A JSON Schema (2020-12) checker for the keywords cardsync's schemas use: `$ref` (local),
/// `anyOf`, `oneOf`, `allOf`, `type`, `const`, `enum`, `pattern`, `minItems`, `maxItems`,
/// `prefixItems`, `items`, `properties`, `required`, `additionalProperties` and
/// `propertyNames`. Annotations (`description`, `examples`, …) are ignored.
///
/// The rules come from the schema file itself (`Schemas/jcard.schema.json`), so the file stays
/// the single source of truth:
///
/// ```swift
/// let schema = try JSONSchemaCheck(schema: Array(schemaData))
/// let problems = schema.problems(in: Array(jcardData), sourceName: "contacts.json")
/// ```
public struct JSONSchemaCheck: Sendable {
    private let root: JSONValue

    /// Reads a schema.
    /// - Throws: `VCardError` when the schema is not valid JSON.
    public init(schema: [UInt8]) throws(VCardError) {
        var parser = JSONParser(schema)
        do {
            root = try parser.parseDocument()
        } catch {
            throw VCardError(code: .init(rawValue: "schema-invalid"), message: "the schema is not valid JSON: \(error.message) at line \(error.line)")
        }
    }

    /// The schema violations of a JSON document, each a diagnostic naming the JSON path (an
    /// error when the document is not JSON at all).
    public func problems(in document: [UInt8], sourceName: String = "<input>",
                         severity: Diagnostic.Severity = .error) -> [Diagnostic] {
        var parser = JSONParser(document)
        let value: JSONValue
        do {
            value = try parser.parseDocument()
        } catch {
            return [Diagnostic(severity: .error, code: .invalidJSON, message: "not valid JSON: \(error.message)",
                               location: SourceLocation(source: sourceName, line: error.line, column: error.column))]
        }
        var found: [String] = []
        check(value, against: root, path: "", problems: &found)
        return found.prefix(50).map {
            Diagnostic(severity: severity, code: .init(rawValue: "schema-violation"), message: $0,
                       location: SourceLocation(source: sourceName, line: 1, column: 1))
        }
    }

    private func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#/") else { return nil }
        var current = root
        for part in reference.dropFirst(2).split(separator: "/") {
            guard case .object(let members) = current, let next = members.first(where: { $0.key == part })?.value else { return nil }
            current = next
        }
        return current
    }

    private func check(_ value: JSONValue, against schema: JSONValue, path: String, problems: inout [String]) {
        guard case .object(let keywords) = schema else { return }
        let at = path.isEmpty ? "the document" : path
        for (keyword, argument) in keywords {
            switch keyword {
            case "$ref":
                if case .string(let reference) = argument, let target = resolve(reference) {
                    check(value, against: target, path: path, problems: &problems)
                } else {
                    problems.append("\(at): the schema's $ref \(argument) cannot be resolved")
                }
            case "anyOf", "oneOf":
                guard case .array(let options) = argument else { continue }
                let matching = options.filter { option in
                    var inner: [String] = []
                    check(value, against: option, path: path, problems: &inner)
                    return inner.isEmpty
                }.count
                if matching == 0 || (keyword == "oneOf" && matching > 1) {
                    problems.append("\(at) matches \(matching) of the \(options.count) alternatives of \(keyword), where \(keyword == "oneOf" ? "exactly one" : "at least one") must match")
                }
            case "allOf":
                guard case .array(let parts) = argument else { continue }
                for part in parts { check(value, against: part, path: path, problems: &problems) }
            case "type":
                let allowed: [String]
                switch argument {
                case .string(let single): allowed = [single]
                case .array(let many): allowed = many.compactMap { if case .string(let s) = $0 { s } else { nil } }
                default: continue
                }
                if !allowed.contains(where: { Self.has(value, type: $0) }) {
                    problems.append("\(at) should be \(allowed.joined(separator: " or ")), not \(Self.typeName(of: value))")
                }
            case "const":
                if value != argument { problems.append("\(at) should be \(Self.brief(argument))") }
            case "enum":
                if case .array(let choices) = argument, !choices.contains(value) {
                    problems.append("\(at) is \(Self.brief(value)), not one of the allowed values")
                }
            case "pattern":
                if case .string(let pattern) = argument, case .string(let text) = value, !Self.matches(text, pattern) {
                    problems.append("\(at) \"\(text)\" does not match \(pattern)")
                }
            case "minItems", "maxItems":
                if case .number(let limitText) = argument, let limit = Int(limitText), case .array(let items) = value {
                    if keyword == "minItems" && items.count < limit { problems.append("\(at) has \(items.count) items, fewer than \(limit)") }
                    if keyword == "maxItems" && items.count > limit { problems.append("\(at) has \(items.count) items, more than \(limit)") }
                }
            case "prefixItems", "items":
                guard case .array(let items) = value else { continue }
                let prefixCount: Int
                if case .array(let prefix)? = keywords.first(where: { $0.key == "prefixItems" })?.value { prefixCount = prefix.count } else { prefixCount = 0 }
                if keyword == "prefixItems", case .array(let schemas) = argument {
                    for (index, item) in items.prefix(schemas.count).enumerated() {
                        check(item, against: schemas[index], path: "\(path)/\(index)", problems: &problems)
                    }
                } else if keyword == "items" {
                    for (index, item) in items.enumerated().dropFirst(prefixCount) {
                        check(item, against: argument, path: "\(path)/\(index)", problems: &problems)
                    }
                }
            case "properties", "additionalProperties", "required", "propertyNames":
                guard case .object(let members) = value else { continue }
                var declared: [(key: String, value: JSONValue)] = []
                if case .object(let properties)? = keywords.first(where: { $0.key == "properties" })?.value { declared = properties }
                switch keyword {
                case "properties":
                    for (name, schema) in declared {
                        if let member = members.first(where: { $0.key == name }) {
                            check(member.value, against: schema, path: "\(path)/\(name)", problems: &problems)
                        }
                    }
                case "additionalProperties":
                    for member in members where !declared.contains(where: { $0.key == member.key }) {
                        if argument == .bool(false) {
                            problems.append("\(at) has a member \"\(member.key)\" the schema does not allow")
                        } else {
                            check(member.value, against: argument, path: "\(path)/\(member.key)", problems: &problems)
                        }
                    }
                case "required":
                    if case .array(let names) = argument {
                        for case .string(let name) in names where !members.contains(where: { $0.key == name }) {
                            problems.append("\(at) lacks the required member \"\(name)\"")
                        }
                    }
                default:
                    for member in members {
                        check(.string(member.key), against: argument, path: "\(path) (member name \(member.key))", problems: &problems)
                    }
                }
            default:
                continue
            }
        }
    }

    private static func has(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("string", .string), ("boolean", .bool), ("null", .null), ("array", .array), ("object", .object), ("number", .number):
            true
        case ("integer", .number(let text)):
            Int(text) != nil
        default:
            false
        }
    }

    private static func typeName(of value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    private static func brief(_ value: JSONValue) -> String {
        var bytes: [UInt8] = []
        value.write(into: &bytes)
        let text = String(decoding: bytes.prefix(60), as: UTF8.self)
        return bytes.count > 60 ? text + "…" : text
    }

    private static func matches(_ text: String, _ pattern: String) -> Bool {
        guard let regex = try? Regex(pattern) else { return true }
        return text.contains(regex)
    }
}
