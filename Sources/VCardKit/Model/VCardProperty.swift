/// One property of a card: `[group.]NAME;param=value:value`.
///
/// The value is kept as text in the escaping of vCard 3.0 and 4.0 (`\,` `\;` `\\` `\n`), already
/// unfolded and decoded from quoted-printable and any `CHARSET`. Typed views such as
/// ``textValue``, ``components`` and ``listValues`` decode it.
///
/// A property read from input remembers its original bytes. As long as none of its fields is
/// changed, ``VCardWriter`` writes those bytes back unchanged in the card's own version; setting
/// any field forgets them, and the property is then written in canonical form.
public struct VCardProperty: Sendable {
    /// The group label (`item1` in `item1.EMAIL`), or `nil`.
    public var group: String? { didSet { original = nil } }
    /// The property name with its case as written; compare with ``hasName(_:)``.
    public var name: String {
        didSet {
            original = nil
            traits = PropertyTraits.of(name)
        }
    }
    /// The parameters, in order.
    public var parameters: [VCardParameter] { didSet { original = nil } }
    /// The value in vCard 3.0/4.0 escaping, unfolded and decoded to Unicode.
    public var rawValue: String { didSet { original = nil } }

    /// The bytes the property was read from (its physical lines with their line ends, and any
    /// blank or unreadable lines that followed it), kept for byte-exact write-back.
    public internal(set) var original: ArraySlice<UInt8>?
    /// The 1-based line where the property starts in its input, when it was read from one.
    public internal(set) var line: Int?
    /// What cardsync knows about the name, computed when the name is set.
    internal private(set) var traits: PropertyTraits

    /// Creates a property.
    ///
    /// ```swift
    /// let email = VCardProperty(name: "EMAIL", parameters: [.init(name: "TYPE", value: "work")],
    ///                           rawValue: "ada@example.com")
    /// ```
    public init(group: String? = nil, name: String, parameters: [VCardParameter] = [], rawValue: String) {
        self.group = group
        self.name = name
        self.parameters = parameters
        self.rawValue = rawValue
        self.original = nil
        self.line = nil
        self.traits = PropertyTraits.of(name)
    }

    /// Creates a text property from an unescaped value: `VCardProperty(name: "NOTE", text: "a, b")`.
    public init(group: String? = nil, name: String, parameters: [VCardParameter] = [], text: String) {
        self.init(group: group, name: name, parameters: parameters, rawValue: TextEscaping.escape(text))
    }

    init(group: String?, name: String, traits: PropertyTraits, parameters: [VCardParameter], rawValue: String,
         original: ArraySlice<UInt8>?, line: Int?) {
        self.group = group
        self.name = name
        self.parameters = parameters
        self.rawValue = rawValue
        self.original = original
        self.line = line
        self.traits = traits
    }

    /// The value kind of this property.
    public var valueKind: PropertyValueKind { traits.kind }

    /// Whether the property's name equals `other`, ignoring ASCII case.
    public func hasName(_ other: String) -> Bool {
        name.equalsIgnoringASCIICase(other)
    }

    /// Whether the property still holds exactly what was read (and will be written back byte for byte).
    public var isUnedited: Bool { original != nil }

    /// The first parameter with the given name (case-insensitive).
    public func parameter(_ name: String) -> VCardParameter? {
        parameters.first { $0.hasName(name) }
    }

    /// All values of all parameters with the given name (case-insensitive), in order.
    public func parameterValues(_ name: String) -> [String] {
        parameters.filter { $0.hasName(name) }.flatMap(\.values)
    }

    /// The `TYPE` values, lower-cased (`["work", "voice"]`), including vCard 2.1 bare types.
    public var types: [String] {
        parameterValues("TYPE").map(\.asciiLowercased)
    }

    /// The preference, 1 (most preferred) to 100: from `PREF=n`, or 1 for `TYPE=pref`.
    public var preference: Int? {
        if let pref = parameter("PREF")?.values.first, let n = Int(pref) { return n }
        return types.contains("pref") ? 1 : nil
    }

    /// Sets the parameter `name` to `values`, replacing an existing parameter of that name in place
    /// or appending a new one.
    public mutating func setParameter(_ name: String, values: [String]) {
        if let index = parameters.firstIndex(where: { $0.hasName(name) }) {
            var updated = parameters
            updated[index].values = values
            updated = updated.enumerated().filter { $0.offset == index || !$0.element.hasName(name) }.map(\.element)
            parameters = updated
        } else {
            parameters.append(VCardParameter(name: name, values: values))
        }
    }

    /// Removes every parameter with the given name.
    public mutating func removeParameter(_ name: String) {
        if parameters.contains(where: { $0.hasName(name) }) {
            parameters.removeAll { $0.hasName(name) }
        }
    }
}

extension VCardProperty: Hashable {
    /// Two properties are equal when group, name, parameters and value are equal; where they were
    /// read from does not matter.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.group == rhs.group && lhs.name == rhs.name && lhs.parameters == rhs.parameters
            && lhs.rawValue == rhs.rawValue
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(group)
        hasher.combine(name)
        hasher.combine(parameters)
        hasher.combine(rawValue)
    }
}

extension VCardProperty: HasPropertyTraits {
    /// The name with its ASCII letters upper-cased.
    var upperName: String { traits.registeredName ?? PropertyTraits.upperName(of: name) }
}
