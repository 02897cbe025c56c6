/// Reads a `multipart/related` body as it arrives (CouchDB's replicator writes documents with
/// attachments so): the parts' headers, and their bytes handed on in pieces, never the whole
/// body in memory. Fed chunk by chunk; not `Sendable`, one request owns it.
struct MultipartRelatedReader {
    /// What reading produced.
    enum Event {
        /// A part starts, with its header lines.
        case partStarted(headers: [String: String])
        /// Bytes of the current part.
        case bytes([UInt8])
        /// The current part ended.
        case partEnded
    }

    private enum State {
        case preamble
        case headers
        case body
        case finished
    }

    private let delimiter: [UInt8]
    private var pending: [UInt8] = []
    private var state = State.preamble

    /// Whether the closing delimiter was read.
    var isFinished: Bool { if case .finished = state { true } else { false } }

    init(boundary: String) {
        delimiter = Array("\r\n--\(boundary)".utf8)
        // The first delimiter may open the body without a line end before it.
        pending = Array("\r\n".utf8)
    }

    /// The boundary of a `multipart/related; boundary="…"` Content-Type, or `nil`.
    static func boundary(ofContentType contentType: String) -> String? {
        let parts = contentType.split(separator: ";").map { $0.trimmingCharacters(in: " ") }
        guard parts.first?.lowercased() == "multipart/related" else { return nil }
        for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("boundary=") {
            var value = Substring(parameter.dropFirst("boundary=".count))
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
            return value.isEmpty ? nil : String(value)
        }
        return nil
    }

    /// Takes the next chunk of the body and returns what it completes.
    ///
    /// - Throws: ``CouchError`` `bad_request` for a part whose headers do not end.
    mutating func feed(_ chunk: [UInt8]) throws(CouchError) -> [Event] {
        pending.append(contentsOf: chunk)
        var events: [Event] = []
        while true {
            switch state {
            case .finished:
                pending.removeAll()
                return events
            case .preamble:
                guard let found = pending.firstIndex(ofBytes: delimiter) else {
                    pending.removeFirst(max(0, pending.count - delimiter.count))
                    return events
                }
                guard pending.count >= found + delimiter.count + 2 else { return events }
                let after = Array(pending[(found + delimiter.count)..<(found + delimiter.count + 2)])
                pending.removeFirst(found + delimiter.count + 2)
                state = after == Array("--".utf8) ? .finished : .headers
            case .headers:
                guard let end = pending.firstIndex(ofBytes: Array("\r\n\r\n".utf8)) else {
                    if pending.count > 64 * 1024 { throw CouchError(.badRequest, reason: "multipart part headers too long") }
                    if pending.starts(with: Array("\r\n".utf8)) {
                        // A part without headers.
                        pending.removeFirst(2)
                        events.append(.partStarted(headers: [:]))
                        state = .body
                        continue
                    }
                    return events
                }
                var headers: [String: String] = [:]
                for line in String(decoding: pending[..<end], as: UTF8.self).split(separator: "\r\n") {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: " ")
                }
                pending.removeFirst(end + 4)
                events.append(.partStarted(headers: headers))
                state = .body
            case .body:
                if let found = pending.firstIndex(ofBytes: delimiter) {
                    guard pending.count >= found + delimiter.count + 2 else { return events }
                    if found > 0 { events.append(.bytes(Array(pending[..<found]))) }
                    events.append(.partEnded)
                    let after = Array(pending[(found + delimiter.count)..<(found + delimiter.count + 2)])
                    pending.removeFirst(found + delimiter.count + 2)
                    state = after == Array("--".utf8) ? .finished : .headers
                } else {
                    // Keep what could be the start of a delimiter split across chunks.
                    let safe = pending.count - (delimiter.count - 1)
                    if safe > 0 {
                        events.append(.bytes(Array(pending[..<safe])))
                        pending.removeFirst(safe)
                    }
                    return events
                }
            }
        }
    }
}
