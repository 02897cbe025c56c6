#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The folded search texts of many list entries in one contiguous buffer, each ended by a zero
/// byte, so that a search is one `memchr`/`memcmp` pass over memory rather than a loop over entries.
///
/// Texts are appended in slot order (slot `n` is the `n`th text appended); a slot whose entry
/// is gone keeps its text until the owner rebuilds the buffer, and its hits are ignored there.
struct SearchBuffer: Sendable {
    private(set) var bytes: [UInt8] = []
    /// Where each slot's text starts in ``bytes`` (ascending).
    private var starts: [Int] = []

    var slotCount: Int { starts.count }

    /// Appends the text of the next slot (zero bytes in it are dropped: zero ends a text).
    mutating func append(_ text: [UInt8]) {
        starts.append(bytes.count)
        if text.contains(0) { bytes.append(contentsOf: text.lazy.filter { $0 != 0 }) } else { bytes.append(contentsOf: text) }
        bytes.append(0)
    }

    /// Calls `found` once with every slot whose text contains `needle` (non-empty, no zero
    /// byte), in slot order.
    func forEachSlot(containing needle: [UInt8], _ found: (Int) -> Void) {
        guard !needle.isEmpty, !needle.contains(0), !bytes.isEmpty else { return }
        bytes.withUnsafeBytes { haystack in
            needle.withUnsafeBytes { wanted in
                guard let base = haystack.baseAddress, let wantedBase = wanted.baseAddress else { return }
                let first = Int32(needle[0])
                let wantedBytes = UnsafeRawPointer(wantedBase)
                var position = 0
                while haystack.count - position >= wanted.count {
                    // memchr finds the candidates (vectorised), memcmp checks them.
                    guard let candidate = memchr(base + position, first, haystack.count - position - wanted.count + 1) else { return }
                    let offset = base.distance(to: UnsafeRawPointer(candidate))
                    guard memcmp(candidate, wantedBytes, wanted.count) == 0 else {
                        position = offset + 1
                        continue
                    }
                    let slot = slot(at: offset)
                    found(slot)
                    // Skip to the next slot's text: one hit per slot is enough.
                    position = slot + 1 < starts.count ? starts[slot + 1] : haystack.count
                }
            }
        }
    }

    /// The slot whose text holds the byte at `offset`.
    private func slot(at offset: Int) -> Int {
        var low = 0
        var high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return low
    }
}
