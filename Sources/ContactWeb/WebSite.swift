import ContactStore
import Foundation
import Logging
import VCardKit

/// The pages: each handler turns a request into one page, or into a change of the book followed
/// by a redirect (post/redirect/get). Errors become a message on the page; nothing is changed
/// by a request that fails.
struct WebSite: Sendable {
    let book: AddressBook
    let catalog: ContactCatalog
    let configuration: WebServerConfiguration
    let csrf: CSRFGuard
    let bookName: String
    let syncAction: WebServer.SyncAction?
    let logger: Logger
    /// The duplicate groups, computed in the background and kept until the list changes.
    let duplicates = DuplicateSearch()
    /// The password gate; `nil` when the server was started without a password.
    var signIn: SignInGuard? = nil

    var layout: PageLayout { PageLayout(bookName: bookName, csrfToken: csrf.token, hasRemote: syncAction != nil) }

    func respond(to request: WebRequest) async -> WebResponse {
        do {
            switch (request.method, request.path) {
            case ("GET", "/"), ("HEAD", "/"): return await listPage(request)
            case ("GET", "/results"): return await listResults(request)
            case ("GET", "/login"): return signInPage(notice: nil)
            case ("POST", "/login"): return await signInAttempt(request)
            case ("GET", "/static/app.css"): return WebResponse(status: 200, contentType: "text/css; charset=utf-8", body: Array(Assets.css.utf8))
            case ("GET", "/static/app.js"): return WebResponse(status: 200, contentType: "text/javascript; charset=utf-8", body: Array(Assets.javascript.utf8))
            case ("GET", "/contact"): return try await contactPage(request)
            case ("GET", "/contact/edit"): return try await editPage(request)
            case ("POST", "/contact/save"): return try await saveForm(request)
            case ("POST", "/contact/raw"): return try await saveRaw(request)
            case ("POST", "/validate"): return validate(request)
            case ("GET", "/new"): return .page(EditPage(file: nil).render(layout: layout, notice: nil))
            case ("POST", "/new"): return try await createContact(request)
            case ("POST", "/contact/delete"): return try await deleteContact(request)
            case ("POST", "/contact/undelete"): return try await undeleteContact(request)
            case ("GET", "/contact/history"): return try await historyPage(request)
            case ("POST", "/contact/restore"): return try await restoreVersion(request)
            case ("GET", "/duplicates"): return try await duplicatesPage(request)
            case ("GET", "/merge"): return try await mergeChoicePage(request)
            case ("POST", "/merge"): return request.form.contains("chosen") ? try await mergeChoosingValues(request) : try await mergeContacts(request)
            case ("POST", "/unmerge"): return try await undoMerge(request)
            case ("GET", "/exchange"): return exchangePage(notice: nil)
            case ("GET", "/export"): return try await export(request)
            case ("POST", "/import"): return try await importUpload(request)
            case ("GET", "/sync"): return await syncPage(notice: nil)
            case ("POST", "/sync"): return try await syncNow()
            default:
                return errorPage(WebError(status: 404, message: "There is no page at \(request.path)."))
            }
        } catch let error as WebError {
            return errorPage(error)
        } catch let error as ContactStoreError {
            return errorPage(WebError(status: error.code == .notFound ? 404 : 409, message: error.description))
        } catch {
            return errorPage(WebError(status: 500, message: "\(error)"))
        }
    }

    // MARK: - Common answers

    func forbidden() -> WebResponse {
        .page(layout.render(title: "Refused", notice: Notice(kind: .error, message:
            "This form was not sent by a page of this server (its security token is missing or out of date); nothing was changed. Reload the page and try again."),
            body: "<h1>Refused</h1>"), status: 403)
    }

    func errorPage(_ error: WebError) -> WebResponse {
        let title = error.status == 404 ? "Not found" : "Something went wrong"
        return .page(layout.render(title: title, notice: Notice(kind: .error, message: error.message),
                                   body: "<h1>\(title)</h1>\n<p><a href=\"/\">Back to the contacts</a></p>"), status: error.status)
    }

    /// A notice carried through a redirect in the query (`done=…`).
    func notice(from query: FormFields) -> Notice? {
        guard let done = query["done"] else { return nil }
        var notice = Notice(kind: .success, message: done)
        if let uid = query["undelete"] {
            notice.undo = ("Undo", "/contact/undelete", [("uid", uid)])
        } else if let uid = query["unmerge"] {
            notice.undo = ("Undo merge", "/unmerge", [("uid", uid)])
        }
        return notice
    }

    func required(_ fields: FormFields, _ name: String) throws(WebError) -> String {
        guard let value = fields[name], !value.isEmpty else {
            throw WebError(status: 400, message: "The form is missing “\(name)”; nothing was changed.")
        }
        return value
    }

