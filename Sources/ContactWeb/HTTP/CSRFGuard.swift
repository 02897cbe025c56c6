import Crypto
import Foundation

/// Protection against cross-site request forgery: every form carries a token derived from a
/// secret made when the server starts (so it changes with every run and never leaves the
/// process but in pages); a POST without the right token is refused before anything happens.
struct CSRFGuard: Sendable {
    /// The token every form carries.
    let token: String

    init() {
        var generator = SystemRandomNumberGenerator()
        let secret = SymmetricKey(data: (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let mac = HMAC<SHA256>.authenticationCode(for: Array("cardsync web form".utf8), using: secret)
        token = mac.map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `candidate` is the token (compared in constant time).
    func accepts(_ candidate: String?) -> Bool {
        guard let candidate else { return false }
        let given = Array(candidate.utf8)
        let expected = Array(token.utf8)
        guard given.count == expected.count else { return false }
        var difference: UInt8 = 0
        for index in given.indices { difference |= given[index] ^ expected[index] }
        return difference == 0
    }
}
