#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Named places where a crash test can have the process die the way `kill -9` makes it die (no
/// clean-up, nothing flushed): set `CARDSYNC_CRASH_AT` to the place's name. It reaches states
/// that a kill at a random moment reaches only by chance, such as a pull whose files are in
/// place but not yet journaled. Unset, a place costs one comparison.
package enum CrashPoint {
    /// The place chosen by the environment, if any.
    static let chosen: String? = ProcessInfo.processInfo.environment["CARDSYNC_CRASH_AT"]

    /// A pull's files are in the folder (moved into place, or removed); its journal lines are
    /// not written yet.
    package static let pullAppliedToFolder = "pull-applied-to-folder"

    /// Dies here when this place was chosen.
    static func reach(_ name: String) {
        guard chosen == name else { return }
        kill(getpid(), SIGKILL)
    }
}