    // MARK: - List

    func listPage(_ request: WebRequest) async -> WebResponse {
        .page(await makeListPage(request.query).render(layout: layout, notice: notice(from: request.query)))
    }

    func listResults(_ request: WebRequest) async -> WebResponse {
        WebResponse(status: 200, contentType: "text/html; charset=utf-8", body: Array(await makeListPage(request.query).renderResults().utf8))
    }

    private func makeListPage(_ query: FormFields) async -> ListPage {
        let text = query["q"] ?? ""
        let sort = ContactCatalog.Sort(rawValue: query["sort"] ?? "") ?? .family
        let offset = max(0, Int(query["offset"] ?? "") ?? 0)
        let (entries, total) = await catalog.page(query: text, sort: sort, offset: offset, limit: configuration.pageSize)
        return ListPage(query: text, sort: sort, offset: offset, pageSize: configuration.pageSize, entries: entries, total: total,
                        bookCount: await catalog.count)
    }

    // MARK: - Contact, edit

    func contactPage(_ request: WebRequest) async throws -> WebResponse {
        let uid = try required(request.query, "uid")
        let file = try await book.contactFile(uid: uid)
        return .page(ContactPage(file: file).render(layout: layout, notice: notice(from: request.query)))
    }

    func editPage(_ request: WebRequest) async throws -> WebResponse {
        let uid = try required(request.query, "uid")
        let file = try await book.contactFile(uid: uid)
        return .page(EditPage(file: file).render(layout: layout, notice: nil))
    }

    func saveForm(_ request: WebRequest) async throws -> WebResponse {
        let uid = try required(request.form, "uid")
        let version = try required(request.form, "version")
        let file = try await book.contactFile(uid: uid)
        guard file.version == version else { return try await stale(uid: uid) }
        if let adding = request.form["add"] { return addingSlot(adding, file: file, form: request.form) }
        let outcome = CardEditor(bytes: file.bytes, card: file.card).applying(form: request.form, now: Date())
        guard let bytes = outcome.bytes else {
            return .redirect(to: HTML.unescapedLink("/contact", [("uid", uid), ("done", "Nothing was changed.")]))
        }
        return try await save(uid: uid, bytes: bytes, version: version, changed: outcome.changed)
    }

    func saveRaw(_ request: WebRequest) async throws -> WebResponse {
        let uid = try required(request.form, "uid")
        let version = try required(request.form, "version")
        let file = try await book.contactFile(uid: uid)
        guard file.version == version else { return try await stale(uid: uid) }
        var text = request.form["raw"] ?? ""
        if !file.bytes.contains(0x0D) { text = text.replacingOccurrences(of: "\r\n", with: "\n") }
        var bytes = Array(text.utf8)
        let problems = Self.problems(in: bytes, sourceName: file.record.file)
        guard problems.isEmpty else {
            return .page(EditPage(file: file, rawText: text).render(layout: layout, notice: Notice(
                kind: .error, message: "The raw vCard has errors; nothing was saved.", details: problems)), status: 422)
        }
        if bytes == file.bytes {
            return .redirect(to: HTML.unescapedLink("/contact", [("uid", uid), ("done", "Nothing was changed.")]))
        }
        // REV follows the edit unless the user set it.
        if let edited = try? VCardReader.read(bytes, sourceName: file.record.file).cards.first, edited.first("REV")?.rawValue == file.card.first("REV")?.rawValue {
            var stamped = edited
            CardEditor.stampRevision(&stamped, now: Date())
            bytes = CardEditor(bytes: file.bytes, card: file.card).write(stamped)
        }
        return try await save(uid: uid, bytes: bytes, version: version, changed: ["the raw vCard"])
    }

    private func save(uid: String, bytes: [UInt8], version: String, changed: [String]) async throws -> WebResponse {
        let refusal: ContactStoreError? = await {
            do throws(ContactStoreError) {
                try await book.replaceContact(uid: uid, with: bytes, basedOn: version)
                return nil
            } catch {
                return error
            }
        }()
        if let refusal {
            if refusal.code == .stale { return try await stale(uid: uid) }
            throw refusal
        }
        let file = try await book.contactFile(uid: uid)
        await catalog.update(uid: uid, card: file.card)
        let names = Array(Set(changed.map { PropertyWords.names[$0] ?? $0 })).sorted()
        return .redirect(to: HTML.unescapedLink("/contact", [("uid", uid), ("done", "Saved (changed: \(names.joined(separator: ", "))).")]))
    }

    /// "Add another phone" (or email, …): the edit form again, with what was typed kept and one
    /// more empty slot for that property; nothing is saved yet.
    private func addingSlot(_ name: String, file: ContactFile?, form: FormFields) -> WebResponse {
        .page(EditPage(file: file, typed: form, adding: name).render(layout: layout, notice: nil))
    }

