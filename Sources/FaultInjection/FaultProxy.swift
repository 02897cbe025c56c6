import Foundation

/// A fault-injecting HTTP/1.1 proxy on the loopback interface, to put between a CouchDB client
/// and `cardsync serve` (or any local CouchDB) in tests.
///
/// Each request the client sends is, with probability ``Configuration/faultRate``, hit by one
/// ``FaultKind`` drawn evenly from ``Configuration/kinds`` by a generator seeded with
/// ``Configuration/seed`` (same seed, same sequence of decisions); otherwise it is forwarded
/// unchanged. The proxy listens on `127.0.0.1` only and forwards to a loopback upstream only.
/// Every request opens its own upstream connection, so one fault never affects another request.
///
/// ```swift
/// let proxy = try FaultProxy(configuration: .init(upstreamPort: serverPort, faultRate: 0.2, seed: 7))
/// proxy.start()
/// defer { proxy.stop() }
/// // point the client at http://admin:secret@127.0.0.1:\(proxy.port)
/// proxy.faultRate = 0            // e.g. to check the outcome without faults
/// print(proxy.statistics.faults) // [.truncatedResponse: 3, .duplicatedRequest: 2, …]
/// ```
///
/// Or with a scope: `try await withFaultProxy(configuration) { proxy in … }`. From the shell:
/// `cardsync-faultproxy --upstream http://127.0.0.1:5984 --fault-rate 0.2 --seed 7`.
///
/// Thread-safety: one thread accepts, one thread serves each client connection; the generator,
/// the fault rate, the statistics and the open connections are guarded by `lock`, which is why
/// the class is `@unchecked Sendable`.
public final class FaultProxy: @unchecked Sendable {
    /// Where to forward, and which faults to inject how often.
    public struct Configuration: Sendable {
        /// The upstream's port on `127.0.0.1`.
        public var upstreamPort: Int
        /// The port to listen on (0: a free port, see ``FaultProxy/port``).
        public var listenPort: Int
        /// The probability, in `0...1`, that a request is hit by a fault.
        public var faultRate: Double
        /// The faults to choose from (evenly).
        public var kinds: [FaultKind]
        /// The seed of the fault decisions.
        public var seed: UInt64
        /// How long a ``FaultKind/stall`` holds the request before closing (make it longer
        /// than the client's request timeout).
        public var stallDuration: Duration
        /// The pause between the pieces of a ``FaultKind/slowBody``.
        public var slowBodyPause: Duration
        /// The size of the pieces of a ``FaultKind/slowBody``.
        public var slowBodyPieceSize: Int
        /// The `Retry-After` seconds sent with 429 and 503.
        public var retryAfterSeconds: Int
        /// Which requests may be hit (method, path with query); all by default.
        public var isEligible: @Sendable (_ method: String, _ target: String) -> Bool

        /// A configuration: every fault kind, 2 s stalls, 20 ms pauses between 64-byte pieces of a
        /// slow body, `Retry-After: 1`.
        public init(upstreamPort: Int, listenPort: Int = 0, faultRate: Double, kinds: [FaultKind] = FaultKind.allCases,
                    seed: UInt64 = 1, stallDuration: Duration = .seconds(2), slowBodyPause: Duration = .milliseconds(20),
                    slowBodyPieceSize: Int = 64, retryAfterSeconds: Int = 1,
                    isEligible: @escaping @Sendable (_ method: String, _ target: String) -> Bool = { _, _ in true }) {
            self.upstreamPort = upstreamPort
            self.listenPort = listenPort
            self.faultRate = faultRate
            self.kinds = kinds
            self.seed = seed
            self.stallDuration = stallDuration
            self.slowBodyPause = slowBodyPause
            self.slowBodyPieceSize = max(1, slowBodyPieceSize)
            self.retryAfterSeconds = retryAfterSeconds
            self.isEligible = isEligible
        }

        /// A configuration for an upstream given as a URL, which must be `http://127.0.0.1:PORT`
        /// or `http://localhost:PORT` (a path or credentials in it are ignored).
        ///
        /// - Throws: ``FaultProxyError`` when the upstream is not on the loopback interface.
        public init(upstream: String, listenPort: Int = 0, faultRate: Double, kinds: [FaultKind] = FaultKind.allCases,
                    seed: UInt64 = 1) throws(FaultProxyError) {
            guard let components = URLComponents(string: upstream), components.scheme == "http",
                  let host = components.host, ["127.0.0.1", "localhost"].contains(host),
                  let port = components.port
            else { throw .notLoopback(upstream) }
            self.init(upstreamPort: port, listenPort: listenPort, faultRate: faultRate, kinds: kinds, seed: seed)
        }
    }

