import JSONText

/// What a revision knows of one attachment, stored in its body's `_attachments` member:
/// `content_type`, `revpos`, `digest`, `length` and, for gzip-stored ones, `encoding` and
/// `encoded_length` (CouchDB's members in CouchDB's order).
struct AttachmentInfo: Sendable, Hashable {
    var contentType: String
    /// The generation of the revision that added it.
    var revisionPosition: Int
    /// `md5-` and the base64 MD5 of the stored bytes.
    var digest: String
    /// Length as sent.
    var length: Int
    /// Length of the stored bytes when they are gzip, else `nil`.
    var encodedLength: Int?

    var isGzip: Bool { encodedLength != nil }

    init(contentType: String, revisionPosition: Int, staged: StagedAttachment) {
        self.contentType = contentType
        self.revisionPosition = revisionPosition
        self.digest = staged.digest
        self.length = staged.length
        self.encodedLength = staged.isGzip ? staged.encodedLength : nil
    }

    /// Reads the stored form; `nil` when `value` is not one.
    init?(stored value: JSONValue) {
        guard let contentType = value["content_type"]?.stringValue, let position = value["revpos"]?.intValue,
              let digest = value["digest"]?.stringValue, let length = value["length"]?.intValue
        else { return nil }
        self.contentType = contentType
        self.revisionPosition = position
        self.digest = digest
        self.length = length
        self.encodedLength = value["encoding"]?.stringValue == "gzip" ? value["encoded_length"]?.intValue : nil
    }

    /// The stored form.
    var stored: JSONValue {
        var object: JSONObject = [
            "content_type": .string(contentType), "revpos": .integer(revisionPosition),
            "digest": .string(digest), "length": .integer(length),
        ]
        if let encodedLength {
            object["encoding"] = .string("gzip")
            object["encoded_length"] = .integer(encodedLength)
        }
        return .object(object)
    }

    /// How a document shows it.
    enum Form {
        /// `stub: true`, no bytes.
        case stub
        /// `data`: the bytes in base64, inline.
        case data(String)
        /// `follows: true`: the bytes come in a later MIME part (multipart answers).
        case follows
    }

    /// CouchDB's rendering: stubs and follows carry `length`; `encoding` and `encoded_length`
    /// come with `att_encoding_info=true`, and always with follows (the part is sent encoded).
    func rendered(_ form: Form, encodingInfo: Bool) -> JSONValue {
        var object: JSONObject = [
            "content_type": .string(contentType), "revpos": .integer(revisionPosition), "digest": .string(digest),
        ]
        var showsEncoding = encodingInfo
        switch form {
        case .stub:
            object["length"] = .integer(length)
            object["stub"] = .bool(true)
        case .data(let base64):
            object["data"] = .string(base64)
        case .follows:
            object["length"] = .integer(length)
            object["follows"] = .bool(true)
            showsEncoding = true
        }
        if showsEncoding, let encodedLength {
            object["encoding"] = .string("gzip")
            object["encoded_length"] = .integer(encodedLength)
        }
        return .object(object)
    }

    /// The attachments of a stored body, in their order; `[]` when there are none.
    static func all(in body: JSONObject) -> [(name: String, info: AttachmentInfo)] {
        guard let members = body["_attachments"]?.objectValue?.members else { return [] }
        return members.compactMap { member in AttachmentInfo(stored: member.value).map { (member.key, $0) } }
    }

    /// Whether CouchDB stores attachments of `contentType` gzipped (its default
    /// `compressible_types`: `text/*`, `application/javascript`, `application/json`,
    /// `application/xml`).
    static func isCompressible(_ contentType: String) -> Bool {
        let type = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: " ") } ?? ""
        let lowered = type.lowercased()
        return lowered.hasPrefix("text/") || ["application/javascript", "application/json", "application/xml"].contains(lowered)
    }
}

extension Substring {
    func trimmingCharacters(in set: Character) -> String {
        var text = self
        while text.first == set { text = text.dropFirst() }
        while text.last == set { text = text.dropLast() }
        return String(text)
    }
}
