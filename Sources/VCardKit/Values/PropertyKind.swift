/// What kind of value a property holds, which decides how its value is escaped, compared and
/// converted between versions.
public enum PropertyValueKind: Sendable, Hashable {
    /// A single text value (FN, NOTE, TITLE, …).
    case text
    /// A comma-separated list of text values (CATEGORIES, NICKNAME).
    case textList
    /// Semicolon-separated components, each possibly a comma list (N, ADR, GENDER, CLIENTPIDMAP).
    case structured
    /// Semicolon-separated components that are plain text (ORG: commas are literal in units).
    case structuredText
    /// A URI, or text that is not escaped (URL, UID, EMAIL, TEL, IMPP, …).
    case uri
    /// Inline binary or a URI (PHOTO, LOGO, SOUND, KEY).
    case binary
    /// A date, time, date-time or timestamp (BDAY, ANNIVERSARY, REV).
    case dateTime
    /// An embedded vCard (AGENT in 2.1 and 3.0).
    case embeddedCard
    /// A value cardsync does not interpret: unknown and `X-` properties.
    case unknown

    /// The value kind of a property name (case-insensitive).
    public static func of(_ name: String) -> PropertyValueKind {
        PropertyTraits.of(name).kind
    }
}

/// Anything that carries a property name's traits: a property, or a line that will be one.
protocol HasPropertyTraits {
    var traits: PropertyTraits { get }
}

/// What cardsync knows about a property name, looked up once per property.
///
/// Traits are plain values: a registered name is known by its index, and a name that is not
/// registered is known by its flags alone (the traits of `X-A` and `X-B` are equal). Whoever
/// needs such a name's text reads it from the property or the line (``upperName(of:)``).
struct PropertyTraits: Sendable, Hashable {
    var kind: PropertyValueKind
    /// Defined by RFC 2426, RFC 6350 or a registered extension.
    var isKnown: Bool
    var isOnlyIn3: Bool
    var isOnlyIn4: Bool
    /// Appears at most once in a card.
    var isSingular: Bool
    var isExtension: Bool
    /// Where the name is among ``registeredNames`` (upper-cased), or ``unregisteredIndex`` for
    /// any other name. An index rather than the name's `String`, so that traits are plain bytes:
    /// copying them (with every line that holds them) retains nothing.
    var nameIndex: UInt8 = PropertyTraits.unregisteredIndex
    /// The names the card checks single out, so that they compare one byte instead of a string.
    var role: Role = .other
    /// One bit per property that appears at most once (zero for the others), so that a card's
    /// repeats are found with a bit mask.
    var singularBit: UInt16 = 0

    /// A name the card checks or the version conversion treat specially.
    enum Role: UInt8, Sendable, Hashable {
        case other, version, uid, formattedName, name, address, telephone, email, label, geo, sortString

        init(upperName: String) {
            switch upperName {
            case "VERSION": self = .version
            case "UID": self = .uid
            case "FN": self = .formattedName
            case "N": self = .name
            case "ADR": self = .address
            case "TEL": self = .telephone
            case "EMAIL": self = .email
            case "LABEL": self = .label
            case "GEO": self = .geo
            case "SORT-STRING": self = .sortString
            default: self = .other
            }
        }
    }

    /// The index of a name that is not registered.
    static let unregisteredIndex = UInt8.max

    /// The registered name (upper-cased) these traits are of; `nil` for any other name.
    var registeredName: String? {
        nameIndex == Self.unregisteredIndex ? nil : Self.registeredNames[Int(nameIndex)]
    }

    static func of(_ name: String) -> PropertyTraits {
        var name = name
        return name.withUTF8 { traits(of: $0) }
    }

    /// The traits of the name in `bytes` (as ``named(_:)`` finds them, without the name itself).
    /// Every registered name is ASCII and at most 24 bytes long, and all of them are packed
    /// (``registeredKeys``): a name not found there is not registered, and needs no `String`.
    static func traits(of bytes: UnsafeBufferPointer<UInt8>) -> PropertyTraits {
        if let (known, _) = registered(bytes) { return known }
        let isExtension = bytes.count > 2 && bytes[0] | 0x20 == 0x78 && bytes[1] == 0x2D
        return PropertyTraits(kind: .unknown, isKnown: false, isOnlyIn3: false, isOnlyIn4: false, isSingular: false,
                              isExtension: isExtension)
    }

    /// The name written in `bytes` as a `String`, and its traits. A registered name written in
    /// upper case (nearly all of them) shares the table's string instead of making one.
    static func named(_ bytes: UnsafeBufferPointer<UInt8>) -> (name: String, traits: PropertyTraits) {
        if let (known, exact) = registered(bytes) {
            return (exact ? registeredNames[Int(known.nameIndex)] : String(decoding: bytes, as: UTF8.self), known)
        }
        return (String(decoding: bytes, as: UTF8.self), traits(of: bytes))
    }

