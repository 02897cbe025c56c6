import CChecksum
import JSONText

/// CRC-32 as zlib computes it (IEEE 802.3 polynomial, reflected, initial and final XOR
/// `0xFFFFFFFF`): `zlib.crc32(data)` in Python gives the same number.
///
/// Every journal line is checked when it is written and when it is read, card text included.
/// Where the processor multiplies without carries (x86-64 with PCLMULQDQ), a run of 64 bytes
/// or more is folded 64 bytes at a time (`CChecksum`); the tables below take the last 0–15
/// bytes, shorter runs, and every other processor. The checksums of a 2,000-contact pull took
/// 8.5 M instructions that way, against 29 M with the tables alone.
enum CRC32 {
    /// Whether this processor folds (asked once).
    static let foldingAvailable = cardsync_crc32_folding_available() == 1

    /// Slicing by eight: `tables[k * 256 + byte]` is the CRC of `byte` followed by `k` zero bytes,
    /// so eight bytes are folded in per step (a journal line is checked every time it is read).
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
            tables[index] = value
        }
        for slice in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(slice - 1) * 256 + index]
                tables[slice * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// Continues a checksum over more bytes (start with 0).
    static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        update(crc, bytes, folding: foldingAvailable)
    }

    /// ``update(_:_:)`` with the folding chosen (tests compare both ways; `folding` must only be
    /// `true` where ``foldingAvailable``).
    static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer, folding: Bool) -> UInt32 {
        var value = ~crc
        var start = 0
        if folding { (value, start) = fold(value, bytes) }
        tables.withUnsafeBufferPointer { table in
            var index = start
            #if _endian(little)
            if let base = bytes.baseAddress {
                while index + 8 <= bytes.count {
                    let low = base.loadUnaligned(fromByteOffset: index, as: UInt32.self) ^ value
                    let high = base.loadUnaligned(fromByteOffset: index + 4, as: UInt32.self)
                    value = table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                        ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                        ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                        ^ table[256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                    index += 8
                }
            }
            #endif
            while index < bytes.count {
                value = table[Int((value ^ UInt32(bytes[index])) & 0xFF)] ^ (value >> 8)
                index += 1
            }
        }
        return ~value
    }

    /// Folds the longest run of `bytes` that can be folded (none under 64 bytes, else a multiple
    /// of 16) into the register `state` (a checksum's complement): the register after it, and
    /// how many bytes that was. Only where ``foldingAvailable``.
    static func fold(_ state: UInt32, _ bytes: UnsafeRawBufferPointer) -> (state: UInt32, consumed: Int) {
        // The C function keeps the 64-byte threshold itself (and consumes nothing below it).
        guard let base = bytes.baseAddress else { return (state, 0) }
        var consumed = 0
        let folded = cardsync_crc32_folded(state, base.assumingMemoryBound(to: UInt8.self), bytes.count, &consumed)
        return (folded, consumed)
    }

    /// The checksum of `bytes`.
    static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        if let result = bytes.withContiguousStorageIfAvailable({ update(0, UnsafeRawBufferPointer($0)) }) { return result }
        return Array(bytes).withUnsafeBytes { update(0, $0) }
    }

    /// Eight lower-case hexadecimal digits.
    static func hex(_ value: UInt32) -> String {
        // Written in place: eight ASCII bytes make a small string, with nothing allocated
        // (every journal line read makes one).
        String(unsafeUninitializedCapacity: 8) { out in
            writeHex(value, into: out, at: 0)
            return 8
        }
    }

    /// Writes the eight lower-case hexadecimal digits of `value` into `out` from `start` (a
    /// journal line being written gets its checksum this way, in the place kept for it).
    static func writeHex(_ value: UInt32, into out: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        HexDigits.write(UInt64(value), count: 8, into: UnsafeMutableRawBufferPointer(out), at: start)
    }
}
