import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The progress line of a long command on standard error:
///
/// ```
/// importing big.vcf [############..................] 2.1/5.2 MB 40% 3.4 MB/s 0:01 ETA 0:02 · 1200 cards, 1200 added
/// scanning [###########################...] 2750/3000 91% 5120 files/s 0:00 ETA 0:00
/// reading changes 1200 changes 2400 changes/s 0:00
/// ```
///
/// It is drawn only when standard error is a terminal and the command prints text (never when
/// piped, redirected or with `--format json`), so scripts and logs never see it. Updates may come
/// from any thread, as often as once per card: each one takes a lock and compares a clock, and
/// the line is redrawn at most ten times a second — at once for the first update of a phase and
/// when a phase reaches its total, so that the start and the end of every phase are shown. Other
/// text on standard error (``StandardError/print(_:)``) clears the line first; ``finish()``
/// clears it for good.
///
/// `@unchecked Sendable`: every stored property that changes is guarded by `lock`.
final class ProgressBar: @unchecked Sendable {
    /// What a phase counts.
    enum Unit: Sendable, Equatable {
        /// Items, named in the plural: `cards`, `files`, `contacts`.
        case items(String)
        /// Bytes, shown (and their rate) in MB.
        case bytes
    }

    /// One update: where the work is.
    struct Step: Sendable {
        /// What is being done, e.g. `scanning` or `importing big.vcf`; a new phase starts a new count.
        var phase: String
        /// Units done in this phase.
        var done: Int
        /// Units in this phase, when known (only then is a bar drawn).
        var total: Int?
        /// What `done` and `total` count.
        var unit: Unit
        /// More counts, shown after the rest when they fit: `1200 cards, 3 duplicates`.
        var detail: String?
    }

    /// The shortest time between two redraws within a phase.
    static let redrawInterval: UInt64 = 100_000_000
    /// The widest bar, in characters.
    static let barWidth = 30

    /// Whether the bar draws anything.
    let isShown: Bool

    private let lock = NSLock()
    private var current: Step?
    /// When the current phase began: when the previous one was last heard of (its work ended
    /// there), or when the bar was made.
    private var phaseStart: UInt64
    /// The first update of the current phase, which the rate is measured from.
    private var firstDone = 0
    private var firstTime: UInt64 = 0
    private var lastUpdate: UInt64
    private var lastDraw: UInt64 = 0
    private var drawnDone: Int?
    /// The bar width of the current phase: it narrows when the line would not fit, never widens back.
    private var width = ProgressBar.barWidth
    private var isFinished = false

    /// A bar that draws when `isShown`.
    init(isShown: Bool) {
        self.isShown = isShown
        phaseStart = DispatchTime.now().uptimeNanoseconds
        lastUpdate = phaseStart
    }

    /// The bar of a command that prints its results in `format`: shown when standard error is a
    /// terminal that can move its cursor (`TERM` is not `dumb`) and the format is text. A command
    /// that writes its results to standard output while it works (`convert -o -`) passes
    /// `writesToStandardOutput`: then a standard output on the same screen hides the bar too.
    convenience init(format: OutputFormat, writesToStandardOutput: Bool = false) {
        self.init(isShown: format == .text && StandardError.isTerminal
                  && ProcessInfo.processInfo.environment["TERM"] != "dumb"
                  && !(writesToStandardOutput && StandardError.isOutputTerminal))
    }

    /// A callback for a library's progress values, or `nil` when the bar is not shown (so the
    /// library does no progress work at all).
    func reporter<Value>(_ step: @escaping @Sendable (Value) -> Step) -> (@Sendable (Value) -> Void)? {
        guard isShown else { return nil }
        return { [self] value in update(step(value)) }
    }