    /// The answer to a save based on an old version: refused, and the newer version shown.
    private func stale(uid: String) async throws -> WebResponse {
        _ = try? await book.scan()
        let file = try await book.contactFile(uid: uid)
        await catalog.update(uid: uid, card: file.card)
        let notice = Notice(kind: .error, message:
            "This contact was changed by another program or a sync after you opened it, so your changes were not saved. The newer version is shown below: make your changes again on it.")
        return .page(EditPage(file: file).render(layout: layout, notice: notice), status: 409)
    }

    /// The errors VCardKit finds in `bytes` (file:line:column: message), and a missing or extra card.
    static func problems(in bytes: [UInt8], sourceName: String) -> [String] {
        let result: VCardReadResult
        do {
            result = try VCardReader.read(bytes, sourceName: sourceName)
        } catch {
            return ["\(error)"]
        }
        var problems = result.diagnostics.filter { $0.severity == .error }.map(\.description)
        if problems.isEmpty && result.cards.count != 1 {
            problems.append("\(sourceName): holds \(result.cards.count) cards; a contact is exactly one BEGIN:VCARD … END:VCARD")
        }
        return problems
    }

    /// The raw editor's live check: the problems as a list fragment (empty when there are none).
    func validate(_ request: WebRequest) -> WebResponse {
        let problems = Self.problems(in: Array((request.form["raw"] ?? "").utf8), sourceName: request.form["file"] ?? "vCard")
        let html = problems.isEmpty ? "<p class=\"ok\">No errors.</p>"
            : "<ul class=\"problems\">" + problems.map { "<li><code>\(HTML.escape($0))</code></li>" }.joined() + "</ul>"
        return WebResponse(status: 200, contentType: "text/html; charset=utf-8", body: Array(html.utf8))
    }

    // MARK: - New, delete

    func createContact(_ request: WebRequest) async throws -> WebResponse {
        if let adding = request.form["add"] { return addingSlot(adding, file: nil, form: request.form) }
        var card = VCard(version: .v4_0, properties: [])
        let uid = "urn:uuid:" + UUID().uuidString.lowercased()
        card.append(VCardProperty(name: "UID", rawValue: uid))
        let outcome = CardEditor(bytes: [0x0D], card: card).applying(form: request.form, now: Date())
        guard let bytes = outcome.bytes, var created = try? VCardReader.read(bytes).cards.first else {
            return .page(EditPage(file: nil).render(layout: layout, notice: Notice(kind: .error, message: "The form was empty; no contact was made.")), status: 422)
        }
        if created.first("FN") == nil {
            // FN is required: made from the name, else the first e-mail address.
            let name = created.structuredName.map { ($0.given + $0.family).joined(separator: " ") } ?? ""
            let position = (created.properties.firstIndex { $0.hasName("UID") } ?? 0) + 1
            created.properties.insert(VCardProperty(name: "FN", text: name.isEmpty ? (created.emailAddresses.first ?? "Unnamed") : name), at: position)
        }
        let written = VCardWriter().bytes(for: created)
        let event = try await book.addContact(written)
        await catalog.update(uid: event.uid, card: created)
        return .redirect(to: HTML.unescapedLink("/contact", [("uid", event.uid), ("done", "Contact created.")]))
    }

    func deleteContact(_ request: WebRequest) async throws -> WebResponse {
        let uid = try required(request.form, "uid")
        let name = await book.record(for: uid)?.name ?? uid
        let refusal: ContactStoreError? = await {
            do throws(ContactStoreError) {
                try await book.deleteContact(uid: uid, basedOn: request.form["version"])
                return nil
            } catch {
                return error
            }
        }()
        if let refusal {
            if refusal.code == .stale { return try await stale(uid: uid) }
            throw refusal
        }
        await catalog.update(uid: uid, card: nil)
        return .redirect(to: HTML.unescapedLink("/", [("done", "Deleted \(name)."), ("undelete", uid)]))
    }

    func undeleteContact(_ request: WebRequest) async throws -> WebResponse {
        let uid = try required(request.form, "uid")
        try await book.restore(uid: uid)
        await catalog.refresh([uid], from: book)
        return .redirect(to: HTML.unescapedLink("/contact", [("uid", uid), ("done", "The contact is back.")]))
    }
}

extension HTML {
    /// A path with a query, not escaped for HTML (for a `Location` header).
    static func unescapedLink(_ path: String, _ query: [(String, String)]) -> String {
        path + "?" + query.map { FormFields.encode($0.0) + "=" + FormFields.encode($0.1) }.joined(separator: "&")
    }
}
