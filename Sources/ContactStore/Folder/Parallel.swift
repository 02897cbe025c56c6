import Dispatch

/// Runs work on every core: the items are split into one contiguous part per worker and the
/// results keep the input's order.
enum Parallel {
    /// Maps `items` with `transform` on up to `activeProcessorCount` threads.
    static func map<Item: Sendable, Result: Sendable>(_ items: [Item], minimumPerWorker: Int = 8,
                                                      _ transform: @Sendable (Item) -> Result) -> [Result] {
        guard !items.isEmpty else { return [] }
        let workers = min(max(1, System.processorCount), max(1, items.count / max(1, minimumPerWorker)))
        if workers == 1 { return items.map(transform) }
        let slots = UnsafeMutableBufferPointer<[Result]>.allocate(capacity: workers)
        slots.initialize(repeating: [])
        defer { slots.deinitialize(); slots.deallocate() }
        // Each worker writes only its own slot; the buffer outlives concurrentPerform.
        nonisolated(unsafe) let shared = slots
        let per = (items.count + workers - 1) / workers
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let start = worker * per
            let end = min(start + per, items.count)
            guard start < end else { return }
            shared[worker] = items[start..<end].map(transform)
        }
        return slots.flatMap { $0 }
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
