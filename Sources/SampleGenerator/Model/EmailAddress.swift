/// One e-mail address with its EMAIL parameters.
struct EmailAddress: Sendable, Hashable {
    var address: String
    var types: [EmailType]
    var isPreferred: Bool
    /// vCard 3.0 writes the default type INTERNET explicitly (it is dropped in 4.0, where it does not exist).
    var spellsInternet: Bool
    /// The PID parameter value when the card has a CLIENTPIDMAP.
    var pid: String?
    var typeSpelling: TypeSpelling
}
