import HTTPServerSupport

/// The fields of an `application/x-www-form-urlencoded` body or a query string, in order, with
/// repeated names kept (a form may send several values under one name).
struct FormFields: Sendable {
    private(set) var pairs: [(name: String, value: String)] = []

    init() {}

    /// Parses `a=1&b=x+y&c=%C3%A9`. A pair whose percent-encoding is broken is left out.
    init(urlEncoded text: some StringProtocol) {
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]) else { continue }
            let value = parts.count > 1 ? Self.decode(parts[1]) : ""
            guard let value else { continue }
            pairs.append((name, value))
        }
    }

    /// The first value named `name`.
    subscript(_ name: String) -> String? { pairs.first { $0.name == name }?.value }

    /// Every value named `name`, in order.
    func all(_ name: String) -> [String] { pairs.filter { $0.name == name }.map(\.value) }

    /// Whether a field named `name` was sent.
    func contains(_ name: String) -> Bool { pairs.contains { $0.name == name } }

    mutating func append(_ name: String, _ value: String) { pairs.append((name, value)) }

    /// Decodes percent-escapes and `+` (a space); `nil` for a broken escape or invalid UTF-8.
    static func decode(_ text: some StringProtocol) -> String? {
        PercentEncoding.decode(text, plusIsSpace: true)
    }

    /// Percent-encodes everything but unreserved characters, for building query strings.
    static func encode(_ text: String) -> String {
        PercentEncoding.encode(text, keeping: PercentEncoding.unreserved)
    }
}
