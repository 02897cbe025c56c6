/// One difference between two versions of a contact, at the level of one property.
///
/// ```text
/// + EMAIL;TYPE=work: ada@example.org
/// - TEL: +44 20 7946 0018
/// ~ TITLE: Analyst → Countess
/// ~ EMAIL: ada@example.com  TYPE=home → TYPE=work
/// ```
public struct PropertyChange: Sendable, Hashable, Codable {
    /// What kind of difference.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// A value only the new version has.
        case added
        /// A value only the old version has.
        case removed
        /// A value replaced by another (with the same property name).
        case changed
        /// The same value with other parameters.
        case parameters
        /// The same properties written differently (only reported with exact comparison).
        case form
    }

    /// What kind of difference.
    public var kind: Kind
    /// The property name, upper-cased (with its group label, in exact comparison).
    public var property: String
    /// The old value, for removed, changed and parameter changes.
    public var oldValue: String?
    /// The new value, for added, changed and parameter changes.
    public var newValue: String?
    /// The old parameters (`NAME=value`), when the kind is `changed` or `parameters`.
    public var oldParameters: [String]
    /// The new parameters.
    public var newParameters: [String]

    /// Creates a change.
    public init(kind: Kind, property: String, oldValue: String? = nil, newValue: String? = nil,
                oldParameters: [String] = [], newParameters: [String] = []) {
        self.kind = kind
        self.property = property
        self.oldValue = oldValue
        self.newValue = newValue
        self.oldParameters = oldParameters
        self.newParameters = newParameters
    }
}
