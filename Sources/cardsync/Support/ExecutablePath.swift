import Foundation

/// Where the running `cardsync` executable is: `/proc/self/exe` on Linux (a command found on
/// PATH has only its name in `argv[0]`), else `argv[0]` resolved against the working directory.
enum ExecutablePath {
    static var current: URL {
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: target)
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    }
}
