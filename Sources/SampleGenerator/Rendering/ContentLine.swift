/// One unfolded content line: `group.NAME;PARAM=value:value`.
///
/// Values are stored already encoded (text escaping, RFC 6868 caret encoding), so serialising a
/// line only concatenates, cases names and folds.
struct ContentLine: Sendable, Hashable {
    var group: String?
    var name: String
    var parameters: [Parameter]
    var value: String

    init(group: String? = nil, _ name: String, _ parameters: [Parameter], _ value: String) {
        self.group = group
        self.name = name
        self.parameters = parameters
        self.value = value
    }

    init(group: String? = nil, _ name: String, _ value: String) {
        self.init(group: group, name, [], value)
    }
}

/// One parameter of a content line.
struct Parameter: Sendable, Hashable {
    var name: String
    /// Encoded values; several values are written separated by commas.
    var values: [String]
    /// Writes the whole comma-separated list in one pair of double quotes (`TYPE="work,voice"`).
    var isQuotedList: Bool

    init(_ name: String, _ values: [String], quotedList: Bool = false) {
        self.name = name
        self.values = values
        self.isQuotedList = quotedList
    }

    init(_ name: String, _ value: String) {
        self.init(name, [value])
    }
}
