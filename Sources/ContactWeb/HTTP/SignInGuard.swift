import Crypto
import Foundation

/// The password gate of a server started with a password: every page but the sign-in page and
/// the static assets needs the session cookie a sign-in sets. Each sign-in opens a session of
/// its own, which "Sign out" closes; sessions live in memory only, so signing in again is needed
/// after a restart. The password itself is never kept, only the check given by the command (a
/// PBKDF2 hash).
struct SignInGuard: Sendable {
    /// The session cookie's name.
    static let cookieName = "cardsync-session"
    /// How long a wrong password waits before its answer (slows guessing).
    static let wrongPasswordDelay: Duration = .seconds(1)

    /// Whether a password is the right one.
    let checksPassword: @Sendable (String) -> Bool
    /// The sessions signed in now.
    let sessions = SignInSessions()

    init(checksPassword: @escaping @Sendable (String) -> Bool) {
        self.checksPassword = checksPassword
    }

    /// Pages anyone may load: the sign-in page and the style sheet and script it uses.
    static func isPublic(_ path: String) -> Bool {
        path == "/login" || path.hasPrefix("/static/")
    }

    /// The `Set-Cookie` value of a sign-in: not readable by scripts, sent only over TLS and only
    /// by pages of this server.
    static func sessionCookie(_ token: String) -> String {
        "\(cookieName)=\(token); Path=/; HttpOnly; Secure; SameSite=Strict"
    }

    /// The `Set-Cookie` value of a sign-out: the browser forgets the session cookie.
    static let expiredSessionCookie = "\(cookieName)=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict"

    /// The session token a `Cookie` header carries, if any.
    static func sessionToken(in cookieHeader: String?) -> String? {
        guard let cookieHeader else { return nil }
        for pair in cookieHeader.split(separator: ";") {
            let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0] == cookieName { return String(parts[1]) }
        }
        return nil
    }

    /// Whether the `Cookie` header carries a session that is signed in now.
    func isSignedIn(cookieHeader: String?) async -> Bool {
        guard let token = Self.sessionToken(in: cookieHeader) else { return false }
        return await sessions.contains(token)
    }
}

/// The sessions of one server run. A token is 32 random bytes; only its SHA-256 digest is kept,
/// so looking one up tells nothing about the tokens by its timing. The oldest sessions are
/// forgotten beyond ``limit`` (each browser that signs in opens one).
actor SignInSessions {
    /// How many sessions are kept at most.
    static let limit = 1000

    private var digests: Set<String> = []
    private var opened: [String] = []

    /// Opens a session and returns its token (the session cookie's value).
    func open() -> String {
        var generator = SystemRandomNumberGenerator()
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        let digest = Self.digest(token)
        digests.insert(digest)
        opened.append(digest)
        if opened.count > Self.limit {
            digests.remove(opened.removeFirst())
        }
        return token
    }

    /// Whether `token` is the token of an open session.
    func contains(_ token: String) -> Bool {
        digests.contains(Self.digest(token))
    }

    /// Closes the session of `token` (nothing happens for an unknown token).
    func close(_ token: String) {
        let digest = Self.digest(token)
        guard digests.remove(digest) != nil else { return }
        opened.removeAll { $0 == digest }
    }

    /// How many sessions are open.
    var count: Int { digests.count }

    private static func digest(_ token: String) -> String {
        SHA256.hash(data: Array(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
