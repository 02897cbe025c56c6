import Dispatch
import Foundation
import VCardKit
import VCardXML

/// Reads the cards of one input file (or standard input) in a streaming way, parsing batches of
/// cards on every core while the output keeps the input's order.
enum CardInput {
    /// What reading one input produced besides its cards.
    struct Summary {
        var path: String
        var format: ContactFormat = .vcard
        var cards = 0
        var diagnostics: [Diagnostic] = []
        /// The blank lines after the last card of vCard text, as read.
        var blankLinesAtEnd: [UInt8] = []
        var errors: Int { diagnostics.count { $0.severity == .error } }
        var warnings: Int { diagnostics.count { $0.severity == .warning } }
    }

    /// How many cards are parsed together; with ``batchesInFlight``, bounds memory.
    static let batchSize = 512

    /// How many batches are parsed at once (on every core) while the reading thread finds the next.
    static let batchesInFlight = 2

    /// Reads `path` chunk by chunk. Each card is parsed and handed to `render`, which may append
    /// bytes for it (on any thread); the bytes of each batch are passed to `output` in input order.
    /// `progress` is told the bytes read (of the file's size, when it has one) and the cards.
    /// `options` apply to vCard text (lenient reading, or ``VCardReadOptions/validation``).
    static func process(_ path: String, options: VCardReadOptions = .lenient, progress: ProgressBar? = nil,
                        render: @escaping @Sendable (VCard, inout [UInt8]) -> [Diagnostic],
                        output: ([UInt8]) throws(CommandFailure) -> Void) throws(CommandFailure) -> Summary {
        let source = try ByteSource(path: path)
        let reading = ReadingProgress(bar: progress, path: path, size: source.size)
        var first: [UInt8] = []
        try source.read(into: &first)
        reading.read(first.count, cards: 0)
        let format = ContactFormat.detect(first.prefix(256))
        if format != .vcard {
            return try processDocument(path, format: format, source: source, first: first, reading: reading, render: render, output: output)
        }
        var parser = VCardParser(framingOnly: path, options: options)
        var summary = Summary(path: path)
        var frames: [VCardFrame] = []
        // The batches being parsed on the other threads, oldest first, while this one finds the
        // cards of the next. Two at a time: the cores start on the next batch while the last
        // parts of the older one finish, instead of waiting at every batch's end.
        var inFlight: [BatchInFlight] = []
        let threads = BatchThreads(count: batchesInFlight)
        func emit(_ parts: [PartResult]) throws(CommandFailure) {
            for result in parts {
                summary.cards += result.cards
                summary.diagnostics.append(contentsOf: result.diagnostics)
                try output(result.bytes)
            }
            reading.read(0, cards: summary.cards)
        }
        func flush() throws(CommandFailure) {
            guard !frames.isEmpty else { return }
            // The oldest batch's output is written while the batch started here is parsed.
            let oldest = inFlight.count >= batchesInFlight ? inFlight.removeFirst().results() : nil
            inFlight.append(BatchInFlight(frames, render: render, on: threads))
            frames = []
            frames.reserveCapacity(batchSize)
            if let oldest { try emit(oldest) }
        }
        func consume(_ chunk: [UInt8]) throws(CommandFailure) {
            parser.feed(chunk)
            try takeFrames()
        }
        func takeFrames() throws(CommandFailure) {
            while let frame = parser.nextFrame() {
                frames.append(frame)
                if frames.count >= batchSize { try flush() }
            }
            summary.diagnostics.append(contentsOf: parser.takeDiagnostics())
        }
        if !first.isEmpty { try consume(first) }
        // The rest is read straight into the parser's buffer.
        while true {
            let count = try parser.feed(readingUpTo: 1 << 20) { room throws(CommandFailure) in try source.read(into: room) }
            if count == 0 { break }
            reading.read(count, cards: summary.cards)
            try takeFrames()
        }
        parser.finish()
        while let frame = parser.nextFrame() { frames.append(frame) }
        try flush()
        while !inFlight.isEmpty { try emit(inFlight.removeFirst().results()) }
        summary.diagnostics.append(contentsOf: parser.takeDiagnostics())
        summary.blankLinesAtEnd = parser.blankLinesAtEnd
        summary.diagnostics.sort { ($0.location.line, $0.location.column) < ($1.location.line, $1.location.column) }
        return summary
    }

