import ContactDiff
import CouchClient
import SyncEngine
import VCardKit

/// A CouchDB database's contact documents as one side of `cardsync diff`: the command wires the
/// database it connected to into ContactDiff, which knows no server.
///
/// Each contact's vCard text, as the document holds it, is a card of the set; its origin is
/// `name/document-id:line`. Documents that are not usable contacts are reported as
/// `invalid-document` errors of the set.
struct DatabaseContactSetSource: ContactSetSource {
    var database: CouchDatabase
    /// The database's redacted URL (`http://host:5984/contacts`), never its password.
    var name: String
    var pageSize = ContactDocument.defaultListingPageSize

    func readContactSet() async throws -> ContactSet {
        var items: [ContactSet.Item] = []
        var diagnostics: [Diagnostic] = []
        for result in try await ContactDocument.readAll(from: database, pageSize: pageSize) {
            switch result {
            case .success(let contact):
                let source = name + "/" + ContactDocument.documentID(forUID: contact.uid)
                items.append(.text(contact.bytes[...], source: source, line: 1))
            case .failure(let problem):
                diagnostics.append(Diagnostic(severity: .error, code: "invalid-document", message: problem.message,
                                              location: SourceLocation(source: name + "/" + problem.documentID, line: 1, column: 1)))
            }
        }
        return ContactSet(name: name, items: items, diagnostics: diagnostics)
    }
}
