public import JSONText

/// The server's welcome object (`GET /`).
public struct ServerInfo: Sendable, Hashable {
    /// The software version, like `3.5.0`.
    public var version: String?
    /// The server's UUID, stable across restarts (used in replication ids).
    public var uuid: String?
    /// The vendor's name, when given.
    public var vendor: String?
    /// The whole object.
    public var json: JSONValue

    /// Reads the fields of `json`.
    public init(json: JSONValue) {
        self.json = json
        self.version = json["version"]?.stringValue
        self.uuid = json["uuid"]?.stringValue
        self.vendor = json["vendor"]?["name"]?.stringValue
    }
}
