import Dispatch

/// Maps over an array on every core, keeping the order. Work is split into contiguous slices;
/// each slice writes only its own results, so no lock is needed.
enum Parallel {
    static func map<Element: Sendable, Result: Sendable>(
        _ elements: [Element], minimumPerWorker: Int = 64, _ transform: @Sendable (Element) -> Result
    ) -> [Result] {
        let count = elements.count
        let workers = min(max(1, count / max(1, minimumPerWorker)), max(1, ProcessInfoCores.count * 4))
        guard workers > 1 else { return elements.map(transform) }
        let results = ResultSlots<Result>(count: count)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let start = count * worker / workers
            let end = count * (worker + 1) / workers
            for index in start..<end { results.store(transform(elements[index]), at: index) }
        }
        return results.values()
    }

    /// ``map(_:minimumPerWorker:_:)`` in chunks, calling `progress` with the number of elements
    /// done before the first chunk and after each one (without `progress`, in one go). A chunk
    /// keeps every worker busy, so the chunking costs little.
    static func map<Element: Sendable, Result: Sendable>(
        _ elements: [Element], minimumPerWorker: Int = 64, progress: ((Int) -> Void)?, _ transform: @Sendable (Element) -> Result
    ) -> [Result] {
        guard let progress else { return map(elements, minimumPerWorker: minimumPerWorker, transform) }
        let chunk = max(1024, max(1, minimumPerWorker) * ProcessInfoCores.count * 4)
        var results: [Result] = []
        results.reserveCapacity(elements.count)
        progress(0)
        var start = 0
        while start < elements.count {
            let end = min(start + chunk, elements.count)
            results += map(Array(elements[start..<end]), minimumPerWorker: minimumPerWorker, transform)
            start = end
            progress(end)
        }
        return results
    }
}

/// Result storage for ``Parallel``: each index is written by exactly one worker before
/// `concurrentPerform` returns, which orders those writes before ``values()`` reads them.
private final class ResultSlots<Value>: @unchecked Sendable {
    private let base: UnsafeMutablePointer<Value?>
    private let count: Int

    init(count: Int) {
        self.count = count
        base = UnsafeMutablePointer<Value?>.allocate(capacity: count)
        base.initialize(repeating: nil, count: count)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    func store(_ value: Value, at index: Int) { base[index] = value }

    func values() -> [Value] { (0..<count).map { base[$0]! } }
}

enum ProcessInfoCores {
    static let count: Int = {
        #if canImport(Glibc)
        return Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        #else
        return 2
        #endif
    }()
}

#if canImport(Glibc)
import Glibc
#endif
