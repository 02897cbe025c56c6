import Dispatch

/// Runs work on every core: the items are split into one contiguous part per worker and the
/// results keep the input's order.
enum Parallel {
    /// Maps `items` with `transform` on up to `activeProcessorCount` threads.
    ///
    /// Each item is handed to `transform` where it lies in the array's storage, not copied out
    /// first (as iterating would): for items that hold many references, such as journal events,
    /// that copy and its release came to about a tenth of what encoding them cost in a pull.
    static func map<Item: Sendable, Result: Sendable>(_ items: [Item], minimumPerWorker: Int = 8,
                                                      _ transform: @Sendable (Item) -> Result) -> [Result] {
        guard !items.isEmpty else { return [] }
        let workers = min(max(1, System.processorCount), max(1, items.count / max(1, minimumPerWorker)))
        return items.withUnsafeBufferPointer { buffer in
            // Read only, while `items` keeps the storage alive.
            nonisolated(unsafe) let elements = buffer
            @Sendable func part(_ range: Range<Int>) -> [Result] {
                var results: [Result] = []
                results.reserveCapacity(range.count)
                for position in range { results.append(transform(elements[position])) }
                return results
            }
            if workers == 1 { return part(0..<elements.count) }
            let slots = UnsafeMutableBufferPointer<[Result]>.allocate(capacity: workers)
            slots.initialize(repeating: [])
            defer { slots.deinitialize(); slots.deallocate() }
            // Each worker writes only its own slot; the buffer outlives concurrentPerform.
            nonisolated(unsafe) let shared = slots
            let per = (elements.count + workers - 1) / workers
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let start = worker * per
                let end = min(start + per, elements.count)
                guard start < end else { return }
                shared[worker] = part(start..<end)
            }
            return slots.flatMap { $0 }
        }
    }
}

/// Facts about the machine.
enum System {
    /// The number of processors available to the process.
    static let processorCount: Int = {
        #if os(Linux)
        let count = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        #else
        let count = Int(sysconf(_SC_NPROCESSORS_ONLN))
        #endif
        return max(1, count)
    }()
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
