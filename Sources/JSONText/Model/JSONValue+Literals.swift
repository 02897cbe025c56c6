extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral {
    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A number from an integer.
    public init(integerLiteral value: Int) { self = .number(String(value)) }
    /// A number, spelled as Swift prints the `Double` (`2.5`, `1e-07`).
    public init(floatLiteral value: Double) { self = .number(String(value)) }
    /// A Boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An object, members in the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { JSONObject.Member(key: $0.0, value: $0.1) }))
    }
    /// `null`.
    public init(nilLiteral: ()) { self = .null }
}
