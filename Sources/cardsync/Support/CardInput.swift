import Dispatch
import Foundation
import VCardKit

/// Reads the cards of one input file (or standard input) in a streaming way, parsing batches of
/// cards on every core while the output keeps the input's order.
enum CardInput {
    /// What reading one input produced besides its cards.
    struct Summary {
        var path: String
        var cards = 0
        var diagnostics: [Diagnostic] = []
        var errors: Int { diagnostics.count { $0.severity == .error } }
        var warnings: Int { diagnostics.count { $0.severity == .warning } }
    }

    /// How many cards are parsed together; bounds memory to a batch of cards.
    static let batchSize = 512

    /// Reads `path` chunk by chunk. Each card is parsed and handed to `render`, which may append
    /// bytes for it (on any thread); the bytes of each batch are passed to `output` in input order.
    static func process(_ path: String,
                        render: @escaping @Sendable (VCard, inout [UInt8]) -> [Diagnostic],
                        output: ([UInt8]) throws(CommandFailure) -> Void) throws(CommandFailure) -> Summary {
        let source = try ByteSource(path: path)
        var parser = VCardParser(framingOnly: path)
        var summary = Summary(path: path)
        var frames: [VCardFrame] = []
        func flush() throws(CommandFailure) {
            guard !frames.isEmpty else { return }
            let results = parseInParallel(frames, render: render)
            frames.removeAll(keepingCapacity: true)
            for result in results {
                summary.cards += result.cards
                summary.diagnostics.append(contentsOf: result.diagnostics)
                try output(result.bytes)
            }
        }
        try source.forEachChunk { chunk throws(CommandFailure) in
            parser.feed(chunk)
            while let frame = parser.nextFrame() {
                frames.append(frame)
                if frames.count >= batchSize { try flush() }
            }
            summary.diagnostics.append(contentsOf: parser.takeDiagnostics())
        }
        parser.finish()
        while let frame = parser.nextFrame() { frames.append(frame) }
        try flush()
        summary.diagnostics.append(contentsOf: parser.takeDiagnostics())
        summary.diagnostics.sort { ($0.location.line, $0.location.column) < ($1.location.line, $1.location.column) }
        return summary
    }

    private struct PartResult: Sendable {
        var bytes: [UInt8] = []
        var diagnostics: [Diagnostic] = []
        var cards = 0
    }

    /// Splits `frames` into one contiguous part per core and parses (and renders) the parts concurrently.
    private static func parseInParallel(_ frames: [VCardFrame],
                                        render: @Sendable (VCard, inout [UInt8]) -> [Diagnostic]) -> [PartResult] {
        let workers = min(max(1, ProcessInfo.processInfo.activeProcessorCount), max(1, frames.count / 16))
        let results = UnsafeMutableBufferPointer<PartResult>.allocate(capacity: workers)
        results.initialize(repeating: PartResult())
        defer { results.deinitialize(); results.deallocate() }
        nonisolated(unsafe) let shared = results
        let per = (frames.count + workers - 1) / workers
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var part = PartResult()
            let start = worker * per
            let end = min(start + per, frames.count)
            if start < end {
                for frame in frames[start..<end] {
                    let (card, diagnostics) = frame.parse()
                    part.diagnostics.append(contentsOf: diagnostics)
                    if let card {
                        part.cards += 1
                        let notes = render(card, &part.bytes)
                        if !notes.isEmpty { part.diagnostics.append(contentsOf: notes) }
                    }
                }
            }
            shared[worker] = part
        }
        return Array(results)
    }
}
