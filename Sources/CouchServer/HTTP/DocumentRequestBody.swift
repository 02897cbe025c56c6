package import JSONText

/// Turns a JSON document as clients send it into a ``DocumentEdit``: takes out `_id`, `_rev`,
/// `_deleted` and `_revisions`, drops the read-only `_conflicts`-style members, and refuses
/// other members starting with `_`, as CouchDB does.
package enum DocumentRequestBody {
    static let ignoredMembers: Set<String> = ["_conflicts", "_deleted_conflicts", "_local_seq", "_revs_info"]
    static let keptMembers: Set<String> = ["_attachments"]

    package struct Parsed {
        package var id: String?
        var revision: Revision?
        var isDeleted: Bool
        var history: [Revision]?
        var body: JSONObject
    }

    package static func parse(_ object: JSONObject) throws(CouchError) -> Parsed {
        var parsed = Parsed(id: nil, revision: nil, isDeleted: false, history: nil, body: JSONObject())
        for member in object.members {
            switch member.key {
            case "_id":
                guard let id = member.value.stringValue else {
                    throw CouchError(.illegalDocumentID, reason: "Document id must be a string")
                }
                parsed.id = id
            case "_rev":
                guard let text = member.value.stringValue, let revision = Revision(text) else {
                    throw CouchError.invalidRevisionFormat
                }
                parsed.revision = revision
            case "_deleted":
                parsed.isDeleted = member.value.boolValue ?? false
            case "_revisions":
                guard let start = member.value["start"]?.intValue, start >= 1,
                      let ids = member.value["ids"]?.arrayValue, !ids.isEmpty, ids.count <= start
                else { throw CouchError(.badRequest, reason: "_revisions must have a start and a list of ids") }
                var history: [Revision] = []
                for (offset, id) in ids.enumerated() {
                    guard let hash = id.stringValue, !hash.isEmpty else {
                        throw CouchError(.badRequest, reason: "_revisions ids must be strings")
                    }
                    history.append(Revision(generation: start - offset, hash: hash))
                }
                parsed.history = history
            case let key where ignoredMembers.contains(key):
                continue
            case let key where key.hasPrefix("_") && !keptMembers.contains(key):
                throw CouchError(.documentValidation, reason: "Bad special document member: \(key)")
            default:
                parsed.body.members.append(member)
            }
        }
        return parsed
    }

    /// Checks a document id: not empty, and only `_design/` and `_local/` may start with `_`.
    static func validate(id: String) throws(CouchError) {
        if id.isEmpty { throw CouchError(.illegalDocumentID, reason: "Document id must not be empty") }
        if id.hasPrefix("_"), !id.hasPrefix("_design/"), !id.hasPrefix("_local/") {
            throw CouchError(.illegalDocumentID, reason: "Only reserved document ids may start with underscore.")
        }
    }

    /// The edit for `parsed`, refusing documents over `maximumSize` bytes.
    package static func edit(_ parsed: Parsed, id: String, newEdits: Bool, maximumSize: Int) throws(CouchError) -> DocumentEdit {
        try validate(id: id)
        let text = parsed.body.serialized()
        if text.count > maximumSize {
            throw CouchError(.documentTooLarge, reason: "")
        }
        var edit: DocumentEdit
        if newEdits {
            edit = DocumentEdit(id: id, baseRevision: parsed.revision, isDeleted: parsed.isDeleted, body: parsed.body)
        } else {
            edit = try replicatedEdit(parsed, id: id)
        }
        edit.bodyText = BodyText(bytes: text)
        return edit
    }

    /// The edit of a replicated write (`new_edits: false`): the revision history as given.
    private static func replicatedEdit(_ parsed: Parsed, id: String) throws(CouchError) -> DocumentEdit {
        var history = parsed.history
        if history == nil, let revision = parsed.revision { history = [revision] }
        guard let history else {
            throw CouchError(.badRequest, reason: "When `new_edits: false`, the document needs `_rev` or `_revisions`")
        }
        if let revision = parsed.revision, revision != history[0] {
            throw CouchError(.badRequest, reason: "_rev and _revisions disagree")
        }
        return DocumentEdit(id: id, isDeleted: parsed.isDeleted, body: parsed.body, history: history)
    }
}
