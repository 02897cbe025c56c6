import VCardKit

/// A property the edit form offers, and how its value is shown in the form and written back.
struct EditableProperty: Sendable {
    enum Shape: Sendable {
        /// One text field.
        case text
        /// A text area (notes).
        case longText
        /// One field per component (`N`, `ADR`, `ORG`), with these labels.
        case components([String])
        /// One comma-separated field (`CATEGORIES`).
        case list
    }

    var name: String
    /// The label of one value ("Phone") and of the section ("Phones").
    var label: String
    var sectionLabel: String
    var shape: Shape
    /// Whether a card has at most one (`FN`, `N`, `ORG`, …) or any number (`TEL`, `EMAIL`, …).
    var isRepeatable: Bool
    /// Whether the raw value is written as is (URIs, dates) rather than as escaped text.
    var isVerbatim: Bool = false
    /// The `TYPE` choices offered for a new value.
    var typeChoices: [String] = []

    /// The common properties, in the form's order.
    static let all: [EditableProperty] = [
        EditableProperty(name: "FN", label: "Display name", sectionLabel: "Display name", shape: .text, isRepeatable: false),
        EditableProperty(name: "N", label: "Name", sectionLabel: "Name",
                         shape: .components(["Family name", "Given name", "Additional names", "Prefix", "Suffix"]), isRepeatable: false),
        EditableProperty(name: "ORG", label: "Organisation", sectionLabel: "Organisation",
                         shape: .components(["Organisation", "Department"]), isRepeatable: false),
        EditableProperty(name: "TITLE", label: "Title", sectionLabel: "Title", shape: .text, isRepeatable: false),
        EditableProperty(name: "TEL", label: "Phone", sectionLabel: "Phones", shape: .text, isRepeatable: true,
                         typeChoices: ["cell", "home", "work", "voice", "fax"]),
        EditableProperty(name: "EMAIL", label: "Email", sectionLabel: "Emails", shape: .text, isRepeatable: true,
                         typeChoices: ["home", "work"]),
        EditableProperty(name: "ADR", label: "Address", sectionLabel: "Addresses",
                         shape: .components(["PO box", "Extended address", "Street", "City", "Region", "Postal code", "Country"]),
                         isRepeatable: true, typeChoices: ["home", "work"]),
        EditableProperty(name: "URL", label: "Web address", sectionLabel: "Web addresses", shape: .text, isRepeatable: true,
                         isVerbatim: true, typeChoices: ["home", "work"]),
        EditableProperty(name: "BDAY", label: "Birthday", sectionLabel: "Birthday", shape: .text, isRepeatable: false, isVerbatim: true),
        EditableProperty(name: "ANNIVERSARY", label: "Anniversary", sectionLabel: "Anniversary", shape: .text, isRepeatable: false,
                         isVerbatim: true),
        EditableProperty(name: "NOTE", label: "Note", sectionLabel: "Notes", shape: .longText, isRepeatable: true),
        EditableProperty(name: "CATEGORIES", label: "Categories (comma-separated)", sectionLabel: "Categories", shape: .list,
                         isRepeatable: false),
    ]

    static func named(_ name: String) -> EditableProperty? { all.first { $0.name == name } }

    var componentCount: Int {
        if case .components(let labels) = shape { return labels.count }
        return 1
    }

    /// The values the form shows for `property`: one per field.
    func fieldValues(_ property: VCardProperty) -> [String] {
        switch shape {
        case .text, .longText:
            if isVerbatim || (name == "TEL" && property.rawValue.hasPrefix("tel:")) { return [property.rawValue] }
            return [property.textValue]
        case .components(let labels):
            var components = property.components.map { $0.joined(separator: ", ") }
            if components.count > labels.count {
                // Extra components (a second department) stay in the last field.
                let rest = components[(labels.count - 1)...].joined(separator: "; ")
                components = Array(components[..<(labels.count - 1)]) + [rest]
            }
            while components.count < labels.count { components.append("") }
            return components
        case .list:
            return [property.listValues.joined(separator: ", ")]
        }
    }

    /// `property` with the values of `fields` where they differ from what the form showed;
    /// `nil` when none differs (the property stays byte for byte).
    func applying(_ fields: [String], to property: VCardProperty) -> VCardProperty? {
        let shown = fieldValues(property)
        guard fields.count == shown.count, fields != shown else { return nil }
        var edited = property
        switch shape {
        case .text, .longText:
            if isVerbatim || (name == "TEL" && property.rawValue.hasPrefix("tel:")) {
                edited.rawValue = fields[0]
            } else {
                edited.setText(fields[0])
            }
        case .components:
            var components = property.components
            while components.count < fields.count { components.append([""]) }
            for (position, value) in fields.enumerated() where value != shown[position] {
                components[position] = [value]
            }
            edited.rawValue = TextEscaping.joinComponents(components)
        case .list:
            edited.rawValue = Self.listValue(fields[0])
        }
        return edited
    }

    /// A new property from the fields of an empty slot; `nil` when they are all empty.
    func makeProperty(_ fields: [String], type: String?) -> VCardProperty? {
        guard fields.contains(where: { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }) else { return nil }
        let parameters = type.flatMap { typeChoices.contains($0) ? [VCardParameter(name: "TYPE", value: $0)] : nil } ?? []
        switch shape {
        case .text, .longText:
            if isVerbatim { return VCardProperty(name: name, parameters: parameters, rawValue: fields[0]) }
            return VCardProperty(name: name, parameters: parameters, text: fields[0])
        case .components:
            return VCardProperty(name: name, parameters: parameters, rawValue: TextEscaping.joinComponents(fields.map { [$0] }))
        case .list:
            return VCardProperty(name: name, parameters: parameters, rawValue: Self.listValue(fields[0]))
        }
    }

    private static func listValue(_ text: String) -> String {
        text.split(separator: ",").map { TextEscaping.escape($0.trimmingCharacters(in: .whitespaces)) }
            .filter { !$0.isEmpty }.joined(separator: ",")
    }
}
