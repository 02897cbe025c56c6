import Crypto
import Foundation
import JSONText

/// The SHA-256 of a card's meaning: equal for two cards that say the same thing, whatever their
/// form, and different as soon as one value, parameter or property differs.
///
/// ```swift
/// let a = try VCardReader.read("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada\r\nEMAIL;TYPE=WORK:ada@example.com\r\nEND:VCARD\r\n").cards[0]
/// let b = try VCardReader.read("BEGIN:VCARD\nVERSION:4.0\nemail;type=work:ada@example.com\nfn:Ada\nEND:VCARD\n").cards[0]
/// assert(ContentHash(of: a) == ContentHash(of: b))
/// ```
///
/// The hash is taken over ``canonicalText(of:)``: the card's ``CanonicalForm`` without the volatile
/// fields (`VERSION`, `UID`, `REV`, `PRODID`), with group labels renumbered canonically. It
/// therefore ignores:
/// - folding and line ends, property-name, group and parameter-name case, parameter order,
///   quoting, quoted-printable and `CHARSET` encodings (values are decoded when read);
/// - the vCard 3.0 and 4.0 spellings of the same data (`TYPE=pref` and `PREF=1`, `ENCODING=b`
///   and `data:` URIs, `LABEL` and `ADR;LABEL=`, basic and extended dates, `tel:` URIs, …);
/// - property order;
/// - group labels: `item1.EMAIL` + `item1.X-ABLABEL` hash like `work.EMAIL` + `work.X-ABLABEL`;
///   what counts is which properties share a group, not the group's name;
/// - `UID`, `REV`, `PRODID` and `VERSION`.
///
/// It does not ignore the case of values, white space inside values, or a property that appears
/// twice (a card with the same e-mail address twice differs from one with it once).
public struct ContentHash: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The 32 bytes of the digest, as four big-endian words (cheap to store and compare).
    public let words: (UInt64, UInt64, UInt64, UInt64)

    /// Reads the 64 lower-case or upper-case hexadecimal digits of ``hexDigits``; `nil` for anything else.
    public init?(hexDigits: some StringProtocol) {
        let utf8 = Array(hexDigits.utf8)
        guard utf8.count == 64 else { return nil }
        var words: [UInt64] = [0, 0, 0, 0]
        for (index, byte) in utf8.enumerated() {
            let nibble: UInt8
            switch byte {
            case 0x30...0x39: nibble = byte - 0x30
            case 0x61...0x66: nibble = byte - 0x61 + 10
            case 0x41...0x46: nibble = byte - 0x41 + 10
            default: return nil
            }
            words[index / 16] = words[index / 16] << 4 | UInt64(nibble)
        }
        self.words = (words[0], words[1], words[2], words[3])
    }

    /// Creates a hash from its four words.
    public init(words: (UInt64, UInt64, UInt64, UInt64)) {
        self.words = words
    }

    /// The digest as 64 lower-case hexadecimal digits, as stored in the journal.
    public var hexDigits: String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        appendHexDigits(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the UTF-8 of ``hexDigits`` to `out`, without making a String (a journal line
    /// holds two hashes).
    ///
    /// The 64 digits are written on the stack and appended at once: one capacity check for
    /// the line instead of one per digit.
    public func appendHexDigits(to out: inout [UInt8]) {
        var digits: (SIMD32<UInt8>, SIMD32<UInt8>) = (.zero, .zero)
        withUnsafeMutableBytes(of: &digits) { buffer in
            HexDigits.write(words.0, count: 16, into: buffer, at: 0)
            HexDigits.write(words.1, count: 16, into: buffer, at: 16)
            HexDigits.write(words.2, count: 16, into: buffer, at: 32)
            HexDigits.write(words.3, count: 16, into: buffer, at: 48)
            out.append(contentsOf: UnsafeRawBufferPointer(buffer))
        }
    }

    /// The first 12 hexadecimal digits, for messages.
    public var shortDescription: String { String(hexDigits.prefix(12)) }

    public var description: String { hexDigits }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.words == rhs.words
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.words < rhs.words
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }

    /// Decodes the 64 hexadecimal digits.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let hash = ContentHash(hexDigits: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "a content hash is 64 hexadecimal digits"))
        }
        self = hash
    }

    /// Encodes the 64 hexadecimal digits.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hexDigits)
    }

    /// The text the content hash is taken over: one canonical property per line, sorted.
    ///
    /// Each line is `group.NAME;PARAM=v:value` as ``CanonicalProperty/description`` spells it,
    /// preceded by its length in UTF-8 bytes and a space (so that no value can imitate a line
    /// break), and ended by a line feed. The text starts with the line `cardsync-content-v1`.
    ///
    /// Groups are relabelled `g1`, `g2`, … in the order of their members' canonical text
    /// (their properties without the group label, sorted and joined), so that a group's name does
    /// not matter but membership does.
    public static func canonicalText(of card: VCard) -> String {
        String(decoding: canonicalTextBytes(of: card), as: UTF8.self)
    }
}

/// A hash of the person a card names, for finding the same contact after an edit (the "secondary
/// id"): two cards with the same name hash probably describe the same person, but a shared name is
/// never enough to merge.
///
/// The name is the `FN`, or when there is none the given, additional and family names of `N`,
/// or else the organization. It is lower-cased, split into words at white space and punctuation
/// (`.`, `,`, `;`, `-`, `'`, `"`), and the words are sorted, so `John  Smith`, `smith, john` and
/// `Smith John` hash alike.
///
/// ```swift
/// if NameHash(of: edited) == NameHash(of: original) { /* candidate for the same contact */ }
/// ```
public struct NameHash: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The first 16 hexadecimal digits of the SHA-256 of ``normalizedName(of:)``.
    public let hexDigits: String

    /// The name hash of `card`, or `nil` when the card names no one.
    public init?(of card: VCard) {
        guard let name = Self.normalizedName(of: card) else { return nil }
        let digest = SHA256.hash(data: Array(name.utf8))
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in digest.prefix(8) {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        hexDigits = String(decoding: out, as: UTF8.self)
    }

    /// Creates a name hash from its digits.
    public init(hexDigits: String) {
        self.hexDigits = hexDigits
    }

    public var description: String { hexDigits }

    /// Decodes the digits.
    public init(from decoder: any Decoder) throws {
        hexDigits = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the digits.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hexDigits)
    }

    /// The words of the card's name, lower-cased, sorted and joined by single spaces; `nil` when
    /// the card has no name.
    public static func normalizedName(of card: VCard) -> String? {
        var source = card.formattedName ?? ""
        if source.allSatisfy(\.isWhitespace), let name = card.structuredName {
            source = (name.given + name.additional + name.family).joined(separator: " ")
        }
        if source.allSatisfy(\.isWhitespace), let organization = card.organization {
            source = organization.joined(separator: " ")
        }
        let separators: Set<Character> = [".", ",", ";", "-", "'", "\"", "(", ")"]
        let words = source.lowercased()
            .split { $0.isWhitespace || separators.contains($0) }
            .map(String.init)
            .sorted()
        return words.isEmpty ? nil : words.joined(separator: " ")
    }
}