    /// jCard and xCard inputs, card by card: jCard through `JCardParser`, an xCard file or standard
    /// input through libxml2's streaming reader; memory stays bounded by one card.
    private static func processDocument(_ path: String, format: ContactFormat, source: borrowing ByteSource, first: [UInt8],
                                        reading: ReadingProgress, render: (VCard, inout [UInt8]) -> [Diagnostic],
                                        output: ([UInt8]) throws(CommandFailure) -> Void) throws(CommandFailure) -> Summary {
        var summary = Summary(path: path, format: format)
        var pending: [UInt8] = []
        var failure: CommandFailure?
        func handle(_ card: VCard) {
            guard failure == nil else { return }
            summary.cards += 1
            reading.read(0, cards: summary.cards)
            let notes = render(card, &pending)
            summary.diagnostics.append(contentsOf: notes)
            if pending.count >= 1 << 20 {
                do { try output(pending) } catch { failure = error }
                pending.removeAll(keepingCapacity: true)
            }
        }
        if format == .xcard && path != "-" {
            // libxml2 reads the file itself: progress in cards only.
            reading.countsCardsOnly()
            summary.diagnostics += XCardReader.readFile(atPath: path, sourceName: path, body: handle)
        } else if format == .xcard {
            var head: [UInt8]? = first
            var readFailure: CommandFailure?
            summary.diagnostics += XCardReader.read(chunks: {
                if let chunk = head { head = nil; return chunk }
                guard readFailure == nil, failure == nil else { return nil }
                var chunk: [UInt8] = []
                do throws(CommandFailure) { try source.read(into: &chunk) } catch { readFailure = error }
                reading.read(chunk.count, cards: summary.cards)
                return chunk.isEmpty ? nil : chunk
            }, sourceName: path, body: handle)
            if let readFailure { throw readFailure }
        } else {
            var parser = JCardParser(sourceName: path)
            func consume(_ chunk: [UInt8]) throws(CommandFailure) {
                parser.feed(chunk)
                while let card = parser.nextCard() { handle(card) }
                summary.diagnostics += parser.takeDiagnostics()
                if let failure { throw failure }
            }
            try consume(first)
            try source.forEachChunk { chunk throws(CommandFailure) in
                reading.read(chunk.count, cards: summary.cards)
                try consume(chunk)
            }
            parser.finish()
            while let card = parser.nextCard() { handle(card) }
            summary.diagnostics += parser.takeDiagnostics()
        }
        if let failure { throw failure }
        if !pending.isEmpty { try output(pending) }
        return summary
    }

    /// A batch of cards parsed and rendered on a background thread (itself spreading the work
    /// over every core) while the caller finds the cards of the next batch; ``results()`` waits
    /// for it.
    private final class BatchInFlight: @unchecked Sendable {
        // `parts` is written once on the background thread before `done` is signalled, and read
        // only after waiting for `done`: the semaphore orders the two accesses.
        private var parts: [PartResult] = []
        private let done = DispatchSemaphore(value: 0)

        init(_ frames: [VCardFrame], render: @escaping @Sendable (VCard, inout [UInt8]) -> [Diagnostic], on threads: BatchThreads) {
            threads.run { [self] in
                parts = CardInput.parseInParallel(frames, render: render)
                done.signal()
            }
        }

        /// The parts of the batch, in input order, once they are ready.
        func results() -> [PartResult] {
            done.wait()
            return parts
        }
    }

