/// Writes one JSON object member by member, straight into its text: the bytes
/// ``JSONWriter`` writes for a ``JSONObject`` with the same members in the same order, without
/// building the object (its member list, its strings and arrays) first.
///
/// For documents made in bulk, such as the contact documents a sync sends by the thousand:
///
/// ```swift
/// var writer = JSONObjectWriter()
/// writer.append("_id", string: "contact:ada")
/// writer.append("emails", strings: ["ada@example.org"])
/// writer.append("schemaVersion", 1)
/// let text = writer.finished()   // {"_id":"contact:ada","emails":["ada@example.org"],"schemaVersion":1}
/// ```
public struct JSONObjectWriter: Sendable {
    private var text: [UInt8]
    private var hasMembers = false

    /// A writer for an object whose text is expected to take about `capacity` bytes.
    public init(reservingCapacity capacity: Int = 256) {
        text = []
        text.reserveCapacity(capacity + 1)
        text.append(UInt8(ascii: "{"))
    }

    /// Appends a member with a string value.
    public mutating func append(_ key: String, string value: some StringProtocol) {
        writeKey(key)
        JSONWriter.writeString(value, to: &text)
    }

    /// Appends a member with a string value given as UTF-8 bytes that the caller has found
    /// well-formed (JSON text is UTF-8: ill-formed bytes would make the whole text invalid),
    /// without making a `String` of them first.
    public mutating func append(_ key: String, validUTF8 value: UnsafeBufferPointer<UInt8>) {
        writeKey(key)
        text.append(UInt8(ascii: "\""))
        JSONWriter.writeEscaped(value, to: &text)
        text.append(UInt8(ascii: "\""))
    }

    /// Appends a member whose value is an array of strings.
    public mutating func append(_ key: String, strings values: [String]) {
        writeKey(key)
        text.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { text.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(value, to: &text)
        }
        text.append(UInt8(ascii: "]"))
    }

    /// Appends a member with an integer value.
    public mutating func append(_ key: String, _ value: Int) {
        writeKey(key)
        text.append(contentsOf: String(value).utf8)
    }

    /// Appends a member with any value.
    public mutating func append(_ key: String, _ value: JSONValue) {
        writeKey(key)
        JSONWriter().write(value, to: &text)
    }

    /// The object's text, closed.
    public consuming func finished() -> [UInt8] {
        text.append(UInt8(ascii: "}"))
        return text
    }

    private mutating func writeKey(_ key: String) {
        if hasMembers { text.append(UInt8(ascii: ",")) }
        hasMembers = true
        JSONWriter.writeString(key, to: &text)
        text.append(UInt8(ascii: ":"))
    }
}
