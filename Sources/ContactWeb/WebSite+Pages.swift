import ContactDiff
import ContactStore
import Foundation
import VCardKit

extension WebSite {
    // MARK: - History

    func historyPage(_ request: WebRequest) async throws -> WebResponse {
        let uid = try required(request.query, "uid")
        let events = try await book.history(of: uid).filter { $0.operation.changesContact }
        guard !events.isEmpty else { throw WebError(status: 404, message: "No contact has UID \(uid).") }
        var versions: [(event: JournalEvent, card: VCard?)] = []
        for event in events {
            let bytes = try await book.cardBytes(recordedBy: event)
            versions.append((event, bytes.flatMap { try? VCardReader.read($0, sourceName: "journal").cards.first }))
        }
        let live = await book.record(for: uid)
        let name = live?.name ?? uid
        var html = "<h1>History of \(HTML.escape(name))</h1>\n"
        html += "<p><a href=\"\(HTML.link("/contact", [("uid", uid)]))\">Back to the contact</a></p>\n<ol class=\"history\" reversed>\n"
        let differ = PropertyDiff()
        for (position, version) in versions.enumerated() {
            let event = version.event
            let isCurrent = position == 0 && live?.isDeleted == false
            html += "<li class=\"version\"><h2>Version \(event.sequence): \(HTML.escape(event.operation.rawValue)) by \(HTML.escape(Self.sourceWords(event.source)))"
            html += " <time datetime=\"\(HTML.escape(event.time))\">\(HTML.escape(event.time))</time>\(isCurrent ? " (current)" : "")</h2>\n"
            let older = versions[(position + 1)...].first { $0.card != nil }?.card
            if let card = version.card {
                if let older {
                    let changes = differ.changes(from: older, to: card)
                    html += changes.isEmpty ? "<p>No property changed (formatting only).</p>\n" : "<ul class=\"changes\">" + changes.map(Self.changeItem).joined() + "</ul>\n"
                } else {
                    html += "<p>First version.</p>\n"
                }
                if !isCurrent {
                    html += layout.buttonForm(action: "/contact/restore", label: "Restore this version",
                                              fields: [("uid", uid), ("seq", String(event.sequence))])
                }
            } else if event.hash == nil {
                html += "<p>Deleted.</p>\n"
            } else {
                html += "<p>The text of this version is no longer in the journal.</p>\n"
            }
            html += "</li>\n"
        }
        html += "</ol>\n"
        return .page(layout.render(title: "History of \(name)", notice: notice(from: request.query), body: html))
    }

    static func sourceWords(_ source: JournalEvent.Source) -> String {
        switch source {
        case .folder: "another program"
        case .import: "an import"
        case .remote: "a sync"
        case .user: "you"
        default: source.rawValue
        }
    }

    static func changeItem(_ change: PropertyChange) -> String {
        let name = PropertyWords.names[change.property.uppercased()] ?? change.property
        let old = change.oldValue.map { "<del>\(HTML.escape($0))</del>" } ?? ""
        let new = change.newValue.map { "<ins>\(HTML.escape($0))</ins>" } ?? ""
        return "<li><span class=\"kind\">\(HTML.escape(change.kind.rawValue))</span> \(HTML.escape(name)): \(old) \(new)</li>"
    }

    func restoreVersion(_ request: WebRequest) async throws -> WebResponse {
        let uid = try required(request.form, "uid")
        guard let sequence = Int(try required(request.form, "seq")) else {
            throw WebError(status: 400, message: "“seq” must be a version number; nothing was changed.")
        }
        try await book.restore(uid: uid, sequence: sequence)
        await catalog.refresh([uid], from: book)
        return .redirect(to: HTML.unescapedLink("/contact", [("uid", uid), ("done", "Version \(sequence) restored.")]))
    }

    // MARK: - Duplicates

