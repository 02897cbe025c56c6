#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Array where Element == UInt8 {
    /// Where `needle` first occurs in these bytes; `nil` when it does not (or is empty).
    func firstIndex(ofBytes needle: [UInt8]) -> Int? {
        guard let first = needle.first, count >= needle.count else { return nil }
        return withUnsafeBufferPointer { haystack in
            needle.withUnsafeBufferPointer { needle in
                let last = haystack.count - needle.count
                var index = 0
                while index <= last {
                    if haystack[index] == first, memcmp(haystack.baseAddress! + index, needle.baseAddress!, needle.count) == 0 { return index }
                    index += 1
                }
                return nil
            }
        }
    }
}
