import ExtrasBase64
import JSONText

extension Database {
    /// The body to store for `edit`: inline (`data`) and received (`follows`) attachments
    /// written to their files and described, stubs replaced by what the edited revision holds;
    /// `nil` when the body names no attachments (it is stored as it is).
    ///
    /// Attachments not named in `_attachments` are dropped, as CouchDB drops them.
    ///
    /// - Throws: ``CouchError`` `missing_stub` (412) for a stub the edited revision lacks,
    ///   `bad_request` for data that is not base64, `storage_failure` when a file cannot be written.
    func storeAttachments(of edit: DocumentEdit, entry: DocumentEntry, newEdits: Bool) throws(CouchError) -> JSONObject? {
        guard let requested = edit.body["_attachments"] else { return nil }
        guard let members = requested.objectValue?.members else {
            throw CouchError(.badRequest, reason: "_attachments must be a JSON object")
        }
        let generation: Int
        let sources: [Revision]
        if newEdits {
            let parent = edit.baseRevision ?? (entry.isDeleted ? entry.winner : nil)
            generation = (parent?.generation ?? 0) + 1
            sources = parent.map { [$0] } ?? []
        } else {
            let history = edit.history ?? []
            generation = history.first?.generation ?? 1
            sources = Array(history.dropFirst()) + entry.tree.sortedLeaves
        }
        var stored = JSONObject()
        for member in members {
            let name = member.key
            let value = member.value
            guard value.objectValue != nil else {
                throw CouchError(.badRequest, reason: "Invalid attachment \(name): not a JSON object")
            }
            let contentType = value["content_type"]?.stringValue ?? "application/octet-stream"
            if value["stub"]?.boolValue == true {
                var found = try storedAttachment(named: name, in: entry, sources: sources)
                if found == nil, let origin = edit.attachmentOrigin, let originEntry = try self.entry(origin.id) {
                    found = try storedAttachment(named: name, in: originEntry, sources: [origin.revision])
                }
                guard let info = found else {
                    if newEdits, let base = edit.baseRevision, !entry.tree.leaves.contains(base) {
                        throw CouchError.conflictingUpdate
                    }
                    throw CouchError(.missingStub, reason: "Invalid attachment stub in \(edit.id) for \(name)")
                }
                stored[name] = info.stored
                continue
            }
            let staged: StagedAttachment
            if let data = value["data"] {
                guard let text = data.stringValue, let bytes = try? Base64.decode(string: text) else {
                    throw CouchError(.badRequest, reason: "Invalid attachment data for \(name)")
                }
                staged = try AttachmentWriter.stage(bytes, in: attachments, compress: AttachmentInfo.isCompressible(contentType))
            } else if value["follows"]?.boolValue == true, let received = edit.stagedAttachments[name] {
                staged = received
            } else {
                throw CouchError(.badRequest, reason: "Invalid attachment \(name): no data, stub or follows")
            }
            try attachments.commit(staged)
            let position = newEdits ? generation : (value["revpos"]?.intValue ?? generation)
            stored[name] = AttachmentInfo(contentType: contentType, revisionPosition: position, staged: staged).stored
        }
        var body = edit.body
        body["_attachments"] = stored.members.isEmpty ? nil : .object(stored)
        return body
    }

    /// The attachment `name` of the first of `sources` that is stored and has it.
    private func storedAttachment(named name: String, in entry: DocumentEntry, sources: [Revision]) throws(CouchError) -> AttachmentInfo? {
        for revision in sources {
            guard let location = entry.tree[revision]?.body else { continue }
            if let found = AttachmentInfo.all(in: try body(at: location)).first(where: { $0.name == name }) {
                return found.info
            }
        }
        return nil
    }

    /// Replaces the stored descriptions in a rendered document by CouchDB's stubs.
    static func renderAttachmentStubs(_ object: inout JSONObject, encodingInfo: Bool) {
        let attachments = AttachmentInfo.all(in: object)
        guard !attachments.isEmpty else { return }
        var stubs = JSONObject()
        for (name, info) in attachments {
            stubs[name] = info.rendered(.stub, encodingInfo: encodingInfo)
        }
        object["_attachments"] = .object(stubs)
    }

    /// Removes the attachment files no stored revision refers to (`_compact`); returns the
    /// bytes freed.
    public func collectUnreferencedAttachments() throws(CouchError) -> Int {
        var referenced: Set<String> = []
        for id in try documentIDs() {
            guard let entry = try entry(id) else { continue }
            for revision in entry.tree.allRevisions {
                guard let location = entry.tree[revision]?.body else { continue }
                for (_, info) in AttachmentInfo.all(in: try body(at: location)) { referenced.insert(info.digest) }
            }
        }
        return try attachments.collectGarbage(keeping: referenced)
    }
}
