/// Escaping of text values in vCard 3.0 and 4.0 (RFC 6350 §3.4, RFC 2426 §5).
///
/// In a value, `\\` is a backslash, `\n` or `\N` a line break, `\,` a comma and `\;` a semicolon.
/// Unescaped `;` separates the components of structured values (N, ADR, ORG, …) and unescaped `,`
/// separates the items of lists (CATEGORIES, NICKNAME, and components of N and ADR).
public enum TextEscaping {
    /// Escapes backslash, newline, comma and semicolon: the form every text value can take.
    ///
    /// ```swift
    /// TextEscaping.escape("a, b; c") // "a\\, b\\; c"
    /// ```
    public static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x5C || $0 == 0x0A || $0 == 0x0D || $0 == 0x2C || $0 == 0x3B }) else {
            return text
        }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 8)
        var previousWasCR = false
        for byte in text.utf8 {
            switch byte {
            case 0x5C: out += [0x5C, 0x5C]
            case 0x2C: out += [0x5C, 0x2C]
            case 0x3B: out += [0x5C, 0x3B]
            case 0x0D: out += [0x5C, 0x6E]
            case 0x0A: if !previousWasCR { out += [0x5C, 0x6E] }
            default: out.append(byte)
            }
            previousWasCR = byte == 0x0D
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes the escapes of a single text value. An unknown escape such as Apple's `\:` keeps
    /// the escaped character; unescaped commas and semicolons stay as they are.
    public static func unescape(_ value: String) -> String {
        guard value.utf8.contains(0x5C) else { return value }
        var out: [UInt8] = []
        out.reserveCapacity(value.utf8.count)
        forEachUnescaped(value.utf8) { out.append($0) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Hands each byte of ``unescape(_:)``'s result for the UTF-8 text `bytes` to `body`.
    static func forEachUnescaped(_ bytes: some Sequence<UInt8>, _ body: (UInt8) -> Void) {
        var escaping = false
        for byte in bytes {
            if escaping {
                body(byte == 0x6E || byte == 0x4E ? 0x0A : byte)
                escaping = false
            } else if byte == 0x5C {
                escaping = true
            } else {
                body(byte)
            }
        }
        // A lone backslash at the end stays.
        if escaping { body(0x5C) }
    }

    /// Splits a value at unescaped occurrences of `separator` (`;` or `,`) without decoding
    /// escapes; each part is still escaped text.
    public static func split(_ value: String, separator: UInt8) -> [String] {
        var parts: [String] = []
        var current: [UInt8] = []
        var escaping = false
        for byte in value.utf8 {
            if escaping {
                current.append(byte)
                escaping = false
            } else if byte == 0x5C {
                current.append(byte)
                escaping = true
            } else if byte == separator {
                parts.append(String(decoding: current, as: UTF8.self))
                current.removeAll(keepingCapacity: true)
            } else {
                current.append(byte)
            }
        }
        parts.append(String(decoding: current, as: UTF8.self))
        return parts
    }

    /// Splits a structured value into components, each a list of unescaped items:
    /// `Doe;John;Philip,Paul;;` gives `[["Doe"], ["John"], ["Philip", "Paul"], [""], [""]]`.
    public static func components(_ value: String, listsInComponents: Bool = true) -> [[String]] {
        split(value, separator: 0x3B).map { component in
            listsInComponents
                ? split(component, separator: 0x2C).map(unescape)
                : [unescape(component)]
        }
    }

    /// The canonical escaping of a value whose parts are separated by unescaped `separator` and
    /// `secondSeparator` bytes (`;`, `,`, or `0` for none): what splitting at them, unescaping and
    /// escaping each part, and joining the parts again by the separators as written gives, in one
    /// pass and without a copy when nothing changes. `separatorCount` counts the unescaped
    /// `separator`s (the components of a structured value are one more).
    ///
    /// ```swift
    /// var count = 0
    /// TextEscaping.reescaped("a\\:b, c", separator: 0, separatorCount: &count) // "a:b\\, c"
    /// ```
    static func reescaped(_ value: String, separator: UInt8, secondSeparator: UInt8 = 0,
                          separatorCount: inout Int) -> String {
        var text = value
        var count = 0
        let changed: String? = text.withUTF8 { bytes in
            let scan = reescapingScan(bytes, separator: separator, secondSeparator: secondSeparator)
            count = scan.separators
            guard scan.changes else { return nil }
            // Each byte becomes at most two (a lone trailing backslash: one becomes two).
            return String(unsafeUninitializedCapacity: bytes.count * 2) { out in
                let (written, separators) = reescape(bytes, separator: separator, secondSeparator: secondSeparator, into: out)
                count = separators
                return written
            }
        }
        separatorCount = count
        return changed ?? value
    }

    /// ``reescaped(_:separator:secondSeparator:separatorCount:)`` of the UTF-8 text `bytes`,
    /// appended to `output`; answers the separator count.
    static func appendReescaped(_ bytes: UnsafeBufferPointer<UInt8>, separator: UInt8, secondSeparator: UInt8 = 0,
                                to output: inout [UInt8]) -> Int {
        let scan = reescapingScan(bytes, separator: separator, secondSeparator: secondSeparator)
        guard scan.changes else {
            output.append(contentsOf: bytes)
            return scan.separators
        }
        let start = output.count
        let room = bytes.count * 2
        output.append(contentsOf: repeatElement(0, count: room))
        let (written, separators) = output.withUnsafeMutableBufferPointer { all in
            reescape(bytes, separator: separator, secondSeparator: secondSeparator,
                     into: UnsafeMutableBufferPointer(rebasing: all[start..<(start + room)]))
        }
        output.removeLast(room - written)
        return separators
    }

    /// Whether re-escaping changes `bytes` (an escape, a line end, or a `,` or `;` that is not a
    /// separator), and, when it does not, how many unescaped `separator`s they hold.
    private static func reescapingScan(_ bytes: UnsafeBufferPointer<UInt8>, separator: UInt8,
                                       secondSeparator: UInt8) -> (changes: Bool, separators: Int) {
        var count = 0
        for byte in bytes {
            if byte == 0x5C || byte == 0x0A || byte == 0x0D
                || ((byte == 0x2C || byte == 0x3B) && !isSeparator(byte, separator, secondSeparator)) {
                return (true, 0)
            }
            if byte == separator { count += 1 }
        }
        return (false, count)
    }

    private static func isSeparator(_ byte: UInt8, _ separator: UInt8, _ secondSeparator: UInt8) -> Bool {
        byte != 0 && (byte == separator || byte == secondSeparator)
    }

    /// Writes the re-escaped `bytes` into `out` (room for twice as many bytes); answers how many
    /// bytes it wrote and how many unescaped `separator`s it met.
    private static func reescape(_ bytes: UnsafeBufferPointer<UInt8>, separator: UInt8, secondSeparator: UInt8,
                                 into out: UnsafeMutableBufferPointer<UInt8>) -> (written: Int, separators: Int) {
        var count = 0
        var written = 0
        var escaping = false
        var previousWasCR = false
        for byte in bytes {
            let unescaped: UInt8
            if escaping {
                unescaped = byte == 0x6E || byte == 0x4E ? 0x0A : byte
                escaping = false
            } else if byte == 0x5C {
                escaping = true
                continue
            } else if isSeparator(byte, separator, secondSeparator) {
                if byte == separator { count += 1 }
                out[written] = byte
                written += 1
                previousWasCR = false
                continue
            } else {
                unescaped = byte
            }
            // The part's unescaped byte, escaped as `escape(_:)` does.
            switch unescaped {
            case 0x5C, 0x2C, 0x3B:
                out[written] = 0x5C
                out[written + 1] = unescaped
                written += 2
            case 0x0D:
                out[written] = 0x5C
                out[written + 1] = 0x6E
                written += 2
            case 0x0A where !previousWasCR:
                out[written] = 0x5C
                out[written + 1] = 0x6E
                written += 2
            case 0x0A:
                break
            default:
                out[written] = unescaped
                written += 1
            }
            previousWasCR = unescaped == 0x0D
        }
        if escaping {
            out[written] = 0x5C
            out[written + 1] = 0x5C
            written += 2
        }
        return (written, count)
    }

    /// Joins components into a structured value, escaping each item.
    public static func joinComponents(_ components: [[String]]) -> String {
        components.map { $0.map(escape).joined(separator: ",") }.joined(separator: ";")
    }
}