    /// The name written in `bytes` with its ASCII letters upper-cased: the registered name's
    /// string when it is one, a new `String` otherwise.
    static func upperName(of bytes: UnsafeBufferPointer<UInt8>) -> String {
        if let (known, _) = registered(bytes) { return registeredNames[Int(known.nameIndex)] }
        return String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for (offset, byte) in bytes.enumerated() { buffer[offset] = byte >= 0x61 && byte <= 0x7A ? byte - 0x20 : byte }
            return bytes.count
        }
    }

    /// `name` with its ASCII letters upper-cased (``upperName(of:)`` of its bytes).
    static func upperName(of name: String) -> String {
        var name = name
        return name.withUTF8 { upperName(of: $0) }
    }

    /// The traits of a registered name, compared ignoring ASCII case, and whether `bytes` spell
    /// it in upper case exactly; `nil` for any other name. No `String`: the name is packed into
    /// three words, which pick a slot of ``registeredSlots`` and are compared with the packed
    /// registered names found from there.
    @inline(__always)
    private static func registered(_ bytes: UnsafeBufferPointer<UInt8>) -> (PropertyTraits, exact: Bool)? {
        guard let packed = PackedName(bytes) else { return nil }
        let keys = registeredKeys, slots = registeredSlots
        var slot = packed.upper.slot
        while true {
            let index = Int(slots[slot])
            if index < 0 { return nil }
            if keys[index] == packed.upper { return (registeredTraits[index], packed.upper == packed.asWritten) }
            slot = (slot + 1) & (slots.count - 1)
        }
    }

    /// The traits of `bytes` when they name a registered property (ignoring ASCII case), found
    /// among the packed registered names alone; `nil` otherwise. For tests of that search.
    static func registeredTraits(of bytes: UnsafeBufferPointer<UInt8>) -> PropertyTraits? {
        registered(bytes)?.0
    }

    /// A name of at most 24 ASCII bytes packed into three words (and its length), as written and
    /// with ASCII letters upper-cased.
    private struct PackedName {
        struct Words: Equatable {
            var a: UInt64 = 0, b: UInt64 = 0, c: UInt64 = 0, count = 0

            /// Where the name starts its search in ``registeredSlots``: the top bits of a
            /// multiplicative hash of the words.
            @inline(__always)
            var slot: Int {
                let mixed = (a ^ (b &* 0x9E37_79B9_7F4A_7C15) ^ (c &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(count)) &* 0x94D0_49BB_1331_11EB
                return Int(truncatingIfNeeded: mixed >> 56)
            }
        }
        var upper = Words()
        var asWritten = Words()

        @inline(__always)
        init?(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let base = bytes.baseAddress, !bytes.isEmpty, bytes.count <= 24 else { return nil }
            // Copied into three zeroed words, then upper-cased eight bytes at a time: for ASCII
            // bytes, adding 0x1F sets the high bit from 'a' on, adding 0x05 from after 'z' on.
            var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
            withUnsafeMutableBytes(of: &words) { $0.baseAddress!.copyMemory(from: base, byteCount: bytes.count) }
            let a = UInt64(littleEndian: words.0), b = UInt64(littleEndian: words.1), c = UInt64(littleEndian: words.2)
            guard (a | b | c) & 0x8080_8080_8080_8080 == 0 else { return nil }
            @inline(__always) func upperCased(_ word: UInt64) -> UInt64 {
                let lower = (word &+ 0x1F1F_1F1F_1F1F_1F1F) & ~(word &+ 0x0505_0505_0505_0505) & 0x8080_8080_8080_8080
                return word &- (lower >> 2)
            }
            asWritten = Words(a: a, b: b, c: c, count: bytes.count)
            upper = Words(a: upperCased(a), b: upperCased(b), c: upperCased(c), count: bytes.count)
        }
    }

    /// The registered names, packed, and their traits at the same index. Every registered name
    /// packs (ASCII, at most 24 bytes): ``traits(of:)`` relies on it.
    private static let registeredKeys: ContiguousArray<PackedName.Words> = ContiguousArray(registeredNames.map { name in
        guard let packed = Array(name.utf8).withUnsafeBufferPointer({ PackedName($0) }) else {
            preconditionFailure("the registered name \(name) is not ASCII of at most 24 bytes")
        }
        return packed.upper
    })
    private static let registeredTraits: ContiguousArray<PropertyTraits> = ContiguousArray(registeredNames.indices.map { index in
        var traits = table[registeredNames[index]]!
        traits.nameIndex = UInt8(index)
        return traits
    })
    /// An open-addressing table of 256 slots over ``registeredKeys``: each slot holds the index of
    /// a key, or -1; a name is looked for from its ``PackedName/Words/slot`` onwards, to the first
    /// empty slot (a quarter of the slots are used, so that is one or two comparisons).
    private static let registeredSlots: ContiguousArray<Int8> = {
        var slots = ContiguousArray<Int8>(repeating: -1, count: 256)
        precondition(registeredKeys.count < 128)
        for (index, key) in registeredKeys.enumerated() {
            var slot = key.slot
            while slots[slot] >= 0 { slot = (slot + 1) & 255 }
            slots[slot] = Int8(index)
        }
        return slots
    }()
    /// The most common names first: they take their home slots first, where a search finds them at once.
    private static let registeredNames: [String] = {
        let common = ["VERSION", "FN", "N", "TEL", "EMAIL", "ADR", "ORG", "TITLE", "UID", "REV", "NOTE", "URL", "BDAY", "PHOTO", "LABEL"]
        let names = common + table.keys.filter { !common.contains($0) }.sorted()
        precondition(names.count < Int(unregisteredIndex))
        return names
    }()

    private static let table: [String: PropertyTraits] = {
        var table: [String: PropertyTraits] = [:]
        func kind(_ name: String) -> PropertyValueKind {
            switch name {
            case "FN", "NOTE", "TITLE", "ROLE", "LABEL", "MAILER", "SORT-STRING", "CLASS", "NAME", "PRODID",
                 "X-EVOLUTION-FILE-AS", "X-PHONETIC-FIRST-NAME", "X-PHONETIC-LAST-NAME", "X-ABLABEL":
                .text
            case "NICKNAME", "CATEGORIES": .textList
            case "N", "ADR", "GENDER", "CLIENTPIDMAP": .structured
            case "ORG": .structuredText
            case "PHOTO", "LOGO", "SOUND", "KEY": .binary
            case "BDAY", "ANNIVERSARY", "REV", "DEATHDATE": .dateTime
            case "AGENT": .embeddedCard
            case "URL", "UID", "EMAIL", "TEL", "IMPP", "GEO", "TZ", "SOURCE", "MEMBER", "RELATED", "FBURL",
                 "CALURI", "CALADRURI", "KIND", "LANG", "XML", "VERSION":
                .uri
            default: .unknown
            }
        }
        let names = PropertyAvailability.known.union(["X-EVOLUTION-FILE-AS", "X-PHONETIC-FIRST-NAME", "X-PHONETIC-LAST-NAME", "X-ABLABEL"])
        for name in names {
            table[name] = PropertyTraits(kind: kind(name), isKnown: PropertyAvailability.known.contains(name),
                                         isOnlyIn3: PropertyAvailability.onlyIn3.contains(name),
                                         isOnlyIn4: PropertyAvailability.onlyIn4.contains(name),
                                         isSingular: PropertyAvailability.singular.contains(name),
                                         isExtension: name.hasPrefix("X-"), role: Role(upperName: name),
                                         singularBit: PropertyAvailability.singular.sorted().firstIndex(of: name).map { 1 << $0 } ?? 0)
        }
        return table
    }()
}

