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
    /// The card's logical lines (its properties to be), in order.
    private let logicalLines: [DeferredLine]
    /// Guards ``built``.
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    private var built: [VCardProperty]?

    init(_ frame: VCardFrame, logicalLines: [DeferredLine]) {
        self.logicalLines = logicalLines
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

extension DeferredProperties {
    /// The card's lines on their way to `target` (see ``VersionConverter/convertedLines(of:to:copyingUnchangedLines:)``):
    /// a line that conversion leaves as it is and that is already written as the writer writes
    /// is copied as read; every other line is built into its property, as the full parse builds
    /// it. `nil` if a line cannot be built on its own (the card is then converted whole).
    func linesForConversion(to target: VCardVersion) -> [ConvertedLine]? {
        var lines: [ConvertedLine] = []
        lines.reserveCapacity(logicalLines.count)
        var builder: CardParser?
        let last = frame.lines.count - 1
        for index in logicalLines.indices {
            let line = logicalLines[index]
            let end = index + 1 < logicalLines.count ? logicalLines[index + 1].firstLine : last
            let bytes = frame.bytes[frame.lines[line.firstLine].start..<frame.lines[end - 1].end]
            let unchanged = target == .v4_0 ? line.unchangedIn4 : line.unchangedIn3
            if unchanged && VCardWriter.isStrictlyFormatted(bytes) {
                lines.append(.copied(bytes))
                continue
            }
            if builder == nil { builder = CardParser(buildingLinesOf: frame) }
            guard let property = builder!.property(ofLogicalLineAt: line.firstLine, end: end) else { return nil }
            lines.append(.property(property))
        }
        return lines
    }
}

/// A logical line of a card read with its properties deferred: where it starts, and whether
/// converting it to 3.0 or to 4.0 leaves it as it is
/// (``VersionConverter/leavesUnchanged(_:hasConvertedParameter:to:)``).
struct DeferredLine: Sendable {
    /// The index of its first physical line in the card's frame.
    var firstLine: Int
    var unchangedIn3: Bool
    var unchangedIn4: Bool
}
