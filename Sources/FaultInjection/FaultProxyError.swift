#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a ``FaultProxy`` could not start.
public struct FaultProxyError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var description: String

    /// The upstream is not a loopback `http://` URL.
    static func notLoopback(_ upstream: String) -> FaultProxyError {
        FaultProxyError(description: "the upstream must be http://127.0.0.1:PORT or http://localhost:PORT, not \(upstream)")
    }

    /// A system call failed.
    static func system(_ call: String, _ code: Int32) -> FaultProxyError {
        FaultProxyError(description: "\(call) failed: \(String(cString: strerror(code)))")
    }
}
