import CLibXML2
public import VCardKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

/// Reads xCard (RFC 6351) documents through libxml2's streaming `xmlTextReader`: memory is
/// bounded by one `<vcard>` element, not by the document.
///
/// ```swift
/// let result = try XCardReader.read(Array(xml.utf8), sourceName: "contacts.xml")
/// ```
///
/// Hardened against hostile documents: no network access, no DTD loading and no entity
/// substitution; a document with a DOCTYPE or an entity reference is rejected with an error
/// (xCard needs neither), so external entities (XXE) and entity expansion ("billion laughs") can
/// do nothing. Nesting deeper than ``maximumDepth`` is rejected too.
public enum XCardReader {
    /// The deepest element nesting accepted.
    public static let maximumDepth: Int32 = 64

    /// Reads every card of an xCard document held in memory.
    /// - Throws: `VCardError` with code `strictViolation` in strict mode, at the first problem.
    public static func read(_ bytes: [UInt8], sourceName: String = "<input>",
                            options: VCardReadOptions = .lenient) throws(VCardError) -> VCardReadResult {
        var cards: [VCard] = []
        var remaining: [UInt8]? = bytes
        let diagnostics = read(chunks: { defer { remaining = nil }; return remaining }, sourceName: sourceName, options: options) {
            cards.append($0)
        }
        if options.isStrict, let first = diagnostics.first {
            throw VCardError(code: .strictViolation, message: first.message, diagnostic: first)
        }
        return VCardReadResult(cards: cards, diagnostics: diagnostics)
    }

    /// Reads an xCard file from disk card by card, handing each card to `body` as soon as its
    /// `</vcard>` is read. Returns the diagnostics.
    public static func readFile(atPath path: String, sourceName: String? = nil, options: VCardReadOptions = .lenient,
                                body: (VCard) -> Void) -> [Diagnostic] {
        let name = sourceName ?? path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            return [Diagnostic(severity: .error, code: .init(rawValue: "unreadable-file"), message: "cannot open the file",
                               location: SourceLocation(source: name, line: 1, column: 1))]
        }
        defer { close(descriptor) }
        var failed = false
        var diagnostics = read(chunks: {
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count < 0 { failed = true }
                guard count > 0 else { return nil }
                chunk.removeSubrange(count...)
                return chunk
            }
        }, sourceName: name, options: options, body: body)
        if failed {
            diagnostics.append(Diagnostic(severity: .error, code: .init(rawValue: "unreadable-file"), message: "cannot read the file",
                                          location: SourceLocation(source: name, line: 1, column: 1)))
        }
        return diagnostics
    }

    /// Reads an xCard document that arrives in chunks (standard input, a pipe, an import source),
    /// card by card: `next` returns the next chunk, or `nil` at the end; `body` receives each
    /// card as soon as its `</vcard>` is read. Returns the diagnostics.
    ///
    /// ```swift
    /// let diagnostics = XCardReader.read(chunks: { input.nextChunk() }, sourceName: "-") { card in handle(card) }
    /// ```
    ///
    /// The limits of ``XCardParser`` apply.
    public static func read(chunks next: () -> [UInt8]?, sourceName: String = "<input>",
                            options: VCardReadOptions = .lenient, body: (VCard) -> Void) -> [Diagnostic] {
        withoutActuallyEscaping(next) { next in
            // The parser, and the closure with it, ends here.
            let parser = XCardParser(sourceName: sourceName, options: options, chunks: next)
            while let card = parser.nextCard() { body(card) }
            return parser.takeDiagnostics()
        }
    }

    /// No network, no entity substitution, no DTD loading; CDATA read as text; errors collected
    /// by the reader, not printed.
    static let parserOptions = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOCDATA.rawValue
                                     | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)

    /// Entity references inside an expanded card (the reader reports them only at the top level).
    static func hostileContent(in node: xmlNodePtr) -> (String, String)? {
        var stack: [xmlNodePtr] = [node]
        while let current = stack.popLast() {
            if current.pointee.type == XML_ENTITY_REF_NODE || current.pointee.type == XML_ENTITY_NODE {
                return ("entity-rejected", "the document uses an entity reference, which xCard never needs; it was rejected")
            }
            var child = current.pointee.children
            while let next = child {
                stack.append(next)
                child = next.pointee.next
            }
        }
        return nil
    }

    static func string(_ pointer: UnsafePointer<xmlChar>?) -> String {
        guard let pointer else { return "" }
        return String(cString: pointer)
    }
}

/// Turns one `<vcard>` element into a `VCard`.
struct CardConverter {
    let sourceName: String
    let location: SourceLocation
    var diagnostics: [Diagnostic] = []

    init(sourceName: String, location: SourceLocation) {
        self.sourceName = sourceName
        self.location = location
    }

