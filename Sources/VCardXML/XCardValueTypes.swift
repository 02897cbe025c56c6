import VCardKit

/// Value types of xCard: the default type of each property (RFC 6350) and date forms.
enum XCardValueTypes {
    /// The type a property has when it carries no `VALUE` parameter.
    static func defaultType(of name: String) -> String { VCardValueType.defaultType(of: name) }

    /// A date or time in vCard 4.0's basic form: `1985-04-12` → `19850412`, `10:22:00` → `102200`.
    static func basicDate(_ value: String) -> String { VCardValueType.basicForm(value) }
}
