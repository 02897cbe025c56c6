public import CouchClient

extension ContactDocument {
    /// How many documents ``readAll(from:pageSize:)`` asks for per `_changes` request.
    public static let defaultListingPageSize = 1000

    /// Reads every live contact document of a database (as `cardsync sync` writes them), a page
    /// of `_changes?include_docs=true` at a time, so that only one page of JSON is held.
    ///
    /// Each document is read with ``decode(_:)``: its vCard text is authoritative (the derived
    /// `hash`, `fn`, `emails` and `phones` fields are not trusted). A document that is not a
    /// usable contact (no vCard text, a text that cannot be read, a UID that is not the id's)
    /// comes back as its problem; design and other documents whose id does not start with
    /// `contact:` are left out, and so are deleted ones.
    ///
    /// ```swift
    /// for result in try await ContactDocument.readAll(from: client.database("contacts")) {
    ///     switch result {
    ///     case .success(let contact): print(contact.uid, contact.card.formattedName ?? "")
    ///     case .failure(let problem): print(problem)   // contact:x is … (why)
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - database: the database to read.
    ///   - pageSize: documents per request.
    /// - Throws: ``CouchClient/CouchClientError`` when the server cannot be read.
    public static func readAll(from database: CouchDatabase,
                               pageSize: Int = defaultListingPageSize) async throws -> [Result<Decoded, DocumentProblem>] {
        var results: [Result<Decoded, DocumentProblem>] = []
        var since: CouchSequence? = nil
        let limit = max(1, pageSize)
        while true {
            let page = try await database.changes(ChangesRequest(since: since, limit: limit, includeDocuments: true))
            for change in page.results where !change.isDeleted {
                guard uid(fromDocumentID: change.id) != nil, let document = change.document else { continue }
                do {
                    results.append(.success(try decode(document)))
                } catch {
                    results.append(.failure(error))
                }
            }
            since = page.lastSequence
            if page.results.count < limit || page.pending == 0 { break }
        }
        return results
    }
}
