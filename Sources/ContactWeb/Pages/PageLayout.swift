/// The frame every page shares: header with the book's name and navigation, a notice, the body.
struct PageLayout: Sendable {
    var bookName: String
    var csrfToken: String
    var hasRemote: Bool
    /// Whether the header offers "Sign out" (a server started with a password).
    var canSignOut = false

    /// A whole page.
    func render(title: String, notice: Notice? = nil, body: String) -> String {
        var html = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(HTML.escape(title)) · cardsync</title>
        <link rel="stylesheet" href="/static/app.css">
        <script src="/static/app.js" defer></script>
        </head>
        <body>
        <header class="site">
        <a class="home" href="/">cardsync · \(HTML.escape(bookName))</a>
        <nav aria-label="Main">
        <a href="/">Contacts</a>
        <a href="/new">New contact</a>
        <a href="/duplicates">Duplicates</a>
        <a href="/exchange">Import and export</a>
        \(hasRemote ? "<a href=\"/sync\">Sync</a>" : "")
        </nav>
        \(canSignOut ? buttonForm(action: "/logout", label: "Sign out", className: "sign-out") : "")
        </header>
        <main id="main">

        """
        if let notice { html += notice.render(csrfToken: csrfToken) }
        html += body
        html += "\n</main>\n</body>\n</html>\n"
        return html
    }

    /// The hidden CSRF field every form carries.
    var csrfField: String { "<input type=\"hidden\" name=\"csrf\" value=\"\(HTML.escape(csrfToken))\">" }

    /// A form that posts to `action` with one button (and hidden `fields`).
    func buttonForm(action: String, label: String, fields: [(String, String)] = [], className: String? = nil) -> String {
        var html = "<form method=\"post\" action=\"\(HTML.escape(action))\" class=\"inline\">\(csrfField)"
        for (name, value) in fields {
            html += "<input type=\"hidden\" name=\"\(HTML.escape(name))\" value=\"\(HTML.escape(value))\">"
        }
        let classAttribute = className.map { " class=\"\(HTML.escape($0))\"" } ?? ""
        html += "<button type=\"submit\"\(classAttribute)>\(HTML.escape(label))</button></form>"
        return html
    }
}

/// A message at the top of a page: what was done, or what went wrong; perhaps with an undo button.
struct Notice: Sendable {
    enum Kind: String, Sendable {
        case success
        case error
    }

    var kind: Kind
    var message: String
    /// Details shown under the message (error locations), each on its own line.
    var details: [String] = []
    /// An undo button: its label, the action it posts to and its fields.
    var undo: (label: String, action: String, fields: [(String, String)])?

    func render(csrfToken: String) -> String {
        let role = kind == .error ? "alert" : "status"
        var html = "<div class=\"notice \(kind.rawValue)\" role=\"\(role)\"><p>\(HTML.escape(message))</p>"
        if !details.isEmpty {
            html += "<ul class=\"problems\">" + details.map { "<li><code>\(HTML.escape($0))</code></li>" }.joined() + "</ul>"
        }
        if let undo {
            html += PageLayout(bookName: "", csrfToken: csrfToken, hasRemote: false)
                .buttonForm(action: undo.action, label: undo.label, fields: undo.fields)
        }
        return html + "</div>\n"
    }
}
