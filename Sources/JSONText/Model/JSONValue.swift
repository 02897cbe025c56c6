/// A JSON value that keeps what its text said: numbers as written (`1` and `1.0` stay apart,
/// `9007199254740993` loses no digit), and object members in their order.
///
/// CouchDB hands documents back with their fields in the order the client wrote them, and
/// revision ids are computed over the bytes of a document, so the order must survive a round
/// trip; jCard tells an integer from a float by its spelling.
///
/// ```swift
/// let value = try JSONValue(parsing: Array(#"{"b":1,"a":[true,null]}"#.utf8))
/// value["b"]?.intValue                                   // 1
/// String(decoding: value.serialized(), as: UTF8.self)    // {"b":1,"a":[true,null]}
/// ```
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, kept as written (`1`, `-2.5e3`).
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, its members in order.
    case object(JSONObject)

    /// A number from an integer.
    public static func integer(_ value: Int) -> JSONValue { .number(String(value)) }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, when this is a number without fraction or exponent that fits an `Int`.
    public var intValue: Int? {
        if case .number(let text) = self { return Int(text) }
        return nil
    }

    /// The number as a `Double` (the nearest one), when this is a number.
    public var doubleValue: Double? {
        if case .number(let text) = self { return Double(text) }
        return nil
    }

    /// The Boolean, when this is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The object, when this is an object.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The member named `key`, when this is an object that has it.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// Parses JSON text holding exactly one value (white space around it allowed).
    ///
    /// - Parameters:
    ///   - bytes: UTF-8 JSON text.
    ///   - options: limits, and whether a byte order mark is allowed.
    /// - Throws: ``JSONError`` naming the line and column where the text stops being JSON.
    public init(parsing bytes: some Collection<UInt8>, options: JSONReadingOptions = JSONReadingOptions()) throws(JSONError) {
        self = try JSONParser.parse(bytes, options: options)
    }

    /// The value as compact JSON text (no white space), members in order.
    public func serialized() -> [UInt8] {
        JSONWriter().bytes(for: self)
    }

    /// Appends the value as compact JSON text, members in order, to `output`.
    public func write(to output: inout [UInt8]) {
        JSONWriter().write(self, to: &output)
    }
}
