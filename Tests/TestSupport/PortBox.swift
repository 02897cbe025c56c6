/// Hands the port a test server bound to from its start-up callback to the test that waits for it.
public actor PortBox {
    private var port: Int?
    private var waiters: [CheckedContinuation<Int, Never>] = []

    public init() {}

    /// Records the port and wakes every waiter.
    public func set(_ value: Int) {
        port = value
        for waiter in waiters { waiter.resume(returning: value) }
        waiters.removeAll()
    }

    /// The port, once the server has reported it.
    public func value() async -> Int {
        if let port { return port }
        return await withCheckedContinuation { waiters.append($0) }
    }
}
