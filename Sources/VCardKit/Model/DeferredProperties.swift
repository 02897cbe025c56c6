#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The properties of a card read with ``VCardReadOptions/deferredVersions``: the card's frame,
/// parsed into properties the first time they are asked for, once, whichever copy of the card
/// (and whichever thread) asks first.
///
/// The frame was checked when it was read, with the same diagnostics a full parse gives, so the
/// parse made here reports nothing new; its diagnostics are dropped.
final class DeferredProperties: @unchecked Sendable {
    private let frame: VCardFrame
    /// Guards ``built``.
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    private var built: [VCardProperty]?

    init(_ frame: VCardFrame) {
        var options = frame.options
        options.deferredVersions = []
        self.frame = VCardFrame(bytes: frame.bytes, lines: frame.lines, blankLinesBefore: frame.blankLinesBefore,
                                sourceName: frame.sourceName, options: options)
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_mutex_t())
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deinitialize(count: 1)
        lock.deallocate()
    }

    /// The card's properties, as a full parse of its frame builds them.
    var properties: [VCardProperty] {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        if let built { return built }
        let properties = frame.parse().card?.properties ?? []
        built = properties
        return properties
    }
}
