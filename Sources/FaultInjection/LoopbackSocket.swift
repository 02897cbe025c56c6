#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking TCP socket on the loopback interface: just what the proxy needs, over POSIX calls.
struct LoopbackSocket: Sendable {
    let descriptor: Int32

    /// Opens a socket listening on `127.0.0.1:port` (0 picks a free port).
    static func listen(port: Int) throws(FaultProxyError) -> LoopbackSocket {
        let fd = socket(AF_INET, socketStream, 0)
        guard fd >= 0 else { throw .system("socket", errno) }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = loopbackAddress(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let code = errno
            _ = systemClose(fd)
            throw .system("bind", code)
        }
        guard systemListen(fd, 128) == 0 else {
            let code = errno
            _ = systemClose(fd)
            throw .system("listen", code)
        }
        return LoopbackSocket(descriptor: fd)
    }

    /// Connects to `127.0.0.1:port`.
    static func connect(port: Int) throws(FaultProxyError) -> LoopbackSocket {
        let fd = socket(AF_INET, socketStream, 0)
        guard fd >= 0 else { throw .system("socket", errno) }
        var address = loopbackAddress(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                systemConnect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            _ = systemClose(fd)
            throw .system("connect", code)
        }
        return LoopbackSocket(descriptor: fd)
    }

    /// The local port this socket is bound to.
    var localPort: Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Waits for the next connection; `nil` once the listening socket is shut down.
    func accept() -> LoopbackSocket? {
        while true {
            let fd = systemAccept(descriptor, nil, nil)
            if fd >= 0 { return LoopbackSocket(descriptor: fd) }
            if errno == EINTR { continue }
            return nil
        }
    }

    /// Reads what is there (up to `limit` bytes); an empty array at end of stream or on error.
    func read(limit: Int = 64 * 1024) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: limit)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, limit, 0) }
            if count > 0 { return Array(buffer[..<count]) }
            if count < 0 && errno == EINTR { continue }
            return []
        }
    }

    /// Writes all of `bytes`; false when the peer has gone.
    @discardableResult
    func write(_ bytes: some Collection<UInt8>) -> Bool {
        let array = Array(bytes)
        var offset = 0
        while offset < array.count {
            let written = array.withUnsafeBytes {
                send(descriptor, $0.baseAddress! + offset, array.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    /// Stops both directions, waking a thread blocked in `read` or `accept`.
    func shutdownBoth() {
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Closes the socket with a TCP reset instead of an orderly close (`SO_LINGER` of zero).
    func reset() {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        _ = systemClose(descriptor)
    }

    /// Closes the socket.
    func close() {
        _ = systemClose(descriptor)
    }

    private static func loopbackAddress(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}

#if os(Linux)
private let socketStream = Int32(SOCK_STREAM.rawValue)
#else
private let socketStream = SOCK_STREAM
#endif

// File-scope names for the POSIX calls the struct's methods shadow.
private func systemListen(_ fd: Int32, _ backlog: Int32) -> Int32 { listen(fd, backlog) }
private func systemConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(fd, address, length)
}
private func systemAccept(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: UnsafeMutablePointer<socklen_t>?) -> Int32 {
    accept(fd, address, length)
}
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