    /// Records `step` and redraws the line when it is time to. A step with a total of zero
    /// (nothing to do) is not shown.
    func update(_ step: Step) {
        guard isShown, step.total != 0 else { return }
        lock.lock()
        defer { lock.unlock() }
        guard !isFinished else { return }
        // Read under the lock: the times of successive updates never go back.
        let now = DispatchTime.now().uptimeNanoseconds
        if let current, current.phase == step.phase, current.unit == step.unit {
            // Updates from several threads may arrive out of order: the count never goes back.
            guard step.done >= current.done else { return }
        } else {
            if current != nil { phaseStart = lastUpdate }
            firstDone = step.done
            firstTime = now
            drawnDone = nil
            lastDraw = 0
            width = Self.barWidth
        }
        current = step
        lastUpdate = now
        let reachedTotal = step.total.map { step.done >= $0 } ?? false
        let due = drawnDone == nil || (reachedTotal && drawnDone != step.done) || now - lastDraw >= Self.redrawInterval
        guard due else { return }
        lastDraw = now
        drawnDone = step.done
        let measured = Double(now - firstTime) / 1e9
        let rate = measured >= 0.001 && step.done > firstDone ? Double(step.done - firstDone) / measured : nil
        let (line, barWidth) = Self.line(for: step, rate: rate, elapsed: Double(now - phaseStart) / 1e9,
                                         width: Self.terminalWidth(), barWidth: width)
        width = barWidth
        TerminalLine.shared.draw(line)
    }

    /// Clears the line; later updates draw nothing.
    func finish() {
        guard isShown else { return }
        lock.lock()
        defer { lock.unlock() }
        isFinished = true
        TerminalLine.shared.clear()
    }

    // MARK: - The text of the line

    /// The line for `step` at `rate` units a second (when known), `elapsed` seconds into its
    /// phase, in at most `width - 1` characters (a full last column makes some terminals wrap):
    /// the bar narrows from `barWidth` down to 10, then the detail goes, then the phase is
    /// shortened from its start. Returns the line and the bar width used.
    static func line(for step: Step, rate: Double?, elapsed: Double, width: Int, barWidth: Int = barWidth) -> (String, Int) {
        let done = max(0, step.done)
        var counts = step.unit == .bytes ? megabytes(done) : String(done)
        var share = ""
        var eta = ""
        if let total = step.total {
            counts += "/" + (step.unit == .bytes ? megabytes(total) : String(total))
            share = total > 0 ? " \(min(100, done * 100 / total))%" : " 100%"
            if let rate, rate > 0, done < total { eta = " ETA " + duration(Double(total - done) / rate) }
        }
        switch step.unit {
        case .bytes: counts += " MB"
        case .items(let noun): if step.total == nil { counts += " " + noun }
        }
        let rateText = rate.map { rate in
            switch step.unit {
            case .bytes: " " + String(format: "%.1f", rate / 1_000_000) + " MB/s"
            case .items(let noun): " \(Int(rate.rounded())) \(noun)/s"
            }
        } ?? ""
        let stats = " " + counts + share + rateText + " " + duration(elapsed) + eta
        let room = max(20, width - 1)
        func bar(_ width: Int) -> String {
            guard let total = step.total else { return "" }
            let filled = total > 0 ? min(width, done * width / total) : width
            return " [" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
        }
        var label = step.phase
        var barWidth = barWidth
        var tail = step.detail.map { " · " + $0 } ?? ""
        func length() -> Int { label.count + bar(barWidth).count + stats.count + tail.count }
        while length() > room && barWidth > 10 { barWidth -= 1 }
        if length() > room { tail = "" }
        if length() > room {
            let keep = max(0, room - (length() - label.count) - 1)
            label = "…" + String(label.suffix(keep))
        }
        return (label + bar(barWidth) + stats + tail, barWidth)
    }

    /// `1.2` (MB, one decimal).
    static func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f", Double(bytes) / 1_000_000)
    }

    /// `0:07`, `12:30`, `1:02:03`.
    static func duration(_ seconds: Double) -> String {
        let total = Int(min(seconds, 360_000).rounded(.down))
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        let twoDigits = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(secs))" : "\(minutes):\(twoDigits(secs))"
    }

    /// The width of the terminal on standard error, 80 when it does not say.
    static func terminalWidth() -> Int {
        var size = winsize()
        #if os(Linux)
        let request = UInt(TIOCGWINSZ)
        #else
        let request = TIOCGWINSZ
        #endif
        let status = withUnsafeMutablePointer(to: &size) { ioctl(2, request, $0) }
        guard status == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }
}