    func duplicatesPage(_ request: WebRequest) async throws -> WebResponse {
        let groups: DuplicateSearch.Groups
        switch await duplicates.state(of: catalog, book: book) {
        case .ready(let found): groups = found
        case .computing(let started, let contacts): return duplicatesComputingPage(request, started: started, contacts: contacts)
        }
        let (entries, clusters) = (groups.entries, groups.clusters)
        var html = "<h1>Duplicates</h1>\n<p>\(clusters.count) group\(clusters.count == 1 ? "" : "s") of probable duplicates among \(entries.count) contacts.</p>\n"
        for (number, cluster) in clusters.prefix(200).enumerated() {
            let members = cluster.members.map { entries[$0] }.filter { $0.uid != nil }
            guard members.count >= 2 else { continue }
            let ordered = members.sorted { $0.card.properties.count > $1.card.properties.count }
            html += "<section class=\"cluster\"><h2>Group \(number + 1): \(HTML.escape(cluster.confidence.rawValue)) (score \(String(format: "%.2f", cluster.score)))</h2>\n<ul>"
            for member in ordered {
                html += "<li><a href=\"\(HTML.link("/contact", [("uid", member.uid ?? "")]))\">\(HTML.escape(member.displayName))</a> "
                html += "<span class=\"meta\">\(HTML.escape(member.card.emailAddresses.joined(separator: ", ")))</span></li>"
            }
            html += "</ul>\n<p>Why: " + HTML.escape(Array(Set(cluster.links.flatMap(\.reasons))).sorted().joined(separator: "; ")) + "</p>\n"
            // The merge page that follows lets the user choose the values.
            html += "<form method=\"get\" action=\"/merge\"><fieldset><legend>Keep</legend>"
            for (position, member) in ordered.enumerated() {
                let id = "keep-\(number)-\(position)"
                html += "<input type=\"radio\" id=\"\(id)\" name=\"keep\" value=\"\(HTML.escape(member.uid ?? ""))\"\(position == 0 ? " checked" : "")>"
                html += "<label for=\"\(id)\">\(HTML.escape(member.displayName)) (\(member.card.properties.count) properties)</label> "
                html += "<input type=\"hidden\" name=\"uid\" value=\"\(HTML.escape(member.uid ?? ""))\">"
            }
            html += "</fieldset><button type=\"submit\">Merge</button></form></section>\n"
        }
        return .page(layout.render(title: "Duplicates", notice: notice(from: request.query), body: html))
    }

    /// The duplicates page while the search runs: says so, and links to itself.
    private func duplicatesComputingPage(_ request: WebRequest, started: Date, contacts: Int) -> WebResponse {
        let seconds = max(0, Int(Date().timeIntervalSince(started)))
        let html = "<h1>Duplicates</h1>\n<p class=\"computing\">Still looking for duplicates among \(contacts) contacts "
            + "(started \(seconds) s ago; this takes a few seconds on a large book). <a href=\"/duplicates\">Reload</a> to see the groups.</p>"
        return .page(layout.render(title: "Duplicates", notice: notice(from: request.query), body: html))
    }

    func mergeContacts(_ request: WebRequest) async throws -> WebResponse {
        let keep = try required(request.form, "keep")
        let others = request.form.all("uid").filter { $0 != keep }
        guard !others.isEmpty else { throw WebError(status: 400, message: "Choose at least two contacts to merge; nothing was changed.") }
        let outcome = try await book.mergeContacts([keep] + others)
        await catalog.refresh([keep] + others, from: book)
        return .redirect(to: HTML.unescapedLink("/contact", [("uid", outcome.kept),
                                                             ("done", "Merged \(outcome.absorbed.count + 1) contacts into this one."),
                                                             ("unmerge", outcome.kept)]))
    }

    func undoMerge(_ request: WebRequest) async throws -> WebResponse {
        let uid = try required(request.form, "uid")
        let events = try await book.undoMerge(uid: uid)
        await catalog.refresh(events.map(\.uid), from: book)
        return .redirect(to: HTML.unescapedLink("/contact", [("uid", uid), ("done", "The merge was undone: \(events.count) contacts are as they were.")]))
    }

    // MARK: - Import and export

    func exchangePage(notice: Notice?, status: Int = 200) -> WebResponse {
        var html = """
        <h1>Import and export</h1>
        <section><h2>Import</h2>
        <form method="post" action="/import" enctype="multipart/form-data">
        \(layout.csrfField)
        <label for="upload">File to import (.vcf, jCard .json, xCard .xml)</label>
        <input type="file" id="upload" name="upload" accept=".vcf,.vcard,.json,.xml,text/vcard">
        <p class="actions"><button type="submit">Import</button></p>
        </form>
        <p>Contacts already in the book are skipped and listed.</p>
        </section>
        <section><h2>Export</h2>
        <form method="get" action="/export">
        <label for="format">Format</label>
        <select id="format" name="format">
        """
        for (format, label) in [(ExportFormat.vcard4, "vCard 4.0"), (.vcard3, "vCard 3.0"), (.jcard, "jCard (JSON)"), (.xcard, "xCard (XML)")] {
            html += "<option value=\"\(format.rawValue)\">\(label)</option>"
        }
        html += """
        </select>
        <label for="export-query">Only contacts matching (empty: all)</label>
        <input type="search" id="export-query" name="q">
        <p class="actions"><button type="submit">Export</button></p>
        </form>
        </section>

        """
        return .page(layout.render(title: "Import and export", notice: notice, body: html), status: status)
    }

