import CouchClient
import Foundation
import JSONText
import Synchronization

/// A transport that answers from a script (a closure over the request and the attempt number)
/// and records every request it saw.
final class ScriptedTransport: CouchTransport {
    typealias Script = @Sendable (CouchHTTPRequest, Int) throws -> CouchHTTPResponse
    private let script: Script
    private let log = Mutex<[CouchHTTPRequest]>([])

    init(_ script: @escaping Script) { self.script = script }

    /// The requests sent so far.
    var requests: [CouchHTTPRequest] { log.withLock { $0 } }

    func send(_ request: CouchHTTPRequest, timeout: Duration) async throws -> CouchHTTPResponse {
        let attempt = log.withLock { requests in
            requests.append(request)
            return requests.count
        }
        return try script(request, attempt)
    }
}

/// A clock whose `sleep` returns at once and records the duration asked for.
final class RecordingClock: Clock {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let state = Mutex<(now: Instant, sleeps: [Duration])>((Instant(offset: .zero), []))

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .nanoseconds(1) }
    /// The durations slept, in order.
    var sleeps: [Duration] { state.withLock { $0.sleeps } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        state.withLock { state in
            state.sleeps.append(state.now.duration(to: deadline))
            state.now = max(state.now, deadline)
        }
    }
}

func jsonResponse(_ status: Int, _ json: JSONValue, headers: [CouchHTTPRequest.HeaderField] = []) -> CouchHTTPResponse {
    CouchHTTPResponse(status: status, headers: headers + [.init(name: "Content-Type", value: "application/json")],
                      body: json.serialized())
}

func requestJSON(_ request: CouchHTTPRequest) -> JSONValue? {
    request.body.flatMap { try? JSONValue(parsing: Data($0)) }
}
