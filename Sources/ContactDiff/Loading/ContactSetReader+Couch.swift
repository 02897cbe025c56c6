public import CouchClient
import SyncEngine
import VCardKit

extension ContactSetReader {
    /// How many documents ``read(database:name:pageSize:)`` asks for per `_changes` request.
    public static let defaultPageSize = 1000

    /// Reads the live contact documents of a CouchDB database (as `cardsync sync` writes them),
    /// a page of `_changes?include_docs=true` at a time, so that only one page of JSON is held.
    ///
    /// Each document is read with ``SyncEngine/ContactDocument/decode(_:)``: its vCard text is
    /// authoritative (the derived `hash`, `fn`, `emails` and `phones` fields are not trusted).
    /// A card's origin is `name/document-id:line`. Documents that are not usable contacts
    /// (no vCard text, a text that cannot be read, a UID that is not the id's) are left out and
    /// reported as `invalid-document` errors in the set's diagnostics; design and other
    /// documents whose id does not start with `contact:` are skipped silently.
    ///
    /// ```swift
    /// let set = try await withCouchClient(url: server) { client in
    ///     try await ContactSetReader.read(database: client.database("contacts"), name: "http://host:5984/contacts")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - database: the database to read.
    ///   - name: what the set is called in origins and diagnostics (never the password).
    ///   - pageSize: documents per request.
    /// - Throws: ``CouchClient/CouchClientError`` when the server cannot be read.
    public static func read(database: CouchDatabase, name: String, pageSize: Int = defaultPageSize) async throws -> ContactSet {
        var items: [ContactSet.Item] = []
        var diagnostics: [Diagnostic] = []
        var since: CouchSequence? = nil
        let limit = max(1, pageSize)
        while true {
            let page = try await database.changes(ChangesRequest(since: since, limit: limit, includeDocuments: true))
            for change in page.results where !change.isDeleted {
                guard ContactDocument.uid(fromDocumentID: change.id) != nil, let document = change.document else { continue }
                let source = name + "/" + change.id
                do {
                    let decoded = try ContactDocument.decode(document)
                    items.append(.text(decoded.bytes[...], source: source, line: 1))
                } catch {
                    diagnostics.append(Diagnostic(severity: .error, code: .init(rawValue: "invalid-document"), message: error.message,
                                                  location: SourceLocation(source: source, line: 1, column: 1)))
                }
            }
            since = page.lastSequence
            if page.results.count < limit || page.pending == 0 { break }
        }
        return ContactSet(name: name, items: items, diagnostics: diagnostics)
    }
}
