import CLibXML2
public import VCardKit

/// A streaming xCard reader that pulls its input in chunks and hands out one card at a time,
/// through libxml2's `xmlTextReader` fed by a read callback: memory is bounded by one `<vcard>`
/// element and libxml2's buffer, not by the document.
///
/// ```swift
/// let parser = XCardParser(sourceName: "-", chunks: { input.nextChunk() })
/// while let card = parser.nextCard() { handle(card) }
/// for diagnostic in parser.takeDiagnostics() { print(diagnostic) }
/// ```
///
/// The hardening of ``XCardReader`` applies (no DOCTYPE, no entities, no network, nesting
/// limit). A `<vcard>` element larger than ``VCardReadOptions/maximumCardBytes`` stops reading
/// with a `limit-exceeded` error at its line: libxml2 builds an element before it can be passed
/// over, so the input is cut off there rather than read on. More than
/// ``VCardReadOptions/maximumCards`` cards stop reading too. The parser owns a libxml2 reader and
/// is used from one task at a time.
public final class XCardParser {
    /// The name used in diagnostics.
    public let sourceName: String
    /// The limits applied (strictness is the caller's: see ``XCardReader/read(_:sourceName:options:)``).
    public let options: VCardReadOptions

    private let input: ChunkInput
    private let reader: xmlTextReaderPtr?
    private var status: Int32 = 1
    private var started = false
    private var isDone = false
    private var cardCount = 0
    private var sawRoot = false
    private var diagnostics: [Diagnostic] = []

    /// Creates a parser that calls `next` for each chunk of input (`nil` at the end).
    public init(sourceName: String = "<input>", options: VCardReadOptions = .lenient, chunks next: @escaping () -> [UInt8]?) {
        self.sourceName = sourceName
        self.options = options
        input = ChunkInput(next: next, maximumCardBytes: options.maximumCardBytes)
        let context = Unmanaged.passUnretained(input).toOpaque()
        reader = xmlReaderForIO({ context, buffer, length in
            guard let context, let buffer else { return -1 }
            return Unmanaged<ChunkInput>.fromOpaque(context).takeUnretainedValue().fill(buffer, Int(length))
        }, { _ in 0 }, context, nil, nil, XCardReader.parserOptions)
        if reader == nil {
            isDone = true
            diagnostics.append(Diagnostic(severity: .error, code: .init(rawValue: "invalid-xml"), message: "the input is empty or not XML",
                                          location: SourceLocation(source: sourceName, line: 1, column: 1)))
        }
    }

    deinit {
        if let reader { xmlFreeTextReader(reader) }
    }

    /// Returns and forgets the diagnostics collected so far.
    public func takeDiagnostics() -> [Diagnostic] {
        defer { diagnostics.removeAll() }
        return diagnostics
    }

