/// Typed views of a property's value.
extension VCardProperty {
    /// The value as one text, escapes decoded (`a\, b` → `a, b`).
    public var textValue: String { TextEscaping.unescape(rawValue) }

    /// Sets the value from unescaped text.
    public mutating func setText(_ text: String) { rawValue = TextEscaping.escape(text) }

    /// The components of a structured value (N, ADR, ORG, GENDER, CLIENTPIDMAP), each a list of
    /// decoded items. ORG's units are not lists: commas in them are literal.
    public var components: [[String]] {
        TextEscaping.components(rawValue, listsInComponents: valueKind != .structuredText)
    }

    /// The items of a list value (CATEGORIES, NICKNAME), decoded.
    public var listValues: [String] {
        TextEscaping.split(rawValue, separator: 0x2C).map(TextEscaping.unescape)
    }

    /// The value as a date, time, date-time or truncated form, when it is one.
    public var dateAndOrTimeValue: VCardDateAndOrTime? { VCardDateAndOrTime(rawValue) }

    /// Whether the value is inline binary (`ENCODING=b`/`BASE64`, or a base64 `data:` URI).
    public var isInlineBinary: Bool {
        if let encoding = parameter("ENCODING")?.values.first?.asciiUppercased, encoding == "B" || encoding == "BASE64" { return true }
        return VersionConverter.dataURI(rawValue) != nil
    }

    /// The decoded bytes of an inline binary value; `nil` for a link or invalid base64.
    public var binaryData: [UInt8]? {
        if let (_, base64) = VersionConverter.dataURI(rawValue) { return Base64.decode(base64) }
        if isInlineBinary { return Base64.decode(rawValue) }
        return nil
    }

    /// The media type of a binary value: from a `data:` URI, `MEDIATYPE`, or a 3.0 `TYPE` such as `JPEG`.
    public var mediaType: String? {
        if let (mediaType, _) = VersionConverter.dataURI(rawValue) { return mediaType }
        if let mediaType = parameter("MEDIATYPE")?.values.first { return mediaType }
        if isInlineBinary, let type = parameterValues("TYPE").first {
            return MediaTypes.mediaType(forTypeValue: type, property: name)
        }
        return nil
    }

    /// The value as a URI (URL, UID, MEMBER, RELATED, PHOTO links, `tel:` …), as written.
    public var uriValue: String { rawValue }
}