    /// The background threads of the batches in flight, one a batch, started once for an input
    /// and taken in turn: batch `n` goes to thread `n % count`, whose batch before it (`n - count`)
    /// was waited for before batch `n` was made. (A thread of its own per batch was 195 threads
    /// for 100,000 cards.)
    ///
    /// They are threads of their own, not blocks on Dispatch's global queue: the caller runs on a
    /// thread of that pool too (the command is an async task), and on Linux the pool, which holds
    /// as many threads as there are cores, counts a thread blocked in ``BatchInFlight/results()``
    /// as busy. With a batch on the pool's other thread, `concurrentPerform` found no free thread
    /// and parsed every part one after the other on one core (`perf`: 94% of the parsing samples
    /// on one thread while the reader waited).
    private final class BatchThreads: @unchecked Sendable {
        /// One thread and the job it is given; it ends once stopped (after a job given before).
        private final class Worker: @unchecked Sendable {
            private let lock = NSLock()
            private let wake = DispatchSemaphore(value: 0)
            private var job: (@Sendable () -> Void)?
            private var stopping = false

            init() {
                let thread = Thread { [self] in
                    while true {
                        wake.wait()
                        let (next, stop) = lock.withLock {
                            defer { job = nil }
                            return (job, stopping)
                        }
                        next?()
                        if stop { return }
                    }
                }
                thread.stackSize = 8 << 20
                thread.start()
            }

            func run(_ job: @escaping @Sendable () -> Void) {
                lock.withLock { self.job = job }
                wake.signal()
            }

            func stop() {
                lock.withLock { stopping = true }
                wake.signal()
            }
        }

        private let workers: [Worker]
        private var turn = 0

        init(count: Int) {
            workers = (0..<max(1, count)).map { _ in Worker() }
        }

        /// Runs `job` on the next thread in turn.
        func run(_ job: @escaping @Sendable () -> Void) {
            workers[turn].run(job)
            turn = (turn + 1) % workers.count
        }

        deinit {
            for worker in workers { worker.stop() }
        }
    }

    private struct PartResult: Sendable {
        var bytes: [UInt8] = []
        var diagnostics: [Diagnostic] = []
        var cards = 0
    }

    /// Splits `frames` into contiguous parts, four per core, and parses (and renders) the parts
    /// concurrently. Each core takes the next part when it is done with one: cards differ in size
    /// (a photo weighs as much as hundreds of plain cards), and the reading thread shares a core,
    /// so one part per core left a core idle while the other finished a heavier part.
    private static func parseInParallel(_ frames: [VCardFrame],
                                        render: @Sendable (VCard, inout [UInt8]) -> [Diagnostic]) -> [PartResult] {
        let workers = min(max(1, 4 * ProcessInfo.processInfo.activeProcessorCount), max(1, frames.count / 16))
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
                // Room for the part's output, about the size of its input: it is not regrown.
                part.bytes.reserveCapacity(frames[start..<end].reduce(0) { $0 + $1.text.count } * 9 / 8)
                // Through the buffer: each frame is parsed in place, not copied out of the array.
                frames.withUnsafeBufferPointer { frames in
                    for index in start..<end {
                        let (card, diagnostics) = frames[index].parse()
                        part.diagnostics.append(contentsOf: diagnostics)
                        if let card {
                            part.cards += 1
                            let notes = render(card, &part.bytes)
                            if !notes.isEmpty { part.diagnostics.append(contentsOf: notes) }
                        }
                    }
                }
            }
            shared[worker] = part
        }
        return Array(results)
    }
}

/// The progress of reading one input, by bytes (with a bar when the input is a file of known
/// size) and cards. Called on the reading thread only.
final class ReadingProgress {
    private let bar: ProgressBar?
    private let phase: String
    private let size: Int?
    private var bytes = 0
    private var cardsOnly = false

    init(bar: ProgressBar?, path: String, size: Int?) {
        self.bar = (bar?.isShown ?? false) ? bar : nil
        phase = "converting " + (path == "-" ? "standard input" : URL(fileURLWithPath: path).lastPathComponent)
        self.size = size
    }

    /// From now on, counts cards only (the bytes are read elsewhere).
    func countsCardsOnly() { cardsOnly = true }

    /// `count` more bytes read; `cards` cards so far.
    func read(_ count: Int, cards: Int) {
        guard let bar else { return }
        bytes += count
        if cardsOnly {
            bar.update(ProgressBar.Step(phase: phase, done: cards, unit: .items("cards")))
        } else {
            bar.update(ProgressBar.Step(phase: phase, done: bytes, total: size, unit: .bytes, detail: "\(cards) cards"))
        }
    }
}
