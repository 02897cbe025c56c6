/// Any JSON value through `Codable`, for values stored inside a caller's `Codable` types (a
/// replication checkpoint in a settings file). Decoders do not hand over number text: numbers
/// come back as the decoder read them (an integer if one fits, else a `Double`), and objects with
/// their members sorted by name, since a keyed container has no order.
extension JSONValue: Codable {
    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(String(value))
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            let members = try container.decode([String: JSONValue].self)
            self = .object(JSONObject(members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
                .map { JSONObject.Member(key: $0.key, value: $0.value) }))
        }
    }

    /// Encodes the value as it is (a number as an integer when its text is one).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let text):
            if let integer = Int(text) { try container.encode(integer) } else { try container.encode(Double(text) ?? 0) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let object):
            try container.encode(Dictionary(object.members.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 }))
        }
    }
}
