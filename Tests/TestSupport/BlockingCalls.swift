import Dispatch
public import Testing

/// A trait for tests that make blocking calls — run a `cardsync` process and wait for it
/// (``CLIRunner``), wait for a server process, sleep a thread — so that they run on threads of
/// their own rather than Swift concurrency's cooperative pool.
///
/// The pool has one thread per core, two on the project's machine, and tests run in parallel
/// on it: two tests blocked in `waitUntilExit()` held both threads while the cores had work
/// to spare, and every other test waited. A full `swift test` took 250 and 264 s without this
/// trait and 227 s with it (2026-12-07, one run each).
///
/// ```swift
/// @Suite(.blockingCalls) struct SyncCommandLineTests { … }
/// ```
public struct BlockingCallsTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// Each test case's body, not the suite around it.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(BlockingCallsExecutor.shared) {
            try await function()
        }
    }
}

extension Trait where Self == BlockingCallsTrait {
    /// The test or suite makes blocking calls; see ``BlockingCallsTrait``.
    public static var blockingCalls: Self { BlockingCallsTrait() }
}

/// Runs jobs on Dispatch's global queue, which adds threads while its threads are blocked
/// (the cooperative pool does not).
final class BlockingCallsExecutor: TaskExecutor {
    static let shared = BlockingCallsExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        DispatchQueue.global().async { job.runSynchronously(on: executor) }
    }
}
