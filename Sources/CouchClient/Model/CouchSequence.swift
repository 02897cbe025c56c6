public import JSONText

/// A position in a database's changes feed, as the server gave it.
///
/// CouchDB 1.x uses integers, CouchDB 2+ opaque strings; the token is kept exactly as received and
/// sent back unchanged. Store it (it is `Codable`) as a replication checkpoint.
public struct CouchSequence: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The token as JSON.
    public var value: JSONValue

    /// A token as received.
    public init(_ value: JSONValue) { self.value = value }

    /// The start of the feed.
    public static let zero = CouchSequence(.integer(0))
    /// The current end of the feed (`since=now`).
    public static let now = CouchSequence(.string("now"))

    /// The token as a query parameter value.
    public var description: String {
        switch value {
        case .string(let text), .number(let text): text
        default: String(decoding: value.serialized(), as: UTF8.self)
        }
    }

    /// Decodes the bare JSON token.
    public init(from decoder: any Decoder) throws { value = try JSONValue(from: decoder) }
    /// Encodes the bare JSON token.
    public func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}
