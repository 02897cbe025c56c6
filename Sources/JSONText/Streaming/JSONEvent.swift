/// One step through a JSON document, as ``JSONStreamReader`` returns it.
///
/// The document `{"a":[1,{}]}` reads as `startObject`, `key("a")`, `startArray`, `value(1)`,
/// `startObject`, `endObject`, `endArray`, `endObject`, `endOfDocument` with
/// ``JSONStreamReader/next()``; with ``JSONStreamReader/nextValue()`` in place of the third call,
/// as `startObject`, `key("a")`, `value([1,{}])`, `endObject`, `endOfDocument`.
public enum JSONEvent: Sendable, Hashable {
    /// `{`: an object opens; its members follow as a `key` and its value, then `endObject`.
    case startObject
    /// `}`.
    case endObject
    /// `[`: an array opens; its elements follow, then `endArray`.
    case startArray
    /// `]`.
    case endArray
    /// A member name; its value comes next.
    case key(String)
    /// A whole value: a string, number, `true`, `false` or `null` from ``JSONStreamReader/next()``,
    /// or any value (arrays and objects built whole) from ``JSONStreamReader/nextValue()``.
    case value(JSONValue)
    /// The document is complete and nothing but white space followed it.
    case endOfDocument
}
