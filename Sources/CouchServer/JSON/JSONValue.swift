/// A JSON value that keeps object members in the order they were written.
///
/// CouchDB hands documents back with their fields in the order the client wrote them, and
/// revision ids are computed over the bytes of a document, so the order must survive a round
/// trip. Numbers keep their written form for the same reason.
///
/// ```swift
/// let value = try JSONValue(parsing: Array(#"{"b":1,"a":[true,null]}"#.utf8))
/// value["b"]?.intValue   // 1
/// String(decoding: value.serialized(), as: UTF8.self)   // {"b":1,"a":[true,null]}
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
}

/// A JSON object: members in the order they were written.
public struct JSONObject: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// One `"key": value` member.
    public struct Member: Sendable, Hashable {
        /// The member name.
        public var key: String
        /// The member value.
        public var value: JSONValue

        /// A member.
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The members, in order.
    public var members: [Member]

    /// An object with `members`.
    public init(_ members: [Member] = []) {
        self.members = members
    }

    /// An object from a literal, in the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.members = elements.map { Member(key: $0.0, value: $0.1) }
    }

    /// Whether the object has no members.
    public var isEmpty: Bool { members.isEmpty }

    /// The value of the last member named `key` (as CouchDB reads duplicate keys); setting
    /// replaces it in place or appends a new member, and `nil` removes every member of that name.
    public subscript(key: String) -> JSONValue? {
        get { members.last(where: { $0.key == key })?.value }
        set {
            guard let newValue else {
                members.removeAll { $0.key == key }
                return
            }
            if let index = members.lastIndex(where: { $0.key == key }) {
                members[index].value = newValue
            } else {
                members.append(Member(key: key, value: newValue))
            }
        }
    }

    /// Appends a member without looking for an existing one of that name.
    public mutating func append(_ key: String, _ value: JSONValue) {
        members.append(Member(key: key, value: value))
    }
}
