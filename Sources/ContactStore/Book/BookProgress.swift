/// How far a long address-book operation has come, for progress displays: the files a scan has
/// read, the contacts an export has written, the duplicates a de-duplication has removed.
///
/// ```swift
/// let report = try await book.exportContacts(as: .vcard4, to: .file("all.vcf")) { progress in
///     print("\(progress.done) of \(progress.total)")
/// }
/// ```
public struct BookProgress: Sendable, Hashable {
    /// Items done so far.
    public var done: Int
    /// Items in all.
    public var total: Int

    /// Creates a progress value.
    public init(done: Int, total: Int) {
        self.done = done
        self.total = total
    }
}
