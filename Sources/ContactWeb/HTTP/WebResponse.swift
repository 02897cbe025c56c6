/// What a page handler answers: a status, a body and the headers that differ from page to page.
struct WebResponse: Sendable {
    var status: Int
    var contentType: String
    var body: [UInt8]
    var headers: [(String, String)] = []

    /// An HTML page.
    static func page(_ html: String, status: Int = 200) -> WebResponse {
        WebResponse(status: status, contentType: "text/html; charset=utf-8", body: Array(html.utf8))
    }

    /// A redirect after a form was posted (post/redirect/get).
    static func redirect(to location: String) -> WebResponse {
        WebResponse(status: 303, contentType: "text/plain; charset=utf-8", body: Array("See \(location)\n".utf8),
                    headers: [("Location", location)])
    }

    /// A download.
    static func download(_ bytes: [UInt8], contentType: String, fileName: String) -> WebResponse {
        WebResponse(status: 200, contentType: contentType, body: bytes,
                    headers: [("Content-Disposition", "attachment; filename=\"\(fileName)\"")])
    }
}