    func export(_ request: WebRequest) async throws -> WebResponse {
        guard let format = ExportFormat(rawValue: request.query["format"] ?? "vcard4") else {
            throw WebError(status: 400, message: "Unknown export format; choose vCard 4.0, vCard 3.0, jCard or xCard.")
        }
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("cardsync-web-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: temporary) }
        let path = temporary.appendingPathComponent("contacts.\(format.fileExtension)").path
        _ = try await book.exportContacts(as: format, to: .file(path))
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let query = request.query["q"] ?? ""
        if !query.trimmingCharacters(in: .whitespaces).isEmpty {
            // A selection: the matching contacts, written by the same exporter one by one.
            let (entries, _) = await catalog.page(query: query, sort: .name, offset: 0, limit: .max)
            let uids = Set(entries.map(\.uid))
            bytes = try await exportSelection(uids, format: format, directory: temporary)
        }
        let types: [ExportFormat: String] = [.vcard3: "text/vcard; charset=utf-8", .vcard4: "text/vcard; charset=utf-8",
                                             .jcard: "application/vcard+json", .xcard: "application/vcard+xml"]
        return .download(bytes, contentType: types[format] ?? "application/octet-stream",
                         fileName: "\(bookName).\(format.fileExtension)")
    }

    private func exportSelection(_ uids: Set<String>, format: ExportFormat, directory: URL) async throws -> [UInt8] {
        var cards: [VCard] = []
        for uid in uids.sorted() {
            if let file = try? await book.contactFile(uid: uid) { cards.append(file.card) }
        }
        let staging = directory.appendingPathComponent("selection.vcf")
        try Data(VCardWriter().bytes(for: cards)).write(to: staging)
        let selectionBook = directory.appendingPathComponent("selection")
        try AddressBook.create(at: selectionBook)
        let path = directory.appendingPathComponent("selected.\(format.fileExtension)").path
        try await AddressBook.withOpen(at: selectionBook) { selection in
            _ = try await selection.importContacts(from: [.file(staging.path)], onDuplicate: .keep)
            _ = try await selection.exportContacts(as: format, to: .file(path))
        }
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func importUpload(_ request: WebRequest) async throws -> WebResponse {
        guard let contentType = request.contentType, contentType.hasPrefix("multipart/form-data") else {
            throw WebError(status: 400, message: "Send the file with the import form; nothing was imported.")
        }
        let form = MultipartForm(request.body, contentType: contentType)
        guard let upload = form.parts.first(where: { $0.name == "upload" && $0.fileName != nil }), !upload.bytes.isEmpty else {
            return exchangePage(notice: Notice(kind: .error, message: "Choose a file to import; nothing was imported."), status: 422)
        }
        let name = upload.fileName.flatMap { $0.isEmpty ? nil : $0 } ?? "upload"
        let report = try await book.importContacts(from: [.bytes(upload.bytes, name: name)])
        await catalog.reload(from: book)
        var details = report.duplicates.map { "\($0.source):\($0.line): already in the book as \($0.existingFile)" }
        details += report.diagnostics.filter { $0.severity == .error }.map(\.description)
        let message = "Imported \(report.added) contact\(report.added == 1 ? "" : "s") from \(name); \(report.duplicates.count) duplicate\(report.duplicates.count == 1 ? "" : "s") skipped."
        if details.count > 20 { details = Array(details.prefix(20)) + ["… and \(details.count - 20) more"] }
        return exchangePage(notice: Notice(kind: report.hasErrors ? .error : .success, message: message, details: details))
    }

    // MARK: - Sync

    func syncPage(notice: Notice?) async -> WebResponse {
        guard syncAction != nil else {
            return .page(layout.render(title: "Sync", notice: notice, body: "<h1>Sync</h1>\n<p>This book has no remote; add one with <code>cardsync remote</code>.</p>"))
        }
        var html = "<h1>Sync</h1>\n"
        // The last sync as the journal keeps it (its checkpoint), so it survives restarts.
        if let last = try? await book.lastSync() {
            html += "<section class=\"last-sync\"><h2>Last sync</h2><p>With \(HTML.escape(last.remote ?? "the remote")) at "
            html += "<time datetime=\"\(HTML.escape(last.time))\">\(HTML.escape(last.time))</time>"
            html += last.summary.map { ": \(HTML.escape($0)).</p>" } ?? ".</p>"
            html += "</section>\n"
        } else {
            html += "<p>This book has not been synced yet.</p>\n"
        }
        html += layout.buttonForm(action: "/sync", label: "Sync now")
        return .page(layout.render(title: "Sync", notice: notice, body: html))
    }

    func syncNow() async throws -> WebResponse {
        guard let syncAction else { throw WebError(status: 404, message: "This book has no remote to sync with.") }
        do {
            let summary = try await syncAction(book)
            await catalog.reload(from: book)
            return await syncPage(notice: Notice(kind: .success, message: summary))
        } catch {
            return await syncPage(notice: Notice(kind: .error, message: "The sync failed: \(error)"))
        }
    }
}
