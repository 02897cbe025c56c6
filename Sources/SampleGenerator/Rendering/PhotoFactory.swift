/// Makes bytes that look like a baseline JPEG: SOI, a JFIF APP0 segment, a quantisation table,
/// a frame header and a scan header, then seeded noise as entropy-coded data, and EOI.
///
/// Nothing decodes to a picture, but the size and the first bytes are what real contact photos
/// have, which is what parsers, hashes and storage care about.
enum PhotoFactory {
    /// The number of bytes ``makeJPEG(_:)`` returns for `spec`.
    static func byteCount(of spec: PhotoSpec) -> Int {
        max(spec.byteCount, 200)
    }

    /// Returns ``byteCount(of:)`` bytes starting `FF D8 FF E0` and ending `FF D9`.
    static func makeJPEG(_ spec: PhotoSpec) -> [UInt8] {
        var random = SeededRandom(seed: spec.seed)
        let size = 96 + 32 * random.below(4)
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes.reserveCapacity(byteCount(of: spec))
        // APP0 "JFIF", version 1.1, 72 dpi, no thumbnail.
        bytes += [
            0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x01, 0x00, 0x48, 0x00, 0x48, 0x00, 0x00,
        ]
        // DQT: one 8-bit table with plausible step sizes.
        bytes += [0xFF, 0xDB, 0x00, 0x43, 0x00]
        for position in 0..<64 {
            bytes.append(UInt8(2 + position / 3 + random.below(4)))
        }
        // SOF0: 8-bit precision, size × size, three components.
        bytes += [
            0xFF, 0xC0, 0x00, 0x11, 0x08, UInt8(size >> 8), UInt8(size & 0xFF), UInt8(size >> 8), UInt8(size & 0xFF),
        ]
        bytes += [0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x00, 0x03, 0x11, 0x00]
        // SOS: three components, full spectral selection.
        bytes += [0xFF, 0xDA, 0x00, 0x0C, 0x03, 0x01, 0x00, 0x02, 0x11, 0x03, 0x11, 0x00, 0x3F, 0x00]
        let entropyCount = byteCount(of: spec) - bytes.count - 2
        let start = bytes.count
        random.appendBytes(entropyCount, to: &bytes)
        // A marker byte inside entropy-coded data would end the scan; keep 0xFF out of it.
        for index in start..<bytes.count where bytes[index] == 0xFF {
            bytes[index] = 0xFE
        }
        bytes += [0xFF, 0xD9]
        return bytes
    }
}