    /// What the proxy has seen so far.
    public struct Statistics: Sendable, Equatable {
        /// Requests received from clients.
        public var requests = 0
        /// Requests passed on without a fault.
        public var forwardedCleanly = 0
        /// Faults injected, by kind.
        public var faults: [FaultKind: Int] = [:]
        /// All faults injected.
        public var totalFaults: Int { faults.values.reduce(0, +) }
    }

    /// One injected fault, for failure reports.
    public struct InjectedFault: Sendable, CustomStringConvertible {
        /// The request's number (1-based, in arrival order).
        public var request: Int
        /// The request's method.
        public var method: String
        /// The request's target (path and query).
        public var target: String
        /// The fault.
        public var kind: FaultKind
        /// `#12 PUT /db/doc: truncatedResponse`.
        public var description: String { "#\(request) \(method) \(target): \(kind.rawValue)" }
    }

    /// The configuration the proxy was made with (``faultRate`` may have changed since).
    public let configuration: Configuration
    /// The port the proxy listens on, on `127.0.0.1`.
    public let port: Int

    private let listener: LoopbackSocket
    private let lock = NSLock()
    private var generator: SeededGenerator
    private var currentFaultRate: Double
    private var stats = Statistics()
    private var faultLog: [InjectedFault] = []
    private var connections: [Int32: LoopbackSocket] = [:]
    private var isStopped = false
    private var isStarted = false

    /// Binds the listening socket (nothing is accepted before ``start()``).
    ///
    /// - Throws: ``FaultProxyError`` when the port cannot be bound.
    public init(configuration: Configuration) throws(FaultProxyError) {
        self.configuration = configuration
        self.listener = try LoopbackSocket.listen(port: configuration.listenPort)
        self.port = listener.localPort
        self.generator = SeededGenerator(seed: configuration.seed)
        self.currentFaultRate = min(max(configuration.faultRate, 0), 1)
    }

    deinit {
        stop()
    }

    /// The base URL clients should use instead of the upstream's: `http://127.0.0.1:PORT`.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// The probability that the next request is hit by a fault; set it to 0 to stop injecting.
    public var faultRate: Double {
        get { lock.withLock { currentFaultRate } }
        set { lock.withLock { currentFaultRate = min(max(newValue, 0), 1) } }
    }

    /// Counts so far.
    public var statistics: Statistics { lock.withLock { stats } }

    /// Every fault injected so far, in order.
    public var injectedFaults: [InjectedFault] { lock.withLock { faultLog } }

    /// Starts accepting connections on a thread of its own.
    public func start() {
        let shouldStart = lock.withLock { () -> Bool in
            defer { isStarted = true }
            return !isStarted && !isStopped
        }
        guard shouldStart else { return }
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "FaultProxy.accept"
        thread.start()
    }

    /// Stops accepting and closes every open client connection. Idempotent.
    public func stop() {
        let open = lock.withLock { () -> [LoopbackSocket]? in
            if isStopped { return nil }
            isStopped = true
            return Array(connections.values)
        }
        guard let open else { return }
        listener.shutdownBoth()
        listener.close()
        for connection in open { connection.shutdownBoth() }
    }

    // MARK: - Serving

    private func acceptLoop() {
        while let client = listener.accept() {
            let accepted = lock.withLock { () -> Bool in
                if isStopped { return false }
                connections[client.descriptor] = client
                return true
            }
            guard accepted else {
                client.close()
                return
            }
            let thread = Thread { [self] in serve(client) }
            thread.name = "FaultProxy.connection"
            thread.start()
        }
    }

    private func serve(_ client: LoopbackSocket) {
        var reader = MessageReader(socket: client)
        var closeHow = CloseHow.orderly
        defer {
            lock.withLock { _ = connections.removeValue(forKey: client.descriptor) }
            switch closeHow {
            case .orderly: client.close()
            case .reset: client.reset()
            }
        }
        while let head = reader.readHead() {
            guard let body = reader.readBody(after: head, untilCloseIfUnframed: false) else { return }
            let parts = head.startLine.split(separator: " ", maxSplits: 2).map(String.init)
            guard parts.count == 3 else { return }
            let request = ProxiedRequest(method: parts[0], target: parts[1], version: parts[2], head: head, body: body)
            let fault = decide(for: request)
            let outcome = respond(to: request, with: fault, on: client)
            switch outcome {
            case .keepOpen: continue
            case .close: return
            case .reset:
                closeHow = .reset
                return
            }
        }
    }