    mutating func card(from node: xmlNodePtr) -> VCard {
        var card = VCard(version: nil)
        for child in elements(of: node) {
            if localName(child) == "group" && isXCard(child) {
                let group = attribute(child, "name")
                for member in elements(of: child) {
                    if let property = property(from: member, group: group) { card.append(property) }
                }
            } else if let property = property(from: child, group: nil) {
                card.append(property)
            }
        }
        if card.first("VERSION") == nil {
            card.properties.insert(VCardProperty(name: "VERSION", rawValue: "4.0"), at: 0)
        }
        return VCard(properties: card.properties, sourceVersion: .v4_0, location: location)
    }

    private mutating func property(from node: xmlNodePtr, group: String?) -> VCardProperty? {
        guard isXCard(node) else {
            // An element of another namespace: kept in an XML property (RFC 6350 §6.1.5).
            return VCardProperty(group: group, name: "XML", text: serialize(node))
        }
        var name = localName(node).uppercased()
        if name == "X-CARDSYNC-PROPERTY", let original = attribute(node, "name") { name = original }
        var parameters: [VCardParameter] = []
        var values: [(String, String)] = []
        for child in elements(of: node) {
            let childName = localName(child)
            if childName == "parameters" && isXCard(child) {
                for parameter in elements(of: child) {
                    var parameterName = localName(parameter).uppercased()
                    if parameterName == "X-CARDSYNC-PARAMETER", let original = attribute(parameter, "name") { parameterName = original }
                    let parameterValues = elements(of: parameter).map(text)
                    parameters.append(VCardParameter(name: parameterName, values: parameterValues.isEmpty ? [text(parameter)] : parameterValues))
                }
            } else {
                values.append((childName, text(child)))
            }
        }
        if let marker = parameters.firstIndex(where: { $0.name.uppercased() == XCardVocabulary.controlMarker }) {
            parameters.remove(at: marker)
            values = values.map { ($0.0, Self.restoringControlCharacters($0.1)) }
        }
        let kind = PropertyValueKind.of(name)
        let defaultType = XCardValueTypes.defaultType(of: name)
        var raw: String
        if let components = XCardVocabulary.components(of: name), values.contains(where: { components.contains($0.0) }) {
            raw = components.map { component in
                values.filter { $0.0 == component }.map { TextEscaping.escape($0.1) }.joined(separator: ",")
            }.joined(separator: ";")
        } else if values.isEmpty {
            raw = ""
        } else {
            let type = values[0].0
            let hasValueParameter = parameters.contains { $0.name.uppercased() == "VALUE" }
            let impliedByDefault = type == defaultType
                || (defaultType == "date-and-or-time" && ["date", "date-time", "time"].contains(type))
            if !impliedByDefault && type != "unknown" && !hasValueParameter {
                parameters.append(VCardParameter(name: "VALUE", value: type))
            }
            let escapes = type == "text" && [.text, .textList, .structured, .structuredText, .embeddedCard].contains(kind)
            let separator = (kind == .structured || kind == .structuredText) ? ";" : ","
            raw = values.map { escapes ? TextEscaping.escape($0.1) : $0.1 }.joined(separator: separator)
            if type == "time" && defaultType == "date-and-or-time" && !raw.hasPrefix("T") { raw = "T" + raw }
        }
        return VCardProperty(group: group, name: name, parameters: parameters, rawValue: raw)
    }

    /// Moves U+F700…U+F71F back to the control characters the writer moved there.
    static func restoringControlCharacters(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map {
            (0xF700...0xF71F).contains($0.value) ? Unicode.Scalar($0.value - 0xF700)! : $0
        }))
    }

    private func isXCard(_ node: xmlNodePtr) -> Bool {
        guard let namespace = node.pointee.ns, let href = namespace.pointee.href else { return false }
        return String(cString: href) == XCardVocabulary.namespace
    }

    private func localName(_ node: xmlNodePtr) -> String {
        node.pointee.name.map { String(cString: $0) } ?? ""
    }

    private func attribute(_ node: xmlNodePtr, _ name: String) -> String? {
        guard let value = xmlGetProp(node, name) else { return nil }
        defer { cardsync_xml_free(value) }
        return String(cString: value)
    }

    private func elements(of node: xmlNodePtr) -> [xmlNodePtr] {
        var result: [xmlNodePtr] = []
        var child = node.pointee.children
        while let current = child {
            if current.pointee.type == XML_ELEMENT_NODE { result.append(current) }
            child = current.pointee.next
        }
        return result
    }

    private func text(_ node: xmlNodePtr) -> String {
        guard let content = xmlNodeGetContent(node) else { return "" }
        defer { cardsync_xml_free(content) }
        return String(cString: content)
    }

    private func serialize(_ node: xmlNodePtr) -> String {
        guard let buffer = xmlBufferCreate() else { return "" }
        defer { xmlBufferFree(buffer) }
        xmlNodeDump(buffer, node.pointee.doc, node, 0, 0)
        guard let content = xmlBufferContent(buffer) else { return "" }
        return String(cString: content)
    }
}


extension String {
    var trimmingWhitespace: String {
        var scalars = Substring(self)
        while let last = scalars.last, last.isWhitespace { scalars = scalars.dropLast() }
        while let first = scalars.first, first.isWhitespace { scalars = scalars.dropFirst() }
        return String(scalars)
    }
}
