/// The start line and header fields of one HTTP/1.1 message, as the proxy reads and rewrites them.
struct HTTPHead: Sendable {
    var startLine: String
    var fields: [(name: String, value: String)]

    /// The first field named `name` (case-insensitive).
    func value(_ name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Fields without those named in `names` (lowercase).
    func removing(_ names: Set<String>) -> HTTPHead {
        HTTPHead(startLine: startLine, fields: fields.filter { !names.contains($0.name.lowercased()) })
    }

    /// The head as bytes, ending with the blank line.
    var bytes: [UInt8] {
        var text = startLine + "\r\n"
        for field in fields { text += field.name + ": " + field.value + "\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// Whether the body is sent in chunks.
    var isChunked: Bool { value("Transfer-Encoding")?.lowercased().contains("chunked") == true }

    /// The declared body length, if any.
    var contentLength: Int? { value("Content-Length").flatMap { Int($0.trimmingWhitespace) } }

    init(startLine: String, fields: [(name: String, value: String)]) {
        self.startLine = startLine
        self.fields = fields
    }

    /// Parses the bytes before the blank line.
    init?(parsing bytes: ArraySlice<UInt8>) {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        guard !lines.isEmpty, !lines[0].isEmpty else { return nil }
        startLine = lines.removeFirst()
        fields = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            fields.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingWhitespace))
        }
    }
}

/// Reads HTTP/1.1 messages from a socket: heads, fixed-length and chunked bodies.
struct MessageReader {
    let socket: LoopbackSocket
    private var buffer: [UInt8] = []
    private var start = 0
    /// The largest head accepted.
    let headLimit = 256 * 1024

    init(socket: LoopbackSocket) {
        self.socket = socket
    }

    /// The next head, or `nil` at end of stream (or when it is malformed or too large).
    mutating func readHead() -> HTTPHead? {
        // Bytes after `start` already searched; relative, because `fill` may move the buffer.
        var searched = 0
        while true {
            if let end = headEnd(from: start + searched) {
                let head = HTTPHead(parsing: buffer[start..<end])
                start = end + 4
                return head
            }
            searched = max(0, buffer.count - start - 3)
            if buffer.count - start > headLimit { return nil }
            guard fill() else { return nil }
        }
    }

    /// Exactly `count` bytes, or `nil` if the stream ends first.
    mutating func readBody(count: Int) -> [UInt8]? {
        while buffer.count - start < count {
            guard fill() else { return nil }
        }
        let body = Array(buffer[start..<(start + count)])
        start += count
        return body
    }

    /// A chunked body, decoded (trailers are dropped), or `nil` if the stream ends first.
    mutating func readChunkedBody() -> [UInt8]? {
        var body: [UInt8] = []
        while true {
            guard let line = readLine() else { return nil }
            let sizeText = line.split(separator: ";").first.map(String.init)?.trimmingWhitespace ?? ""
            guard let size = Int(sizeText, radix: 16), size >= 0 else { return nil }
            if size == 0 {
                while let trailer = readLine(), !trailer.isEmpty {}
                return body
            }
            guard let chunk = readBody(count: size) else { return nil }
            body += chunk
            guard readLine() != nil else { return nil }
        }
    }

    /// Everything until the peer closes.
    mutating func readToEnd() -> [UInt8] {
        while fill() {}
        let rest = Array(buffer[start...])
        start = buffer.count
        return rest
    }

    /// The body that follows `head` in a message of this framing.
    mutating func readBody(after head: HTTPHead, untilCloseIfUnframed: Bool) -> [UInt8]? {
        if head.isChunked { return readChunkedBody() }
        if let length = head.contentLength { return readBody(count: length) }
        return untilCloseIfUnframed ? readToEnd() : []
    }

    private mutating func readLine() -> String? {
        while true {
            if let index = lineEnd(from: start) {
                let line = String(decoding: buffer[start..<index], as: UTF8.self)
                start = index + 2
                return line
            }
            guard fill() else { return nil }
        }
    }

    private func headEnd(from index: Int) -> Int? {
        var i = max(index, start)
        while i + 3 < buffer.count {
            if buffer[i] == 13, buffer[i + 1] == 10, buffer[i + 2] == 13, buffer[i + 3] == 10 { return i }
            i += 1
        }
        return nil
    }

    private func lineEnd(from index: Int) -> Int? {
        var i = index
        while i + 1 < buffer.count {
            if buffer[i] == 13, buffer[i + 1] == 10 { return i }
            i += 1
        }
        return nil
    }

    private mutating func fill() -> Bool {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 1 << 20 {
            buffer.removeFirst(start)
            start = 0
        }
        let bytes = socket.read()
        if bytes.isEmpty { return false }
        buffer += bytes
        return true
    }
}

extension String {
    var trimmingWhitespace: String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
