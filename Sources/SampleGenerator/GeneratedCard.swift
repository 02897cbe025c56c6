/// One card of a generated address book.
public struct GeneratedCard: Sendable, Hashable {
    /// The card's position in the book, from 0.
    public var index: Int
    /// The value of the card's UID property (a UUID, in 4.0 cards sometimes a `urn:uuid:` URI).
    public var uid: String
    /// The version the card is written in: ``GeneratorOptions/Version/v3`` or ``GeneratorOptions/Version/v4``.
    public var version: GeneratorOptions.Version
    /// The complete vCard, BEGIN to END, with CRLF line ends.
    public var text: String
    /// Whether and how the card repeats or resembles an earlier one; nil for new contacts.
    public var label: DuplicateLabel?

    /// Creates a card.
    ///
    /// - Parameters:
    ///   - index: The card's position in the book.
    ///   - uid: The card's UID.
    ///   - version: The card's version.
    ///   - text: The vCard text.
    ///   - label: The card's duplicate label.
    public init(index: Int, uid: String, version: GeneratorOptions.Version, text: String, label: DuplicateLabel?) {
        self.index = index
        self.uid = uid
        self.version = version
        self.text = text
        self.label = label
    }

    /// A file name for the card: `<UID>.vcf` when the UID consists of `A–Z a–z 0–9 . _ + -` only
    /// (and does not start with a dot), otherwise a 32-digit hexadecimal digest of the UID plus `.vcf`.
    ///
    /// The digest is a fixed function of the UID's UTF-8 bytes, the same on every platform; it is
    /// not cryptographic.
    public var fileName: String {
        Self.fileName(forUID: uid)
    }

    /// The file name ``fileName`` gives for a card with this UID.
    ///
    /// - Parameter uid: A UID value.
    /// - Returns: `<UID>.vcf` or `<digest>.vcf`.
    public static func fileName(forUID uid: String) -> String {
        let isSafe =
            !uid.isEmpty && uid.utf8.count <= 200 && uid.utf8.first != UInt8(ascii: ".")
            && uid.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "+"),
                    UInt8(ascii: "-"):
                    true
                default:
                    false
                }
            }
        return (isSafe ? uid : hexDigest(of: uid)) + ".vcf"
    }

    /// 128 bits from two differently seeded passes of a SplitMix64-based mix over the bytes.
    private static func hexDigest(of text: String) -> String {
        var first: UInt64 = 0x6A09_E667_F3BC_C908
        var second: UInt64 = 0xBB67_AE85_84CA_A73B
        for byte in text.utf8 {
            first = SplitMix64.finalize(first ^ UInt64(byte))
            second = SplitMix64.finalize(second &+ UInt64(byte) &* 0x9E37_79B9_7F4A_7C15)
        }
        first = SplitMix64.finalize(first ^ UInt64(text.utf8.count))
        second = SplitMix64.finalize(second ^ UInt64(text.utf8.count))
        let digits = Array("0123456789abcdef".utf8)
        var bytes = [UInt8]()
        bytes.reserveCapacity(32)
        for word in [first, second] {
            for shift in stride(from: 60, through: 0, by: -4) {
                bytes.append(digits[Int(word >> UInt64(shift) & 0xF)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