    private enum CloseHow { case orderly, reset }
    private enum Outcome { case keepOpen, close, reset }

    private func decide(for request: ProxiedRequest) -> FaultKind? {
        let eligible = configuration.isEligible(request.method, request.target)
        return lock.withLock { () -> FaultKind? in
            stats.requests += 1
            let number = stats.requests
            // Draw both numbers for every request, so a request's fault does not depend on
            // whether earlier ones were eligible.
            let roll = Double(generator.next() >> 11) / Double(1 << 53)
            let pick = generator.next()
            guard eligible, !configuration.kinds.isEmpty, roll < currentFaultRate else {
                stats.forwardedCleanly += 1
                return nil
            }
            let kind = configuration.kinds[Int(pick % UInt64(configuration.kinds.count))]
            stats.faults[kind, default: 0] += 1
            faultLog.append(InjectedFault(request: number, method: request.method, target: request.target, kind: kind))
            return kind
        }
    }

    private func respond(to request: ProxiedRequest, with fault: FaultKind?, on client: LoopbackSocket) -> Outcome {
        let keepAlive = request.wantsKeepAlive
        switch fault {
        case nil:
            guard let response = forward(request) else { return sendBadGateway(on: client) }
            guard client.write(response.bytes(keepAlive: keepAlive)) else { return .close }
            return keepAlive ? .keepOpen : .close
        case .resetBeforeForwarding:
            return .reset
        case .resetAfterForwarding:
            _ = forward(request)
            return .reset
        case .stall:
            pause(configuration.stallDuration)
            return .close
        case .slowBody:
            guard let response = forward(request) else { return sendBadGateway(on: client) }
            let bytes = response.bytes(keepAlive: keepAlive)
            let headLength = response.headLength(keepAlive: keepAlive)
            guard client.write(bytes[..<headLength]) else { return .close }
            var offset = headLength
            while offset < bytes.count {
                let end = min(bytes.count, offset + configuration.slowBodyPieceSize)
                guard client.write(bytes[offset..<end]) else { return .close }
                offset = end
                if offset < bytes.count { pause(configuration.slowBodyPause) }
            }
            return keepAlive ? .keepOpen : .close
        case .truncatedResponse:
            guard let response = forward(request) else { return sendBadGateway(on: client) }
            let bytes = response.bytes(keepAlive: keepAlive)
            let headLength = response.headLength(keepAlive: keepAlive)
            let bodyLength = bytes.count - headLength
            // Half the body; a response without a body loses the end of its head instead.
            let cut = bodyLength > 0 ? headLength + bodyLength / 2 : headLength / 2
            client.write(bytes[..<cut])
            return .close
        case .internalServerError:
            return sendError(500, "Internal Server Error", error: "unknown_error", retryAfter: false, on: client,
                             keepAlive: keepAlive)
        case .serviceUnavailable:
            return sendError(503, "Service Unavailable", error: "service_unavailable", retryAfter: true, on: client,
                             keepAlive: keepAlive)
        case .tooManyRequests:
            return sendError(429, "Too Many Requests", error: "too_many_requests", retryAfter: true, on: client,
                             keepAlive: keepAlive)
        case .duplicatedRequest:
            _ = forward(request)
            guard let response = forward(request) else { return sendBadGateway(on: client) }
            guard client.write(response.bytes(keepAlive: keepAlive)) else { return .close }
            return keepAlive ? .keepOpen : .close
        }
    }

