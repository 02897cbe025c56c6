import ContactDiff
import Foundation

extension ProgressBar.Step {
    /// The progress of reading, parsing or comparing contact sets: `reading NAME` (files),
    /// `parsing` (cards), then `comparing` under the label given (contacts or candidate pairs).
    init(_ progress: ContactDiffProgress, reading name: String, comparing: String, comparedUnit: String) {
        switch progress.step {
        case .reading:
            self.init(phase: "reading " + name, done: progress.done, total: progress.total, unit: .items("files"))
        case .parsing:
            self.init(phase: "parsing", done: progress.done, total: progress.total, unit: .items("cards"))
        case .comparing:
            self.init(phase: comparing, done: progress.done, total: progress.total, unit: .items(comparedUnit))
        }
    }
}
