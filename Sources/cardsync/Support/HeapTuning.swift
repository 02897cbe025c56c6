#if canImport(Glibc)
import Glibc
#endif

/// How the C allocator is set for commands that build a large index while they stream batches
/// through it (`import`, `sync`).
///
/// glibc serves an allocation from its heap unless it is larger than a threshold that rises
/// with the largest block freed so far (up to 32 MB). A batch's buffers (a megabyte or more
/// each: the cards read, their files' bytes, the journal lines) then come from the heap after
/// the first batch, and once freed they leave holes between the index's long-lived entries that
/// the process keeps: 10–15 MB of resident memory at the end of an import of 100,000 contacts.
/// A fixed threshold of 1 MB keeps such buffers out of the heap (mapped, and unmapped when
/// freed). It costs some system time (the pages are zeroed again for each batch), which is why
/// commands that hold no index (`convert`, `validate`) keep glibc's default.
enum HeapTuning {
    /// Blocks of at least this many bytes are mapped apart from the heap.
    static let mappedBlockThreshold: Int32 = 1 << 20

    /// `M_MMAP_THRESHOLD` in glibc's `malloc.h` (which Swift's Glibc module does not import).
    private static let mmapThresholdParameter: Int32 = -3

    /// Sets the fixed threshold (glibc only; elsewhere, or when the C library has no
    /// `mallopt`, nothing changes).
    static func keepLargeBuffersOutOfTheHeap() {
        #if canImport(Glibc)
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        // Looked up by name (RTLD_DEFAULT: every loaded library), called with C's convention.
        guard let symbol = dlsym(nil, "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: Mallopt.self)(mmapThresholdParameter, mappedBlockThreshold)
        #endif
    }
}
