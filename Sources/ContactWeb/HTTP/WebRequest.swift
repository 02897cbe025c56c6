/// A request as the pages see it: method, path, query and form fields.
struct WebRequest: Sendable {
    var method: String
    var path: String
    var query: FormFields
    var form: FormFields
    /// The body's bytes (for uploads).
    var body: [UInt8]
    var contentType: String?
    /// The `Cookie` header (the sign-in session's cookie travels in it).
    var cookieHeader: String? = nil
}
