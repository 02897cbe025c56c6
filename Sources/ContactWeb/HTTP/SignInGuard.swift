import Crypto
import Foundation

/// The password gate of a server started with a password: every page but the sign-in page and
/// the static assets needs the session cookie the sign-in sets. The cookie's value is made from a
/// secret drawn when the server starts, so signing in again is needed after a restart; the
/// password itself is never kept, only the check given by the command (a PBKDF2 hash).
struct SignInGuard: Sendable {
    /// The session cookie's name.
    static let cookieName = "cardsync-session"
    /// How long a wrong password waits before its answer (slows guessing).
    static let wrongPasswordDelay: Duration = .seconds(1)

    /// Whether a password is the right one.
    let checksPassword: @Sendable (String) -> Bool
    /// The session cookie's value for this run of the server.
    let sessionToken: String

    init(checksPassword: @escaping @Sendable (String) -> Bool) {
        self.checksPassword = checksPassword
        var generator = SystemRandomNumberGenerator()
        let secret = SymmetricKey(data: (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let mac = HMAC<SHA256>.authenticationCode(for: Array("cardsync web session".utf8), using: secret)
        sessionToken = mac.map { String(format: "%02x", $0) }.joined()
    }

    /// Pages anyone may load: the sign-in page and the style sheet and script it uses.
    static func isPublic(_ path: String) -> Bool {
        path == "/login" || path.hasPrefix("/static/")
    }

    /// The `Set-Cookie` value of a sign-in: not readable by scripts, sent only over TLS and only
    /// by pages of this server.
    var sessionCookie: String {
        "\(Self.cookieName)=\(sessionToken); Path=/; HttpOnly; Secure; SameSite=Strict"
    }

    /// Whether the `Cookie` header carries this run's session (compared in constant time).
    func isSignedIn(cookieHeader: String?) -> Bool {
        guard let cookieHeader else { return false }
        for pair in cookieHeader.split(separator: ";") {
            let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0] == Self.cookieName else { continue }
            let given = Array(parts[1].utf8)
            let expected = Array(sessionToken.utf8)
            guard given.count == expected.count else { continue }
            var difference: UInt8 = 0
            for index in given.indices { difference |= given[index] ^ expected[index] }
            if difference == 0 { return true }
        }
        return false
    }
}