    /// The next card, or `nil` at the end of the input (or where reading stopped).
    public func nextCard() -> VCard? {
        guard !isDone, let reader else { return nil }
        if !started {
            started = true
            status = xmlTextReaderRead(reader)
        }
        /// The current node's own line (the parser may have read ahead of it, by as much as the
        /// chunks allow); libxml2 keeps it in 16 bits, so past 65534 the parser's line is used.
        func location() -> SourceLocation {
            let line = xmlTextReaderCurrentNode(reader).map { Int(xmlGetLineNo($0)) } ?? 0
            if line > 0 && line < 65535 { return SourceLocation(source: sourceName, line: line, column: 1) }
            return SourceLocation(source: sourceName, line: Int(max(1, xmlTextReaderGetParserLineNumber(reader))),
                                  column: Int(max(1, xmlTextReaderGetParserColumnNumber(reader))))
        }
        func stop(_ code: String, _ message: String, at place: SourceLocation? = nil) -> VCard? {
            diagnostics.append(Diagnostic(severity: .error, code: .init(rawValue: code), message: message, location: place ?? location()))
            isDone = true
            return nil
        }
        while status == 1 {
            let type = xmlTextReaderNodeType(reader)
            if type == Int32(XML_READER_TYPE_DOCUMENT_TYPE.rawValue) {
                return stop("doctype-rejected", "the document declares a DOCTYPE, which xCard never needs; it was rejected so that no entity can be expanded or fetched")
            }
            if type == Int32(XML_READER_TYPE_ENTITY_REFERENCE.rawValue) {
                return stop("entity-rejected", "the document uses an entity reference, which xCard never needs; it was rejected")
            }
            if xmlTextReaderDepth(reader) > XCardReader.maximumDepth {
                return stop("limit-exceeded", "elements nest deeper than \(XCardReader.maximumDepth) levels; reading stopped")
            }
            if type == Int32(XML_READER_TYPE_ELEMENT.rawValue) {
                let localName = XCardReader.string(xmlTextReaderConstLocalName(reader))
                let namespace = XCardReader.string(xmlTextReaderConstNamespaceUri(reader))
                if !sawRoot {
                    sawRoot = true
                    if namespace != XCardVocabulary.namespace {
                        return stop("not-xcard", "the root element <\(localName)> is not in the xCard namespace \(XCardVocabulary.namespace)")
                    }
                }
                if localName == "vcard" && namespace == XCardVocabulary.namespace {
                    let cardLocation = location()
                    if cardCount == options.maximumCards {
                        return stop("limit-exceeded", "more than \(options.maximumCards) cards; the rest were not read", at: cardLocation)
                    }
                    input.cardStart = input.delivered
                    let expanded = xmlTextReaderExpand(reader)
                    input.cardStart = nil
                    if input.exceededCardLimit {
                        return stop("limit-exceeded", "card \(cardCount + 1) is larger than \(options.maximumCardBytes) bytes; reading stopped here",
                                    at: cardLocation)
                    }
                    guard let node = expanded else {
                        status = -1
                        break
                    }
                    if let problem = XCardReader.hostileContent(in: node) {
                        return stop(problem.0, problem.1)
                    }
                    var converter = CardConverter(sourceName: sourceName, location: cardLocation)
                    let card = converter.card(from: node)
                    diagnostics.append(contentsOf: converter.diagnostics)
                    cardCount += 1
                    // Skip the card's subtree; the memory it used is released as the reader moves on.
                    status = xmlTextReaderNext(reader)
                    return card
                }
            }
            status = xmlTextReaderRead(reader)
        }
        isDone = true
        if status < 0 {
            let error = xmlGetLastError()
            let message = error.flatMap { $0.pointee.message }.map { String(cString: $0).trimmingWhitespace } ?? "malformed XML"
            let line = error.map { Int($0.pointee.line) } ?? 0
            diagnostics.append(Diagnostic(severity: .error, code: .init(rawValue: "invalid-xml"),
                                          message: "not well-formed XML: \(message); reading stopped here",
                                          location: line > 0 ? SourceLocation(source: sourceName, line: line, column: 1) : location()))
        }
        if cardCount == 0 && !diagnostics.contains(where: { $0.severity == .error }) {
            diagnostics.append(Diagnostic(severity: .warning, code: .init(rawValue: "empty-input"),
                                          message: "the xCard document holds no <vcard>",
                                          location: SourceLocation(source: sourceName, line: 1, column: 1)))
        }
        return nil
    }
}

/// Hands libxml2 the chunks of an input, and stops it when one card grows past the limit.
private final class ChunkInput {
    let next: () -> [UInt8]?
    let maximumCardBytes: Int
    var chunk: [UInt8] = []
    var offset = 0
    /// The bytes handed to libxml2 so far.
    var delivered = 0
    /// What had been handed over when the current `<vcard>` began; the limit is checked against
    /// the bytes handed over since (exact to within libxml2's read-ahead of a few KiB).
    var cardStart: Int?
    var exceededCardLimit = false

    init(next: @escaping () -> [UInt8]?, maximumCardBytes: Int) {
        self.next = next
        self.maximumCardBytes = maximumCardBytes
    }

    func fill(_ buffer: UnsafeMutablePointer<CChar>, _ length: Int) -> Int32 {
        if let cardStart, delivered - cardStart > maximumCardBytes {
            exceededCardLimit = true
            return -1
        }
        while offset == chunk.count {
            guard let more = next() else { return 0 }
            chunk = more
            offset = 0
        }
        let count = min(length, chunk.count - offset)
        chunk.withUnsafeBytes { bytes in
            UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
        }
        offset += count
        delivered += count
        return Int32(count)
    }
}
