#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension String {
    /// The string whose UTF-8 is exactly `bytes`, or `nil` when `bytes` are not valid UTF-8:
    /// the answer of `String(validating: bytes, as: UTF8.self)`, at a fraction of its cost on
    /// short strings.
    ///
    /// `String(validating:as:)` reaches a validation routine that is generic over the encoding
    /// and not specialized for it, so every call looks up generic metadata; on a JSON key or a
    /// parameter value that lookup costs more than the validation (in a profile of the server's
    /// `_bulk_docs`, 9% of its time). This decodes with `String(decoding:as:)`, whose UTF-8 path
    /// is specialized and replaces what is not valid with U+FFFD, then compares the string's
    /// bytes with `bytes`. They are equal exactly when nothing was replaced: the first
    /// replacement puts EF BF BD where the decoder found no valid sequence, and EF BF BD is a
    /// valid sequence, so the input cannot have held it there.
    ///
    /// ```swift
    /// String(exactUTF8: [0x4A, 0xC3, 0xBC])   // "Jü"
    /// String(exactUTF8: [0x4A, 0xC3])         // nil: a sequence cut short
    /// ```
    public init?(exactUTF8 bytes: UnsafeBufferPointer<UInt8>) {
        let text = String(decoding: bytes, as: UTF8.self)
        let unchanged = text.utf8.withContiguousStorageIfAvailable { stored in
            stored.count == bytes.count && (bytes.isEmpty || memcmp(stored.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
        }
        guard unchanged ?? text.utf8.elementsEqual(bytes) else { return nil }
        self = text
    }

    /// The string whose UTF-8 is exactly `bytes`, or `nil` when they are not valid UTF-8
    /// (see ``Swift/String/init(exactUTF8:)-(UnsafeBufferPointer<UInt8>)``).
    public init?(exactUTF8 bytes: [UInt8]) {
        guard let text = bytes.withUnsafeBufferPointer({ String(exactUTF8: $0) }) else { return nil }
        self = text
    }

    /// The string whose UTF-8 is exactly `bytes`, or `nil` when they are not valid UTF-8
    /// (see ``Swift/String/init(exactUTF8:)-(UnsafeBufferPointer<UInt8>)``).
    public init?(exactUTF8 bytes: ArraySlice<UInt8>) {
        guard let text = bytes.withUnsafeBufferPointer({ String(exactUTF8: $0) }) else { return nil }
        self = text
    }
}
