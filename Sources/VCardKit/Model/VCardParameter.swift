#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A property parameter such as `TYPE=work,voice` or `PREF=1`.
///
/// Values are stored decoded: without quotes and with RFC 6868 caret escapes (`^n`, `^^`, `^'`)
/// turned into the characters they stand for. Names keep their case as written and are compared
/// case-insensitively by ``hasName(_:)``.
public struct VCardParameter: Sendable, Hashable {
    /// The parameter name as written, or the inferred name (`TYPE`, `ENCODING`, `VALUE`, `CHARSET`)
    /// of a vCard 2.1 parameter written without one.
    public var name: String
    /// The values, in order. `TYPE=work,voice` has two.
    public var values: [String]
    /// Whether the parameter was written without a name, as vCard 2.1 allows (`TEL;HOME;VOICE:`).
    public var isNameless: Bool

    /// Creates a parameter.
    ///
    /// ```swift
    /// let type = VCardParameter(name: "TYPE", values: ["work", "voice"])
    /// ```
    public init(name: String, values: [String], isNameless: Bool = false) {
        self.name = name
        self.values = values
        self.isNameless = isNameless
    }

    /// Creates a single-valued parameter.
    public init(name: String, value: String) {
        self.init(name: name, values: [value])
    }

    /// Whether the parameter's name equals `other`, ignoring ASCII case.
    public func hasName(_ other: String) -> Bool {
        name.equalsIgnoringASCIICase(other)
    }

    /// The values joined with commas, as a single string.
    public var joinedValue: String { values.joined(separator: ",") }
}

extension String {
    /// ASCII case-insensitive equality, without allocating.
    @inlinable
    func equalsIgnoringASCIICase(_ other: String) -> Bool {
        let count = utf8.count
        if count != other.utf8.count { return false }
        // Both strings' bytes in place (native and small strings have them): compared as bytes.
        if let compared = utf8.withContiguousStorageIfAvailable({ a in
            other.utf8.withContiguousStorageIfAvailable { b -> Bool in
                for k in 0..<count where a[k] != b[k] {
                    // Equal only as the two cases of one ASCII letter.
                    let folded = a[k] | 0x20
                    if folded != b[k] | 0x20 || folded < 0x61 || folded > 0x7A { return false }
                }
                return true
            }
        }), let compared {
            return compared
        }
        var a = self.utf8.makeIterator()
        var b = other.utf8.makeIterator()
        while true {
            switch (a.next(), b.next()) {
            case (nil, nil): return true
            case let (x?, y?):
                if x == y { continue }
                let lx = (x >= 65 && x <= 90) ? x | 0x20 : x
                let ly = (y >= 65 && y <= 90) ? y | 0x20 : y
                if lx != ly { return false }
            default: return false
            }
        }
    }

    /// Whether the string holds a CR or LF, found with `memchr` on contiguous storage.
    var containsLineBreak: Bool {
        if let found = utf8.withContiguousStorageIfAvailable({ buffer -> Bool in
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return false }
            return memchr(base, 0x0A, buffer.count) != nil || memchr(base, 0x0D, buffer.count) != nil
        }) {
            return found
        }
        return utf8.contains { $0 == 0x0A || $0 == 0x0D }
    }

    /// The string with ASCII letters upper-cased and everything else unchanged.
    var asciiUppercased: String {
        if !utf8.contains(where: { $0 >= 97 && $0 <= 122 }) { return self }
        return String(decoding: utf8.map { ($0 >= 97 && $0 <= 122) ? $0 - 32 : $0 }, as: UTF8.self)
    }

    /// The string with ASCII letters lower-cased and everything else unchanged.
    var asciiLowercased: String {
        if !utf8.contains(where: { $0 >= 65 && $0 <= 90 }) { return self }
        return String(decoding: utf8.map { ($0 >= 65 && $0 <= 90) ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
