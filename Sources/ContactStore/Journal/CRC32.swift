/// CRC-32 as zlib computes it (IEEE 802.3 polynomial, reflected, initial and final XOR
/// `0xFFFFFFFF`): `zlib.crc32(data)` in Python gives the same number.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index -> UInt32 in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    /// Continues a checksum over more bytes (start with 0).
    static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var value = ~crc
        table.withUnsafeBufferPointer { table in
            for byte in bytes { value = table[Int((value ^ UInt32(byte)) & 0xFF)] ^ (value >> 8) }
        }
        return ~value
    }

    /// The checksum of `bytes`.
    static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        if let result = bytes.withContiguousStorageIfAvailable({ update(0, UnsafeRawBufferPointer($0)) }) { return result }
        return Array(bytes).withUnsafeBytes { update(0, $0) }
    }

    /// Eight lower-case hexadecimal digits.
    static func hex(_ value: UInt32) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8](repeating: 0, count: 8)
        for index in 0..<8 { out[index] = digits[Int((value >> UInt32(28 - index * 4)) & 0xF)] }
        return String(decoding: out, as: UTF8.self)
    }
}
