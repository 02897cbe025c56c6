public import JSONText

/// One database on a server: the document, bulk, changes and checkpoint calls.
///
/// A value made by ``CouchClient/database(_:)``; making it sends nothing.
///
/// ```swift
/// let contacts = client.database("contacts")
/// let page = try await contacts.changes(ChangesRequest(since: checkpoint, includeDocuments: true))
/// ```
public struct CouchDatabase: Sendable {
    /// The client.
    public let client: CouchClient
    /// The database name.
    public let name: String

    /// A database of `client`.
    public init(client: CouchClient, name: String) {
        self.client = client
        self.name = name
    }

    /// `/{db}`, encoded.
    var path: String { "/" + PathEncoding.encode(name) }

    func documentPath(_ id: String) -> String { path + "/" + PathEncoding.documentPath(id) }

    /// `GET /{db}`: counts and the update sequence.
    ///
    /// - Throws: ``CouchClientError`` (`notFound` when the database does not exist).
    public func info() async throws -> DatabaseInfo {
        DatabaseInfo(json: try await client.send("GET", path: path).json)
    }

    /// `PUT /{db}`: creates the database.
    ///
    /// `PUT` is retried like any request, so when a first attempt reached the server but its answer
    /// was lost, the retry meets the database that attempt created and gets 412. Such an error has
    /// ``CouchClientError/attempts`` above 1; a caller that only needs the database to exist (a
    /// sync, a test's setup) passes `ignoringExisting: true` and never sees the ambiguity.
    ///
    /// - Parameter ignoringExisting: treat 412 (it already exists) as success.
    /// - Returns: whether the database was created by this call.
    /// - Throws: ``CouchClientError`` (`preconditionFailed` when it exists and that is not ignored).
    @discardableResult
    public func create(ignoringExisting: Bool = false) async throws -> Bool {
        do {
            _ = try await client.send("PUT", path: path)
            return true
        } catch let error as CouchClientError where ignoringExisting && error.status == 412 {
            return false
        }
    }

    /// `DELETE /{db}`: deletes the database and all its documents.
    ///
    /// - Throws: ``CouchClientError``.
    public func delete() async throws {
        _ = try await client.send("DELETE", path: path)
    }

    /// `GET /{db}/{id}`: a document.
    ///
    /// - Parameters:
    ///   - id: the id (`_design/…` and `_local/…` work too).
    ///   - revision: a specific revision instead of the winner.
    ///   - revisions: include `_revisions` (the revision history).
    ///   - conflicts: include `_conflicts` (losing leaf revisions).
    /// - Throws: ``CouchClientError`` (`notFound` when missing or deleted).
    public func document(id: String, revision: String? = nil, revisions: Bool = false,
                         conflicts: Bool = false) async throws -> JSONObject {
        var query: [(String, String)] = []
        if let revision { query.append(("rev", revision)) }
        if revisions { query.append(("revs", "true")) }
        if conflicts { query.append(("conflicts", "true")) }
        let response = try await client.send("GET", path: documentPath(id), query: query, documentID: id)
        guard let object = response.json.objectValue else { throw invalid("expected a document", id: id) }
        return object
    }

    /// `GET /{db}/{id}?open_revs=…`: several revisions of a document at once, as JSON.
    ///
    /// - Parameters:
    ///   - openRevisions: `.all` leaves, or the revisions listed.
    ///   - revisions: include `_revisions` in each.
    /// - Throws: ``CouchClientError``.
    public func document(id: String, openRevisions: OpenRevisions, revisions: Bool = false) async throws -> [OpenRevision] {
        var query: [(String, String)] = []
        switch openRevisions {
        case .all: query.append(("open_revs", "all"))
        case .only(let list): query.append(("open_revs", jsonText(.array(list.map(JSONValue.string)))))
        }
        if revisions { query.append(("revs", "true")) }
        let response = try await client.send("GET", path: documentPath(id), query: query, documentID: id)
        guard let rows = response.json.arrayValue else { throw invalid("expected an array", id: id) }
        return rows.compactMap { row in
            if let document = row["ok"]?.objectValue { return .found(document) }
            if let missing = row["missing"]?.stringValue { return .missing(missing) }
            return nil
        }
    }

    /// Saves a document: `PUT /{db}/{id}` when it has an `_id`, `POST /{db}` otherwise.
    ///
    /// Give the current `_rev` to update an existing document.
    ///
    /// - Returns: the id and new revision.
    /// - Throws: ``CouchClientError`` (`conflict` when `_rev` is not the current revision).
    @discardableResult
    public func put(_ document: JSONObject) async throws -> DocumentUpdate {
        let id = document["_id"]?.stringValue
        let response = if let id {
            try await client.send("PUT", path: documentPath(id), body: .object(document), documentID: id)
        } else {
            try await client.send("POST", path: path, body: .object(document))
        }
        return try update(from: response.json, id: id)
    }

    /// `DELETE /{db}/{id}?rev=…`: deletes a document, leaving a tombstone.
    ///
    /// - Returns: the tombstone's revision.
    /// - Throws: ``CouchClientError`` (`conflict` when `revision` is not the current one).
    @discardableResult
    public func deleteDocument(id: String, revision: String) async throws -> DocumentUpdate {
        let response = try await client.send("DELETE", path: documentPath(id), query: [("rev", revision)], documentID: id)
        return try update(from: response.json, id: id)
    }

    /// `GET /{db}/_local/{id}`: a checkpoint document, or `nil` when there is none.
    ///
    /// - Parameter id: the name, with or without the `_local/` prefix.
    /// - Throws: ``CouchClientError`` for failures other than 404.
    public func localDocument(id: String) async throws -> JSONObject? {
        do {
            return try await document(id: Self.localID(id))
        } catch let error as CouchClientError where error.status == 404 {
            return nil
        }
    }

    /// `PUT /{db}/_local/{id}`: saves a checkpoint document (not replicated, not in `_changes`).
    ///
    /// - Parameters:
    ///   - id: the name, with or without the `_local/` prefix.
    ///   - document: the body; include the `_rev` read last to update it.
    /// - Throws: ``CouchClientError``.
    @discardableResult
    public func putLocalDocument(id: String, _ document: JSONObject) async throws -> DocumentUpdate {
        var document = document
        document["_id"] = .string(Self.localID(id))
        return try await put(document)
    }

    static func localID(_ id: String) -> String { id.hasPrefix("_local/") ? id : "_local/" + id }

    func update(from json: JSONValue, id: String?) throws -> DocumentUpdate {
        guard let savedID = json["id"]?.stringValue ?? id, let revision = json["rev"]?.stringValue else {
            throw invalid("expected id and rev", id: id)
        }
        return DocumentUpdate(id: savedID, revision: revision)
    }

    func invalid(_ reason: String, id: String? = nil) -> CouchClientError {
        CouchClientError(.invalidResponse, reason: reason, documentID: id, url: client.baseURL + path)
    }

    func jsonText(_ value: JSONValue) -> String {
        String(decoding: value.serialized(), as: UTF8.self)
    }
}
