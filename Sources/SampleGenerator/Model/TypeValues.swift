/// How a property writes a TYPE parameter with several values.
enum TypeSpelling: Sendable, Hashable {
    /// `TYPE=work,voice`
    case list
    /// `TYPE=work;TYPE=voice`
    case repeated
    /// `TYPE="work,voice"` (vCard 4.0 style; vCard 3.0 writes a plain list)
    case quotedList
}

/// A TYPE value of a TEL property.
enum TelephoneType: Sendable, Hashable {
    case work, home, cell, voice, fax, pager, video
    /// vCard 4.0 only.
    case text, textphone
    /// vCard 3.0 only.
    case message, car, isdn
    /// Not registered in either RFC; written by phones and address books.
    case iPhone, main

    /// The lower-case token.
    var token: String {
        switch self {
        case .work: "work"
        case .home: "home"
        case .cell: "cell"
        case .voice: "voice"
        case .fax: "fax"
        case .pager: "pager"
        case .video: "video"
        case .text: "text"
        case .textphone: "textphone"
        case .message: "msg"
        case .car: "car"
        case .isdn: "isdn"
        case .iPhone: "iphone"
        case .main: "main"
        }
    }

    /// Whether the value can be written in `version` with the same meaning.
    func exists(in version: CardVersion) -> Bool {
        switch self {
        case .text, .textphone: version == .v4
        case .message, .car, .isdn: version == .v3
        default: true
        }
    }
}

/// A TYPE value of an EMAIL property (vCard 3.0's "internet" is a separate flag: it is the default).
enum EmailType: Sendable, Hashable {
    case work, home

    var token: String {
        switch self {
        case .work: "work"
        case .home: "home"
        }
    }
}

/// A TYPE value of an ADR property.
enum AddressType: Sendable, Hashable {
    case home, work
    /// vCard 3.0 only.
    case domestic, international, postal, parcel

    var token: String {
        switch self {
        case .home: "home"
        case .work: "work"
        case .domestic: "dom"
        case .international: "intl"
        case .postal: "postal"
        case .parcel: "parcel"
        }
    }

    /// Whether the value can be written in `version` with the same meaning.
    func exists(in version: CardVersion) -> Bool {
        switch self {
        case .home, .work: true
        default: version == .v3
        }
    }
}
