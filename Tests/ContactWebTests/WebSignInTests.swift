@testable import ContactWeb
import Testing

/// The sessions behind `cardsync web --password`: one per sign-in, closed by signing out, the
/// oldest forgotten beyond the limit, and found only from the cookie that names them.
@Suite struct WebSignInTests {
    @Test func eachSignInOpensASessionOfItsOwnThatSigningOutCloses() async {
        let sessions = SignInSessions()
        let first = await sessions.open()
        let second = await sessions.open()
        #expect(first != second)
        #expect(first.count == 64)
        #expect(await sessions.contains(first))
        #expect(await sessions.contains(second))
        await sessions.close(first)
        #expect(await !sessions.contains(first))
        #expect(await sessions.contains(second))
        await sessions.close(first)
        #expect(await sessions.count == 1)
    }

    @Test func theOldestSessionsAreForgottenBeyondTheLimit() async {
        let sessions = SignInSessions()
        let oldest = await sessions.open()
        var newest = ""
        for _ in 0..<SignInSessions.limit { newest = await sessions.open() }
        #expect(await !sessions.contains(oldest))
        #expect(await sessions.contains(newest))
        #expect(await sessions.count == SignInSessions.limit)
    }

    @Test func theSessionTokenIsReadFromItsCookieOnly() async {
        let signIn = SignInGuard(checksPassword: { $0 == "right" })
        let token = await signIn.sessions.open()
        #expect(SignInGuard.sessionToken(in: "theme=dark; cardsync-session=\(token); other=1") == token)
        #expect(await signIn.isSignedIn(cookieHeader: "cardsync-session=\(token)"))
        #expect(await !signIn.isSignedIn(cookieHeader: "other-session=\(token)"))
        #expect(await !signIn.isSignedIn(cookieHeader: nil))
        #expect(await !signIn.isSignedIn(cookieHeader: "cardsync-session=" + String(token.reversed())))
    }
}
