import CLibXML2
public import VCardKit

/// Validation of xCard documents against a RELAX NG schema (`Schemas/xcard.rng` or the strict
/// `Schemas/xcard-rfc6351.rng`) through libxml2.
///
/// ```swift
/// let schema = try XCardSchema(contentsOf: "Schemas/xcard.rng")
/// let problems = schema.validate(xmlBytes, sourceName: "contacts.xml")   // [] when valid
/// ```
public final class XCardSchema: @unchecked Sendable {
    // libxml2's compiled schema is immutable after parsing; each validation makes its own
    // context, so sharing the schema between threads needs no lock.
    private let schema: xmlRelaxNGPtr
    /// The schema file.
    public let path: String

    /// Loads and compiles a RELAX NG schema in XML syntax.
    /// - Throws: `VCardError` when the file cannot be read or is not a valid schema.
    public init(contentsOf path: String) throws(VCardError) {
        self.path = path
        guard let context = xmlRelaxNGNewParserCtxt(path) else {
            throw VCardError(code: .init(rawValue: "schema-unreadable"), message: "\(path): cannot read the RELAX NG schema")
        }
        defer { xmlRelaxNGFreeParserCtxt(context) }
        xmlRelaxNGSetParserStructuredErrors(context, { _, _ in }, nil)
        guard let parsed = xmlRelaxNGParse(context) else {
            throw VCardError(code: .init(rawValue: "schema-invalid"), message: "\(path): not a valid RELAX NG schema")
        }
        schema = parsed
    }

    deinit {
        xmlRelaxNGFree(schema)
    }

    /// Validates an xCard document; returns one error diagnostic per violation (empty when valid).
    public func validate(_ bytes: [UInt8], sourceName: String = "<input>") -> [Diagnostic] {
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        let document = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                xmlReadMemory($0, Int32(buffer.count), nil, nil, options)
            }
        }
        guard let document else {
            return [Diagnostic(severity: .error, code: .init(rawValue: "invalid-xml"), message: "not well-formed XML",
                               location: SourceLocation(source: sourceName, line: 1, column: 1))]
        }
        defer { xmlFreeDoc(document) }
        guard let context = xmlRelaxNGNewValidCtxt(schema) else { return [] }
        defer { xmlRelaxNGFreeValidCtxt(context) }
        final class Collector {
            var items: [(String, Int)] = []
        }
        let collector = Collector()
        let unmanaged = Unmanaged.passUnretained(collector)
        xmlRelaxNGSetValidStructuredErrors(context, { userData, error in
            guard let userData, let error else { return }
            let collector = Unmanaged<Collector>.fromOpaque(userData).takeUnretainedValue()
            let message = error.pointee.message.map { String(cString: $0) } ?? "invalid"
            collector.items.append((message.trimmingWhitespace, Int(error.pointee.line)))
        }, unmanaged.toOpaque())
        let result = xmlRelaxNGValidateDoc(context, document)
        var diagnostics = collector.items.map {
            Diagnostic(severity: .error, code: .init(rawValue: "schema-violation"), message: "\($0.0) (schema \(path))",
                       location: SourceLocation(source: sourceName, line: max(1, $0.1), column: 1))
        }
        if result != 0 && diagnostics.isEmpty {
            diagnostics.append(Diagnostic(severity: .error, code: .init(rawValue: "schema-violation"),
                                          message: "the document does not match \(path)",
                                          location: SourceLocation(source: sourceName, line: 1, column: 1)))
        }
        return diagnostics
    }
}
