import Foundation

extension WebSite {
    /// The sign-in page: one labelled password field and a "Sign in" button.
    func signInPage(notice: Notice?, status: Int = 200) -> WebResponse {
        guard signIn != nil else { return .redirect(to: "/") }
        let html = """
        <h1>Sign in</h1>
        <form method="post" action="/login">
        \(layout.csrfField)
        <label for="password">Password</label>
        <input type="password" id="password" name="password" autocomplete="current-password" required autofocus>
        <p class="actions"><button type="submit">Sign in</button></p>
        </form>

        """
        return .page(layout.render(title: "Sign in", notice: notice, body: html), status: status)
    }

    /// Checks the password: right, the session cookie and the list; wrong, after a short wait,
    /// the sign-in page again saying so.
    func signInAttempt(_ request: WebRequest) async -> WebResponse {
        guard let signIn else { return .redirect(to: "/") }
        guard let password = request.form["password"], signIn.checksPassword(password) else {
            try? await Task.sleep(for: SignInGuard.wrongPasswordDelay)
            logger.notice("a sign-in to cardsync web was refused (wrong password)")
            return signInPage(notice: Notice(kind: .error, message: "That password is not the right one; you are not signed in. Try again."), status: 401)
        }
        var answer = WebResponse.redirect(to: "/")
        answer.headers.append(("Set-Cookie", signIn.sessionCookie))
        return answer
    }
}
