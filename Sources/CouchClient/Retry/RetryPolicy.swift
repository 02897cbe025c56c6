/// When and how long to wait before repeating a failed request: exponential backoff with full
/// jitter, for network failures, timeouts, 5xx and 429 only.
///
/// The wait before attempt *n + 1* is a random duration between zero and
/// `min(maximumDelay, initialDelay × 2ⁿ⁻¹)`; a 429 or 503 with `Retry-After` waits what the server
/// asks instead (at most `maximumRetryAfter`). 400, 401, 403, 404, 409, 412 and 413 are never
/// retried.
///
/// ```swift
/// var policy = RetryPolicy(maximumAttempts: 3)
/// policy.randomFraction = { 1 }   // no jitter, for tests
/// ```
public struct RetryPolicy: Sendable {
    /// Attempts in all, including the first; 1 disables retries.
    public var maximumAttempts: Int
    /// The upper bound of the first wait.
    public var initialDelay: Duration
    /// The largest upper bound of a wait.
    public var maximumDelay: Duration
    /// The longest `Retry-After` honoured.
    public var maximumRetryAfter: Duration
    /// A random number in `0...1` (injectable so tests know the waits).
    public var randomFraction: @Sendable () -> Double

    /// A policy; by default 5 attempts, waits up to 0.2 s, 0.4 s, 0.8 s, 1.6 s.
    public init(maximumAttempts: Int = 5, initialDelay: Duration = .milliseconds(200),
                maximumDelay: Duration = .seconds(30), maximumRetryAfter: Duration = .seconds(60),
                randomFraction: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.maximumRetryAfter = maximumRetryAfter
        self.randomFraction = randomFraction
    }

    /// No retries.
    public static var none: RetryPolicy { RetryPolicy(maximumAttempts: 1) }

    /// The wait after failed attempt `attempt` (1-based), honouring `retryAfter` when given.
    public func delay(afterAttempt attempt: Int, retryAfter: Duration? = nil) -> Duration {
        if let retryAfter { return min(max(retryAfter, .zero), maximumRetryAfter) }
        var ceiling = initialDelay
        for _ in 1..<max(1, attempt) {
            ceiling *= 2
            if ceiling >= maximumDelay { break }
        }
        ceiling = min(ceiling, maximumDelay)
        let fraction = min(max(randomFraction(), 0), 1)
        return ceiling * fraction
    }

    /// Whether a response with `status` may be retried.
    public static func isRetryable(status: Int) -> Bool {
        status == 408 || status == 429 || (500...599).contains(status)
    }
}
