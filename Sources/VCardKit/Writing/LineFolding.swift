/// Folding of content lines at 75 octets (RFC 6350 §3.2), never inside a UTF-8 sequence.
public enum LineFolding {
    /// The longest line, in octets without the line end, that the writer emits.
    public static let maximumLineOctets = 75

    /// Appends `line` to `output`, folded with CRLF and a space, and ended with CRLF.
    ///
    /// Every physical line, including the space that starts a continuation, is at most
    /// ``maximumLineOctets`` octets; a fold never splits a UTF-8 sequence.
    public static func appendFolded(_ line: some Collection<UInt8>, to output: inout [UInt8]) {
        if line.withContiguousStorageIfAvailable({ appendFolded(bytes: $0, to: &output) }) != nil { return }
        Array(line).withUnsafeBufferPointer { appendFolded(bytes: $0, to: &output) }
    }

    private static func appendFolded(bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        let count = bytes.count
        if count <= maximumLineOctets {
            output.append(contentsOf: bytes)
            output.append(0x0D)
            output.append(0x0A)
            return
        }
        var start = 0
        var limit = maximumLineOctets
        while start < count {
            var end = min(start + limit, count)
            if end < count {
                // Back off to the start of a UTF-8 sequence.
                while end > start + 1 && bytes[end] & 0xC0 == 0x80 { end -= 1 }
            }
            if start > 0 { output.append(0x20) }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<end]))
            output.append(0x0D)
            output.append(0x0A)
            start = end
            limit = maximumLineOctets - 1
        }
    }
}
