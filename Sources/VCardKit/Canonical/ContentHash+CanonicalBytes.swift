import Crypto

extension ContentHash {
    /// The content hash of `card`, computed without building ``canonicalText(of:)`` as a `String`:
    /// the canonical lines are written as bytes into one buffer and hashed.
    ///
    /// The bytes are exactly the UTF-8 of ``canonicalText(of:)`` (both come from
    /// ``canonicalTextBytes(of:)``), so the digest is the one the journal and the index hold.
    public init(of card: VCard) {
        let bytes = Self.canonicalTextBytes(of: card)
        let digest = bytes.withUnsafeBytes { SHA256.hash(data: $0) }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        digest.withUnsafeBytes { raw in
            func word(_ offset: Int) -> UInt64 {
                var value: UInt64 = 0
                for index in offset..<(offset + 8) { value = value << 8 | UInt64(raw[index]) }
                return value
            }
            words = (word(0), word(8), word(16), word(24))
        }
        self.init(words: words)
    }

    /// The UTF-8 bytes of ``canonicalText(of:)``.
    static func canonicalTextBytes(of card: VCard) -> [UInt8] {
        var properties = CanonicalForm.properties(of: card, excluding: .volatile)
        relabelGroups(&properties)
        var capacity = 20
        for property in properties {
            capacity += property.group.utf8.count + property.name.utf8.count + property.value.utf8.count + 16
            for parameter in property.parameters { capacity += parameter.utf8.count + 1 }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(capacity)
        bytes.append(contentsOf: "cardsync-content-v1\n".utf8)
        for property in properties { appendLine(of: property, to: &bytes) }
        return bytes
    }

    /// Appends `<length> group.NAME;P=v:value\n` for `property`, the length being that of the
    /// line in UTF-8 bytes (``CanonicalProperty/description``).
    private static func appendLine(of property: CanonicalProperty, to bytes: inout [UInt8]) {
        var length = property.name.utf8.count + 1 + property.value.utf8.count
        if !property.group.isEmpty { length += property.group.utf8.count + 1 }
        for parameter in property.parameters { length += 1 + parameter.utf8.count }
        appendDecimal(length, to: &bytes)
        bytes.append(0x20)
        if !property.group.isEmpty {
            bytes.append(contentsOf: property.group.utf8)
            bytes.append(0x2E)
        }
        bytes.append(contentsOf: property.name.utf8)
        for parameter in property.parameters {
            bytes.append(0x3B)
            bytes.append(contentsOf: parameter.utf8)
        }
        bytes.append(0x3A)
        bytes.append(contentsOf: property.value.utf8)
        bytes.append(0x0A)
    }

    /// Appends the decimal digits of a non-negative `number`, as `String(number)` spells it.
    private static func appendDecimal(_ number: Int, to bytes: inout [UInt8]) {
        var divisor = 1
        while divisor <= number / 10 { divisor *= 10 }
        var rest = number
        while divisor > 0 {
            bytes.append(UInt8(truncatingIfNeeded: 0x30 + rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}
