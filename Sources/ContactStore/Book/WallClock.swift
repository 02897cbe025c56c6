/// The wall clock an address book dates things by, in milliseconds since 1970 (UTC): the time
/// of its journal events, and the upper bound of an outside edit's time (see
/// ``AddressBook/scan(addingMissingUIDs:)``).
///
/// ``system`` reads the machine's real-time clock. Tests pass their own, so that two books can
/// run with clocks that differ, or time can pass without waiting:
///
/// ```swift
/// let skewed = WallClock { WallClock.system.now() + 180_000 }   // three minutes fast
/// try await AddressBook.withOpen(at: folder, options: .init(clock: skewed)) { book in … }
/// ```
public struct WallClock: Sendable {
    private let read: @Sendable () -> Int64

    /// A clock that reads the time from `read` (milliseconds since 1970, UTC).
    public init(_ read: @escaping @Sendable () -> Int64) {
        self.read = read
    }

    /// The machine's real-time clock.
    public static let system = WallClock { UTCTimestamp.now() }

    /// The time now, in milliseconds since 1970 (UTC).
    public func now() -> Int64 { read() }
}
