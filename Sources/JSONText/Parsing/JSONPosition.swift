/// A place in JSON text: a byte offset, and the line and column a person would see.
///
/// Lines are counted from 1 at each line feed; columns from 1 in Unicode scalars (a byte that
/// continues a UTF-8 sequence does not count). A UTF-8 byte order mark that is allowed and passed
/// over does not count either.
public struct JSONPosition: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Bytes before this place.
    public var offset: Int
    /// The line, from 1.
    public var line: Int
    /// The column, from 1.
    public var column: Int

    /// The start of a text.
    public static let start = JSONPosition(offset: 0, line: 1, column: 1)

    /// A position.
    public init(offset: Int, line: Int, column: Int) {
        self.offset = offset
        self.line = line
        self.column = column
    }

    /// `line:column`.
    public var description: String { "\(line):\(column)" }

    public static func < (lhs: JSONPosition, rhs: JSONPosition) -> Bool { lhs.offset < rhs.offset }

    /// Moves this position over `bytes`, which start here.
    mutating func advance(over bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        var line = self.line
        var column = self.column
        var index = 0
        // Eight bytes at a time while they hold no line feed: the column grows by the bytes that
        // do not continue a UTF-8 sequence (10xxxxxx).
        let raw = UnsafeRawPointer(base)
        while index + 8 <= bytes.count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let lineFeeds = word ^ 0x0A0A_0A0A_0A0A_0A0A
            if (lineFeeds &- 0x0101_0101_0101_0101) & ~lineFeeds & 0x8080_8080_8080_8080 != 0 {
                for byte in UnsafeBufferPointer(rebasing: bytes[index..<index + 8]) {
                    if byte == 0x0A {
                        line += 1
                        column = 1
                    } else if byte & 0xC0 != 0x80 {
                        column += 1
                    }
                }
            } else {
                let continuations = word & ~(word << 1) & 0x8080_8080_8080_8080
                column += 8 - continuations.nonzeroBitCount
            }
            index += 8
        }
        for byte in UnsafeBufferPointer(rebasing: bytes[index...]) {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        self.line = line
        self.column = column
        offset += bytes.count
    }

    /// Moves this position over bytes that hold neither a line feed nor anything but ASCII.
    mutating func advance(overASCIIWithoutLineFeed count: Int) {
        column += count
        offset += count
    }
}
