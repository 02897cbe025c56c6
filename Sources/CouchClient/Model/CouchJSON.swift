public import Foundation

/// A JSON value as CouchDB sends and receives it: documents, query results, sequence tokens.
///
/// Integers are kept apart from other numbers so that counts and numeric sequence tokens
/// survive a round trip unchanged.
///
/// ```swift
/// let document: [String: CouchJSON] = ["_id": "alice", "name": "Alice", "age": 42]
/// ```
public enum CouchJSON: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number without fraction or exponent that fits in `Int`.
    case integer(Int)
    /// Any other number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([CouchJSON])
    /// An object.
    case object([String: CouchJSON])

    /// The string, when this is a string.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The integer, when this is an integer.
    public var integerValue: Int? { if case .integer(let value) = self { value } else { nil } }
    /// The Boolean, when this is `true` or `false`.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The elements, when this is an array.
    public var arrayValue: [CouchJSON]? { if case .array(let value) = self { value } else { nil } }
    /// The members, when this is an object.
    public var objectValue: [String: CouchJSON]? { if case .object(let value) = self { value } else { nil } }

    /// The member named `key`, when this is an object that has it.
    public subscript(key: String) -> CouchJSON? { objectValue?[key] }

    /// Parses JSON text.
    ///
    /// - Throws: the decoder's error when `data` is not JSON.
    public init(parsing data: Data) throws {
        self = try data.withUnsafeBytes { raw in try CouchJSONText.parse(raw) }
    }

    /// Parses JSON text held in bytes.
    ///
    /// - Throws: where and why the text is not JSON.
    public init(parsing bytes: [UInt8]) throws {
        self = try bytes.withUnsafeBytes { raw in try CouchJSONText.parse(raw) }
    }

    /// The JSON text, compact, with sorted keys.
    public func serialized() throws -> Data {
        Data(CouchJSONText.bytes(self))
    }

    /// The JSON text as bytes, compact, with sorted keys.
    public var jsonBytes: [UInt8] { CouchJSONText.bytes(self) }

    /// Converts any `Encodable` value (a document type of the caller's) to JSON.
    ///
    /// - Throws: the encoder's error.
    public init(encoding value: some Encodable) throws {
        self = try CouchJSON(parsing: JSONEncoder().encode(value))
    }

    /// Decodes this JSON as a `Decodable` type of the caller's.
    ///
    /// - Throws: the decoder's error when the shapes do not match.
    public func decode<Value: Decodable>(as type: Value.Type = Value.self) throws -> Value {
        try JSONDecoder().decode(type, from: serialized())
    }
}

extension CouchJSON: Codable {
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
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([CouchJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: CouchJSON].self))
        }
    }

    /// Encodes the value as it is.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension CouchJSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral {
    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer.
    public init(integerLiteral value: Int) { self = .integer(value) }
    /// A number.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// A Boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array.
    public init(arrayLiteral elements: CouchJSON...) { self = .array(elements) }
    /// An object; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, CouchJSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { $1 }))
    }
    /// `null`.
    public init(nilLiteral: ()) { self = .null }
}
