/// A place in an input, as the file is written (folded lines, original line numbers).
public struct SourceLocation: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The name of the input: a file path, `-` for standard input, or a label given by the caller.
    public var source: String
    /// The 1-based physical line number.
    public var line: Int
    /// The 1-based column, counted in Unicode scalars of the physical line.
    public var column: Int

    /// Creates a location.
    public init(source: String, line: Int, column: Int) {
        self.source = source
        self.line = line
        self.column = column
    }

    public var description: String { "\(source):\(line):\(column)" }
}
