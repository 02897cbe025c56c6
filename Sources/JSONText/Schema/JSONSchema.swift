/// A JSON Schema (2020-12) checker for the keywords cardsync's schemas use: `$ref` (local),
/// `anyOf`, `oneOf`, `allOf`, `type`, `const`, `enum`, `pattern`, `minItems`, `maxItems`,
/// `prefixItems`, `items`, `properties`, `required`, `additionalProperties` and
/// `propertyNames`. Annotations (`description`, `examples`, …) are ignored.
///
/// The rules come from the schema file itself (`Schemas/jcard.schema.json`), so the file stays
/// the single source of truth:
///
/// ```swift
/// let schema = try JSONSchema(parsing: schemaBytes)
/// for violation in try schema.violations(in: documentBytes) { print(violation) }   // /0/1: …
/// ```
public struct JSONSchema: Sendable {
    private let root: JSONValue

    /// The most violations reported for one document.
    public static let maximumViolations = 50

    /// Reads a schema.
    /// - Throws: ``JSONError`` when the schema is not JSON.
    public init(parsing schema: [UInt8]) throws(JSONError) {
        root = try JSONValue(parsing: schema, options: JSONReadingOptions(allowsByteOrderMark: true))
    }

    /// A schema given as a value.
    public init(_ schema: JSONValue) {
        root = schema
    }

    /// The ways `value` breaks the schema, each naming the JSON path (`/0/1`) or `the document`;
    /// at most ``maximumViolations``.
    public func violations(of value: JSONValue) -> [String] {
        var found: [String] = []
        check(value, against: root, path: "", problems: &found)
        return Array(found.prefix(Self.maximumViolations))
    }

    /// The ways the JSON text `document` breaks the schema.
    /// - Throws: ``JSONError`` when `document` is not JSON (a byte order mark is allowed).
    public func violations(in document: [UInt8]) throws(JSONError) -> [String] {
        violations(of: try JSONValue(parsing: document, options: JSONReadingOptions(allowsByteOrderMark: true)))
    }

    private func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#/") else { return nil }
        var current = root
        for part in reference.dropFirst(2).split(separator: "/") {
            guard case .object(let members) = current, let next = members.members.first(where: { $0.key == part })?.value else { return nil }
            current = next
        }
        return current
    }

    private func check(_ value: JSONValue, against schema: JSONValue, path: String, problems: inout [String]) {
        guard case .object(let keywords) = schema else { return }
        let at = path.isEmpty ? "the document" : path
        for member in keywords.members {
            let (keyword, argument) = (member.key, member.value)
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
                if case .array(let prefix)? = keywords.members.first(where: { $0.key == "prefixItems" })?.value { prefixCount = prefix.count } else { prefixCount = 0 }
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
                var declared: [JSONObject.Member] = []
                if case .object(let properties)? = keywords.members.first(where: { $0.key == "properties" })?.value { declared = properties.members }
                switch keyword {
                case "properties":
                    for declaration in declared {
                        let (name, schema) = (declaration.key, declaration.value)
                        if let member = members.members.first(where: { $0.key == name }) {
                            check(member.value, against: schema, path: "\(path)/\(name)", problems: &problems)
                        }
                    }
                case "additionalProperties":
                    for member in members.members where !declared.contains(where: { $0.key == member.key }) {
                        if argument == .bool(false) {
                            problems.append("\(at) has a member \"\(member.key)\" the schema does not allow")
                        } else {
                            check(member.value, against: argument, path: "\(path)/\(member.key)", problems: &problems)
                        }
                    }
                case "required":
                    if case .array(let names) = argument {
                        for case .string(let name) in names where members[name] == nil {
                            problems.append("\(at) lacks the required member \"\(name)\"")
                        }
                    }
                default:
                    for member in members.members {
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
        let bytes = value.serialized()
        let text = String(decoding: bytes.prefix(60), as: UTF8.self)
        return bytes.count > 60 ? text + "…" : text
    }

    private static func matches(_ text: String, _ pattern: String) -> Bool {
        guard let regex = try? Regex(pattern) else { return true }
        return text.contains(regex)
    }
}
