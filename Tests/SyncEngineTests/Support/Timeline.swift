import ContactStore
import Foundation
import Synchronization

/// Simulated wall-clock time shared by the books of a test. Each book reads it through a clock
/// of its own that may run fast or slow; time passes only when the test moves it.
final class Timeline: Sendable {
    private let time: Mutex<Int64>

    /// A timeline that starts at `start` (milliseconds since 1970).
    init(_ start: Int64) { time = Mutex(start) }

    /// The true time now.
    var now: Int64 { time.withLock { $0 } }

    /// Moves the true time to `moment`.
    func move(to moment: Int64) { time.withLock { $0 = moment } }

    /// A book's clock: the true time plus `skew` milliseconds.
    func clock(skew: Int64) -> WallClock { WallClock { self.now + skew } }
}

extension URL {
    /// Sets the modification time of the file `name` (whole seconds keep it exact).
    func setModified(_ name: String, to milliseconds: Int64) throws {
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: Double(milliseconds) / 1000)],
                                              ofItemAtPath: appendingPathComponent(name).path)
    }
}
