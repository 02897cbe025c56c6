/// A telephone number reduced to its digits, with what is known of its country code.
///
/// ```swift
/// let normalizer = PhoneNormalizer()                 // default country code 1 (North America)
/// normalizer.normalize("+1 (312) 555-0142").digits  // "13125550142"
/// normalizer.normalize("(312) 555-0142").digits     // "13125550142"
/// normalizer.normalize("0049 30 1234567").digits    // "49301234567"
/// ```
public struct NormalizedPhone: Sendable, Hashable, CustomStringConvertible {
    /// The number in international form, without `+`: the written country code, or the default
    /// one for a number written nationally.
    public var digits: String
    /// Whether the number was written with its country code (`+`, `00` or `011`).
    public var isInternational: Bool
    /// The national significant number: the digits after the country code, or for a number
    /// written nationally, the digits without the trunk prefix `0`.
    public var national: String

    /// The digits with a leading `+`.
    public var description: String { "+" + digits }

    /// Whether two numbers are the same line. Two international numbers must have the same
    /// digits; when one was written nationally, its national number must end the other's digits
    /// with a country code of one to three digits before it (`030 1234567` is `+49 30 1234567`,
    /// whatever the default country code), or equal the other's national number.
    public func isSameNumber(as other: NormalizedPhone) -> Bool {
        if digits == other.digits { return true }
        if isInternational && other.isInternational { return false }
        if !isInternational && !other.isInternational { return national == other.national && national.count >= 6 }
        let (written, international) = isInternational ? (other, self) : (self, other)
        guard written.national.count >= 6, international.digits.hasSuffix(written.national) else { return false }
        let codeLength = international.digits.count - written.national.count
        return (1...3).contains(codeLength)
    }

    /// A key that two numbers which are the same line always share: their last seven digits.
    public var blockingKey: Substring { digits.suffix(7) }
}

/// Reduces telephone numbers to ``NormalizedPhone``s.
///
/// Everything but digits is dropped (`tel:` scheme, spaces, dashes, dots, parentheses), and an
/// extension (`x12`, `ext. 12`, `;ext=12`) is kept after the number. A number starting with `+`,
/// `00` or (in North America) `011` carries its country code; any other number is national and
/// gets ``defaultCountryCode`` after its trunk prefix `0` is dropped. North American numbers of
/// eleven digits starting with `1` are taken as international.
public struct PhoneNormalizer: Sendable, Hashable {
    /// The country calling code for numbers written without one; `1` (North America) by default,
    /// because national numbers of the other regions start with a trunk `0` that marks them.
    public var defaultCountryCode: String

    /// Creates a normalizer.
    /// - Parameter defaultCountryCode: the calling code for national numbers, digits only.
    public init(defaultCountryCode: String = "1") {
        self.defaultCountryCode = defaultCountryCode
    }

    /// Normalises one number as written in a `TEL` value.
    public func normalize(_ written: String) -> NormalizedPhone {
        var text = Substring(written)
        if text.utf8.starts(with: "tel:".utf8) || text.utf8.count >= 4 && text.prefix(4).lowercased() == "tel:" { text = text.dropFirst(4) }
        var digitBytes: [UInt8] = []
        var extensionBytes: [UInt8] = []
        var plus = false
        var inExtension = false
        func take(_ byte: UInt8) {
            switch byte {
            case 0x30...0x39:
                if inExtension { extensionBytes.append(byte) } else { digitBytes.append(byte) }
            case 0x2B where digitBytes.isEmpty:
                plus = true
            case 0x78, 0x58, 0x3D, 0x23:  // x X = #
                if !digitBytes.isEmpty { inExtension = true }
            default:
                break
            }
        }
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            for byte in text.utf8 { take(byte) }
        } else {
            // A digit that a combining mark follows is not a digit of the number: by characters.
            for character in text where character.isASCII { take(character.asciiValue!) }
        }
        let digits = String(decoding: digitBytes, as: UTF8.self)
        let suffix = extensionBytes.isEmpty ? "" : "x" + String(decoding: extensionBytes, as: UTF8.self)
        if plus { return NormalizedPhone(digits: digits + suffix, isInternational: true, national: "") }
        if digits.hasPrefix("00") {
            return NormalizedPhone(digits: String(digits.dropFirst(2)) + suffix, isInternational: true, national: "")
        }
        if defaultCountryCode == "1" {
            if digits.hasPrefix("011") && digits.count > 10 {
                return NormalizedPhone(digits: String(digits.dropFirst(3)) + suffix, isInternational: true, national: "")
            }
            if digits.count == 11 && digits.hasPrefix("1") {
                return NormalizedPhone(digits: digits + suffix, isInternational: true, national: "")
            }
        }
        let national = digits.hasPrefix("0") ? String(digits.dropFirst()) : digits
        return NormalizedPhone(digits: defaultCountryCode + national + suffix, isInternational: false, national: national + suffix)
    }
}
