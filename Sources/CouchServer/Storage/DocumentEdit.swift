public import JSONText

/// One write to a document, as `PUT`, `DELETE`, `POST` and `_bulk_docs` ask for it.
public struct DocumentEdit: Sendable, Hashable {
    /// The document id.
    public var id: String
    /// For ordinary edits: the revision being replaced (`nil` to create, or to re-create over a
    /// tombstone). Ignored when ``history`` is set.
    public var baseRevision: Revision?
    /// Whether the new revision is a tombstone.
    public var isDeleted: Bool
    /// The document's own members (no `_id`, `_rev`, `_revisions`, `_deleted`).
    public var body: JSONObject {
        didSet { bodyText = BodyText() }
    }
    /// ``body`` as the JSON text the journal stores, when it was already written for the
    /// request's size check: kept so that storing the edit does not write it a second time.
    /// Any change to ``body`` forgets it.
    var bodyText = BodyText()
    /// For replicated writes (`new_edits: false`): the revision and its ancestors, newest first,
    /// stored as given.
    public var history: [Revision]?
    /// Attachments received outside the JSON body (a standalone attachment `PUT`, the parts of a
    /// `multipart/related` `PUT`), by name; the body's `_attachments` marks each `follows: true`.
    public var stagedAttachments: [String: StagedAttachment]
    /// Where this edit's attachment stubs are found when not in the revision it edits: the
    /// document copied by `COPY`, whose attachments the copy shares.
    public var attachmentOrigin: Origin?

    /// A revision of another document.
    public struct Origin: Sendable, Hashable {
        /// The document id.
        public var id: String
        /// The revision.
        public var revision: Revision

        /// An origin.
        public init(id: String, revision: Revision) {
            self.id = id
            self.revision = revision
        }
    }

    /// An edit.
    public init(id: String, baseRevision: Revision? = nil, isDeleted: Bool = false, body: JSONObject = JSONObject(),
                history: [Revision]? = nil, stagedAttachments: [String: StagedAttachment] = [:]) {
        self.id = id
        self.baseRevision = baseRevision
        self.isDeleted = isDeleted
        self.body = body
        self.history = history
        self.stagedAttachments = stagedAttachments
    }
}

/// A document body's JSON text, remembered beside the body it was written from. It takes no
/// part in comparing or hashing edits: it only repeats what the body says.
struct BodyText: Sendable, Hashable {
    var bytes: [UInt8]?

    static func == (_: BodyText, _: BodyText) -> Bool { true }
    func hash(into _: inout Hasher) {}
}

/// How one edit ended.
public enum EditOutcome: Sendable, Hashable {
    /// Stored as this revision.
    case saved(id: String, revision: Revision)
    /// A replicated revision the database already had: nothing to do.
    case alreadyPresent(id: String)
    /// Refused.
    case failed(id: String, error: CouchError)
}

/// A `_local` document: never replicated, never in `_changes`, revisions `0-N`.
struct LocalDocument: Sendable {
    var revision: Int
    var body: JSONObject
}

/// One document's state in the index: its revision tree and the sequence of its last change.
struct DocumentEntry: Sendable {
    var id: String
    var tree = RevisionTree()
    var sequence = 0

    var winner: Revision? { tree.winner }

    var isDeleted: Bool {
        guard let winner else { return true }
        return tree[winner]?.isDeleted ?? true
    }
}