    /// Sends `request` upstream on a new connection and reads the whole answer.
    private func forward(_ request: ProxiedRequest) -> UpstreamResponse? {
        guard let upstream = try? LoopbackSocket.connect(port: configuration.upstreamPort) else { return nil }
        defer { upstream.close() }
        var head = request.head.removing(["connection", "keep-alive", "transfer-encoding", "content-length",
                                          "proxy-connection", "expect"])
        head.startLine = "\(request.method) \(request.target) HTTP/1.1"
        if !request.body.isEmpty || ["POST", "PUT", "PATCH"].contains(request.method) {
            head.fields.append(("Content-Length", String(request.body.count)))
        }
        head.fields.append(("Connection", "close"))
        guard upstream.write(head.bytes + request.body) else { return nil }
        var reader = MessageReader(socket: upstream)
        guard let responseHead = reader.readHead() else { return nil }
        let statusCode = responseHead.startLine.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        let hasNoBody = request.method == "HEAD" || statusCode == 204 || statusCode == 304 || (100..<200).contains(statusCode)
        let body: [UInt8]
        if hasNoBody {
            body = []
        } else {
            guard let read = reader.readBody(after: responseHead, untilCloseIfUnframed: true) else { return nil }
            body = read
        }
        return UpstreamResponse(head: responseHead, body: body, keepsDeclaredLength: request.method == "HEAD")
    }

    private func sendBadGateway(on client: LoopbackSocket) -> Outcome {
        _ = sendError(502, "Bad Gateway", error: "bad_gateway", retryAfter: false, on: client, keepAlive: false)
        return .close
    }

    private func sendError(_ status: Int, _ phrase: String, error: String, retryAfter: Bool, on client: LoopbackSocket,
                           keepAlive: Bool) -> Outcome {
        let body = Array(#"{"error":"\#(error)","reason":"injected by FaultProxy"}"#.utf8) + [10]
        var fields: [(name: String, value: String)] = [
            ("Content-Type", "application/json"), ("Content-Length", String(body.count)),
        ]
        if retryAfter { fields.append(("Retry-After", String(configuration.retryAfterSeconds))) }
        fields.append(("Connection", keepAlive ? "keep-alive" : "close"))
        let head = HTTPHead(startLine: "HTTP/1.1 \(status) \(phrase)", fields: fields)
        guard client.write(head.bytes + body) else { return .close }
        return keepAlive ? .keepOpen : .close
    }

    /// Sleeps for `duration` in short steps, returning early when the proxy stops.
    private func pause(_ duration: Duration) {
        let deadline = ContinuousClock.now + duration
        while true {
            let remaining = deadline - ContinuousClock.now
            if remaining <= .zero || lock.withLock({ isStopped }) { return }
            let seconds = Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18
            Thread.sleep(forTimeInterval: min(0.02, seconds))
        }
    }
}

/// A request read from a client.
struct ProxiedRequest {
    var method: String
    var target: String
    var version: String
    var head: HTTPHead
    var body: [UInt8]

    /// Whether the client keeps the connection for another request.
    var wantsKeepAlive: Bool {
        let connection = head.value("Connection")?.lowercased() ?? ""
        if version == "HTTP/1.0" { return connection.contains("keep-alive") }
        return !connection.contains("close")
    }
}

/// A whole upstream answer, re-framed with `Content-Length` for the client.
struct UpstreamResponse {
    var head: HTTPHead
    var body: [UInt8]
    /// HEAD answers keep the length the upstream declared (there is no body to measure).
    var keepsDeclaredLength: Bool

    private func clientHead(keepAlive: Bool) -> HTTPHead {
        var rewritten = head.removing(keepsDeclaredLength ? ["connection", "keep-alive", "transfer-encoding"]
                                                          : ["connection", "keep-alive", "transfer-encoding", "content-length"])
        if !keepsDeclaredLength { rewritten.fields.append(("Content-Length", String(body.count))) }
        rewritten.fields.append(("Connection", keepAlive ? "keep-alive" : "close"))
        return rewritten
    }

    func headLength(keepAlive: Bool) -> Int { clientHead(keepAlive: keepAlive).bytes.count }

    func bytes(keepAlive: Bool) -> [UInt8] { clientHead(keepAlive: keepAlive).bytes + body }
}

/// Runs `body` with a started proxy and stops the proxy afterwards, whether `body` returns or throws.
///
/// ```swift
/// try await withFaultProxy(.init(upstreamPort: port, faultRate: 0.2, seed: 42)) { proxy in
///     try await runSync(remote: "http://admin:secret@127.0.0.1:\(proxy.port)")
/// }
/// ```
///
/// - Throws: ``FaultProxyError`` when the proxy cannot listen, or what `body` throws.
public func withFaultProxy<Result>(
    _ configuration: FaultProxy.Configuration, _ body: (FaultProxy) async throws -> Result
) async throws -> Result {
    let proxy = try FaultProxy(configuration: configuration)
    proxy.start()
    defer { proxy.stop() }
    return try await body(proxy)
}
