/// A JSON object: members in the order they were written.
///
/// Looking a member up walks the members (objects here are documents and rows of a few dozen
/// members); the last of several members of one name is the one found, as CouchDB reads them.
///
/// ```swift
/// var document: JSONObject = ["_id": "contact:ada", "fn": "Ada Lovelace"]
/// document["_rev"] = "1-abc"
/// document.members.map(\.key)   // ["_id", "fn", "_rev"]
/// ```
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

    /// The number of members.
    public var count: Int { members.count }

    /// The member names, in order.
    public var keys: [String] { members.map(\.key) }

    /// The value of the last member named `key`; setting replaces it in place or appends a new
    /// member, and `nil` removes every member of that name.
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

    /// The object as compact JSON text, members in order.
    public func serialized() -> [UInt8] {
        JSONWriter().bytes(for: .object(self))
    }

    /// Appends the object as compact JSON text, members in order, to `output`.
    public func write(to output: inout [UInt8]) {
        JSONWriter().write(self, to: &output)
    }
}
