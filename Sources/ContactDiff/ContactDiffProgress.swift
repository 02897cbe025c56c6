/// How far reading, comparing or finding duplicates has come, for progress displays.
///
/// ```swift
/// let set = try ContactSetReader.read(path: "~/contacts") { progress in
///     print(progress.step, progress.done, "of", progress.total)
/// }
/// ```
public struct ContactDiffProgress: Sendable, Hashable {
    /// What is being done.
    public enum Step: String, Sendable, Hashable {
        /// Reading the files of a folder (counted in files).
        case reading
        /// Parsing cards (counted in cards).
        case parsing
        /// Comparing pairs of contacts: candidate pairs of duplicates, or paired contacts of a diff.
        case comparing
    }

    /// What is being done.
    public var step: Step
    /// Items of this step done so far.
    public var done: Int
    /// Items in this step.
    public var total: Int

    /// Creates a progress value.
    public init(step: Step, done: Int, total: Int) {
        self.step = step
        self.done = done
        self.total = total
    }
}
