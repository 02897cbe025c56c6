import JSONText

/// A failure answered the way CouchDB answers it: an HTTP status and a body
/// `{"error": …, "reason": …}`.
///
/// New codes can be added without breaking callers; switch over ``code`` with a `default`.
public struct CouchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as CouchDB's `error` value.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// CouchDB's `error` string.
        public let name: String
        /// The HTTP status CouchDB answers with.
        public let status: Int

        /// A code with CouchDB's `error` string and the HTTP status that goes with it.
        public init(name: String, status: Int) {
            self.name = name
            self.status = status
        }

        public var description: String { name }

        /// 400: the request is malformed.
        public static let badRequest = Code(name: "bad_request", status: 400)
        /// 400: a document id that may not be used.
        public static let illegalDocumentID = Code(name: "illegal_docid", status: 400)
        /// 400: a database name that may not be used.
        public static let illegalDatabaseName = Code(name: "illegal_database_name", status: 400)
        /// 400: a document member starting with `_` that CouchDB does not know.
        public static let documentValidation = Code(name: "doc_validation", status: 400)
        /// 400: a Mango selector uses an operator CouchDB does not know.
        public static let invalidOperator = Code(name: "invalid_operator", status: 400)
        /// 401: missing or wrong credentials.
        public static let unauthorized = Code(name: "unauthorized", status: 401)
        /// 403: not allowed.
        public static let forbidden = Code(name: "forbidden", status: 403)
        /// 404: no such database, document or revision.
        public static let notFound = Code(name: "not_found", status: 404)
        /// 405: the method is not supported on this path.
        public static let methodNotAllowed = Code(name: "method_not_allowed", status: 405)
        /// 409: the revision given is not the current leaf.
        public static let conflict = Code(name: "conflict", status: 409)
        /// 412: the database already exists.
        public static let fileExists = Code(name: "file_exists", status: 412)
        /// 412: an attachment stub names an attachment the edited revision does not have.
        public static let missingStub = Code(name: "missing_stub", status: 412)
        /// 413: the document is larger than `max_document_size`.
        public static let documentTooLarge = Code(name: "document_too_large", status: 413)
        /// 413: the request body is larger than the server accepts.
        public static let requestTooLarge = Code(name: "too_large", status: 413)
        /// 415: the body is not `application/json`.
        public static let badContentType = Code(name: "bad_content_type", status: 415)
        /// 501: a CouchDB feature this server does not have (views, Mango queries).
        public static let notImplemented = Code(name: "not_implemented", status: 501)
        /// 500: a replication's source or target database cannot be opened.
        public static let databaseNotFound = Code(name: "db_not_found", status: 500)
        /// 500: the data folder could not be read or written.
        public static let storageFailure = Code(name: "storage_failure", status: 500)
    }

    /// What went wrong.
    public var code: Code
    /// CouchDB's `reason`: a sentence for people.
    public var reason: String

    /// An error with a code and a reason.
    public init(_ code: Code, reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code.name): \(reason)" }

    /// The JSON body CouchDB sends for this error.
    var body: JSONValue {
        .object(["error": .string(code.name), "reason": .string(reason)])
    }

    static let conflictingUpdate = CouchError(.conflict, reason: "Document update conflict.")
    static let missingDocument = CouchError(.notFound, reason: "missing")
    static let deletedDocument = CouchError(.notFound, reason: "deleted")
    static let missingDatabase = CouchError(.notFound, reason: "Database does not exist.")
    static let invalidRevisionFormat = CouchError(.badRequest, reason: "Invalid rev format")
}