/// Which vCard versions define a property (RFC 2426, RFC 6350 and the registered extensions).
enum PropertyAvailability {
    static let onlyIn3: Set<String> = ["LABEL", "MAILER", "CLASS", "SORT-STRING", "NAME", "AGENT"]
    static let onlyIn4: Set<String> = ["KIND", "GENDER", "ANNIVERSARY", "LANG", "RELATED", "XML",
                                       "CLIENTPIDMAP", "MEMBER", "FBURL", "CALURI", "CALADRURI"]
    /// Properties that appear at most once in a card.
    static let singular: Set<String> = ["N", "BDAY", "ANNIVERSARY", "GENDER", "KIND", "PRODID", "REV", "UID"]
    /// Every property name RFC 2426 and RFC 6350 define (plus the common registered extensions).
    static let known: Set<String> = [
        "BEGIN", "END", "VERSION", "SOURCE", "KIND", "XML", "FN", "N", "NICKNAME", "PHOTO", "BDAY",
        "ANNIVERSARY", "GENDER", "ADR", "TEL", "EMAIL", "IMPP", "LANG", "TZ", "GEO", "TITLE", "ROLE",
        "LOGO", "ORG", "MEMBER", "RELATED", "CATEGORIES", "NOTE", "PRODID", "REV", "SOUND", "UID",
        "CLIENTPIDMAP", "URL", "KEY", "FBURL", "CALADRURI", "CALURI", "LABEL", "MAILER", "CLASS",
        "SORT-STRING", "NAME", "AGENT", "BIRTHPLACE", "DEATHPLACE", "DEATHDATE", "EXPERTISE", "HOBBY",
        "INTEREST", "ORG-DIRECTORY", "CONTACT-URI", "CREATED", "GRAMGENDER", "LANGUAGE", "PRONOUNS",
        "SOCIALPROFILE", "JSPROP",
    ]
}
