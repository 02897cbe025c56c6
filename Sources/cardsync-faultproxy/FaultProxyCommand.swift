import ArgumentParser
import FaultInjection
import Foundation

/// `cardsync-faultproxy`: runs a ``FaultProxy`` until interrupted, for scripts and manual tests.
@main
struct FaultProxyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cardsync-faultproxy",
        abstract: "Forwards HTTP on the loopback interface to a local server, injecting faults.",
        discussion: """
        Prints `listening on http://127.0.0.1:PORT` on stdout once ready, and fault counts on stderr \
        when stopped (SIGINT or SIGTERM).

          cardsync-faultproxy --upstream http://127.0.0.1:5984 --fault-rate 0.2 --seed 7
        """
    )

    @Option(help: "The server to forward to: http://127.0.0.1:PORT or http://localhost:PORT.")
    var upstream: String

    @Option(help: "The port to listen on (0: a free one).")
    var port: Int = 0

    @Option(help: "The probability that a request is hit by a fault, 0...1.")
    var faultRate: Double = 0.2

    @Option(help: "The seed of the fault decisions.")
    var seed: UInt64 = 1

    @Option(help: "Comma-separated fault kinds, or 'all'. Kinds: \(FaultKind.allCases.map(\.rawValue).joined(separator: ", ")).")
    var faults: String = "all"

    @Option(help: "Seconds a stalled request is held before its connection closes.")
    var stallSeconds: Double = 2

    func validate() throws {
        guard (0...1).contains(faultRate) else { throw ValidationError("--fault-rate must be between 0 and 1") }
        _ = try kinds()
    }

    private func kinds() throws -> [FaultKind] {
        if faults == "all" { return FaultKind.allCases }
        return try faults.split(separator: ",").map { name in
            guard let kind = FaultKind(rawValue: String(name)) else {
                throw ValidationError("unknown fault kind '\(name)'")
            }
            return kind
        }
    }

    func run() async throws {
        var configuration = try FaultProxy.Configuration(upstream: upstream, listenPort: port, faultRate: faultRate,
                                                         kinds: try kinds(), seed: seed)
        configuration.stallDuration = .milliseconds(Int(stallSeconds * 1000))
        let proxy = try FaultProxy(configuration: configuration)
        proxy.start()
        FileHandle.standardOutput.write(Data("listening on \(proxy.url)\n".utf8))
        let signals = AsyncStream<Int32> { continuation in
            let sources = [SIGINT, SIGTERM].map { signalNumber in
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
                source.setEventHandler { continuation.yield(signalNumber) }
                source.resume()
                return source
            }
            nonisolated(unsafe) let retained = sources
            continuation.onTermination = { _ in retained.forEach { $0.cancel() } }
        }
        for await _ in signals { break }
        proxy.stop()
        let statistics = proxy.statistics
        let counts = statistics.faults.sorted { $0.key.rawValue < $1.key.rawValue }
            .map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: " ")
        FileHandle.standardError.write(Data(
            "requests=\(statistics.requests) clean=\(statistics.forwardedCleanly) faults=\(statistics.totalFaults) \(counts)\n".utf8))
    }
}
