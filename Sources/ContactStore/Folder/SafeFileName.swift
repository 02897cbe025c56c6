/// File names for contacts: the UID when it is a safe name, otherwise a fresh UUID.
///
/// A safe name has only `A-Z a-z 0-9 . _ + -`, does not start with `.` (hidden files are
/// cardsync's own), is at most 200 bytes with its `.vcf` ending, and is not a device name
/// Windows reserves (`CON`, `NUL`, `COM1`, … whatever the extension), so it can never point
/// outside the folder nor break another program's file handling. Names made from UIDs are
/// lower-case, so two UIDs that differ only in case get different files on case-insensitive
/// disks too (the second finds the first's name taken and gets a UUID).
enum SafeFileName {
    /// The longest file name cardsync writes, in bytes.
    static let maximumBytes = 200

    /// Device names Windows reserves in every folder, with any extension.
    static let windowsReservedStems = Set(["con", "prn", "aux", "nul"] + (1...9).flatMap { ["com\($0)", "lpt\($0)"] })

    /// `uid.vcf`, lower-cased, when `uid` is safe (a `urn:uuid:` prefix, in any case, left off), else `nil`.
    static func name(forUID uid: String) -> String? {
        var bare = Substring(uid).utf8
        if bare.count >= 9, bare.prefix(9).elementsEqual("urn:uuid:".utf8, by: { lowercased($0) == $1 }) {
            bare = bare.dropFirst(9)
        }
        // Checked before lower-casing, byte by byte: only ASCII is safe (some non-ASCII letters
        // lower-case to ASCII, such as the Kelvin sign).
        var name: [UInt8] = []
        name.reserveCapacity(bare.count + 4)
        for byte in bare {
            guard isSafeByte(byte) else { return nil }
            name.append(lowercased(byte))
        }
        name.append(contentsOf: ".vcf".utf8)
        guard name.count <= maximumBytes, name.first != 0x2E, !hasReservedStem(name) else { return nil }
        return String(decoding: name, as: UTF8.self)
    }

    /// Whether `name` is a safe contact file name.
    static func isSafe(_ name: String) -> Bool {
        let utf8 = name.utf8
        guard !utf8.isEmpty, utf8.count <= maximumBytes, utf8.first != 0x2E else { return false }
        return utf8.allSatisfy(isSafeByte) && !hasReservedStem(utf8)
    }

    /// `A-Z a-z 0-9 . _ + -`.
    private static func isSafeByte(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
            || byte == 0x2E || byte == 0x5F || byte == 0x2B || byte == 0x2D
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
    }

    /// Whether the part of a safe name before its first `.` is a device name Windows reserves.
    private static func hasReservedStem(_ name: some Collection<UInt8>) -> Bool {
        let stem = name.prefix { $0 != 0x2E }
        // Every reserved stem has three or four letters.
        guard stem.count == 3 || stem.count == 4 else { return false }
        return windowsReservedStems.contains(String(decoding: stem.map(lowercased), as: UTF8.self))
    }

    /// Whether `name` is a file the address book reads as contacts: not hidden, ends in `.vcf`
    /// (any case), no path separator.
    static func isContactFile(_ name: String) -> Bool {
        // Scanned in the string's own buffer when it has one (every name read from a folder
        // does): a walk of 100,000 names checks each, and the view's element-wise scan showed.
        let hasSeparator = name.utf8.withContiguousStorageIfAvailable { $0.contains(0x2F) } ?? name.utf8.contains(0x2F)
        guard let first = name.utf8.first, first != 0x2E, !hasSeparator else { return false }
        // `.vcf` in any case, compared byte by byte (no lower-cased copy of every name).
        let suffix = name.utf8.suffix(4)
        guard name.utf8.count > 4, suffix.count == 4 else { return false }
        return zip(suffix, [0x2E, 0x76, 0x63, 0x66] as [UInt8]).allSatisfy { $0 | ($0 >= 0x41 && $0 <= 0x5A ? 0x20 : 0) == $1 }
    }
}
