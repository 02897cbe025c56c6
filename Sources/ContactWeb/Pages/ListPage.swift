/// The contact list: a search box, sort links, one page of contacts with photo, email and phone.
struct ListPage: Sendable {
    var query: String
    var sort: ContactCatalog.Sort
    var offset: Int
    var pageSize: Int
    var entries: [ContactListEntry]
    var total: Int
    var bookCount: Int

    func render(layout: PageLayout, notice: Notice?) -> String {
        var html = """
        <h1>Contacts</h1>
        <form method="get" action="/" class="search" role="search">
        <label for="search">Search</label>
        <input type="search" id="search" name="q" value="\(HTML.escape(query))" autocomplete="off">
        <input type="hidden" name="sort" value="\(sort.rawValue)">
        <button type="submit">Search</button>
        </form>
        <p class="sorting">Sort by:
        """
        for (choice, label) in [(ContactCatalog.Sort.name, "display name"), (.family, "family name")] {
            if choice == sort {
                html += " <strong>\(label)</strong>"
            } else {
                html += " <a href=\"\(HTML.link("/", [("q", query), ("sort", choice.rawValue)]))\">\(label)</a>"
            }
        }
        html += "</p>\n<div id=\"results\">\n" + renderResults() + "</div>\n"
        return layout.render(title: "Contacts", notice: notice, body: html)
    }

    /// The count, the table and the paging links (also what the search-as-you-type script swaps in).
    func renderResults() -> String {
        var html = "<p class=\"count\" aria-live=\"polite\">"
        if query.isEmpty {
            html += "\(total) contact\(total == 1 ? "" : "s")"
        } else {
            html += "\(total) of \(bookCount) contacts match “\(HTML.escape(query))”"
        }
        if total > pageSize {
            html += ", showing \(offset + 1)–\(min(offset + pageSize, total))"
        }
        html += "</p>\n"
        guard !entries.isEmpty else { return html }
        html += "<table class=\"contacts\">\n<thead><tr><th scope=\"col\">Name</th><th scope=\"col\">Email</th><th scope=\"col\">Phone</th></tr></thead>\n<tbody>\n"
        for entry in entries {
            let photo = entry.photoType.map { _ in "<img class=\"thumb\" src=\"\(HTML.link("/photo", [("uid", entry.uid)]))\" alt=\"\">" }
                ?? "<span class=\"thumb initials\" aria-hidden=\"true\">\(HTML.escape(String(entry.displayName.prefix(1)).uppercased()))</span>"
            html += "<tr><td>\(photo)<a href=\"\(HTML.link("/contact", [("uid", entry.uid)]))\">\(HTML.escape(entry.displayName))</a></td>"
            html += "<td>\(HTML.escape(entry.email ?? ""))</td><td>\(HTML.escape(entry.phone ?? ""))</td></tr>\n"
        }
        html += "</tbody>\n</table>\n<nav class=\"paging\" aria-label=\"Pages\">"
        if offset > 0 {
            html += "<a rel=\"prev\" href=\"\(HTML.link("/", [("q", query), ("sort", sort.rawValue), ("offset", String(max(0, offset - pageSize)))]))\">Previous page</a> "
        }
        if offset + pageSize < total {
            html += "<a rel=\"next\" href=\"\(HTML.link("/", [("q", query), ("sort", sort.rawValue), ("offset", String(offset + pageSize))]))\">Next page</a>"
        }
        return html + "</nav>\n"
    }
}
