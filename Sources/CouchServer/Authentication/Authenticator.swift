import Crypto
import ExtrasBase64
import Foundation

/// Checks credentials (basic auth, `AuthSession` cookies) against the stored admin hash and
/// makes session cookies.
///
/// PBKDF2 is slow on purpose, so a password that verified once is remembered for the life of
/// the process as an HMAC under a random per-process key (never the password itself).
actor Authenticator {
    /// Who made a request.
    enum Identity: Sendable, Equatable {
        case anonymous
        case admin(name: String, via: String)
    }

    let admin: PasswordHash?
    private let cookieSecret: [UInt8]
    private let cacheKey = SymmetricKey(size: .bits256)
    private var verified: Set<Data> = []
    let sessionTimeout: Int

    init(admin: PasswordHash?, cookieSecret: [UInt8], sessionTimeout: Int) {
        self.admin = admin
        self.cookieSecret = cookieSecret
        self.sessionTimeout = sessionTimeout
    }

    /// Whether `name` and `password` are the admin's.
    func check(name: String, password: String) async -> Bool {
        guard let admin, name == admin.name else { return false }
        let fingerprint = Data(HMAC<SHA256>.authenticationCode(for: Array("\(name):\(password)".utf8), using: cacheKey))
        if verified.contains(fingerprint) { return true }
        let matches = await Task.detached { admin.verifies(password: password) }.value
        if matches { verified.insert(fingerprint) }
        return matches
    }

    /// A new `AuthSession` cookie value for `name`.
    func makeSessionCookie(name: String, now: Date = Date()) -> String {
        let stamp = String(Int(now.timeIntervalSince1970), radix: 16, uppercase: true)
        let payload = "\(name):\(stamp)"
        let mac = signature(payload)
        let token = Array(payload.utf8) + [UInt8(ascii: ":")] + mac
        return Base64.encodeToString(bytes: token, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    /// The admin name in a valid, unexpired cookie value; `nil` otherwise.
    func validateSessionCookie(_ value: String, now: Date = Date()) -> String? {
        guard let admin else { return nil }
        guard let bytes = try? Base64.decode(string: value, options: [.base64UrlAlphabet, .omitPaddingCharacter]) else {
            return nil
        }
        guard bytes.count > 32 else { return nil }
        let payloadBytes = Array(bytes[..<(bytes.count - 33)])
        guard bytes[bytes.count - 33] == UInt8(ascii: ":") else { return nil }
        let mac = Array(bytes[(bytes.count - 32)...])
        let payload = String(decoding: payloadBytes, as: UTF8.self)
        guard let colon = payload.lastIndex(of: ":") else { return nil }
        let name = String(payload[..<colon])
        guard name == admin.name, let stamp = Int(payload[payload.index(after: colon)...], radix: 16) else { return nil }
        let expected = signature(payload)
        var difference: UInt8 = 0
        for (left, right) in zip(expected, mac) { difference |= left ^ right }
        guard difference == 0, stamp + sessionTimeout > Int(now.timeIntervalSince1970) else { return nil }
        return name
    }

    private func signature(_ payload: String) -> [UInt8] {
        let key = SymmetricKey(data: cookieSecret + Array((admin?.salt ?? "").utf8))
        return Array(HMAC<SHA256>.authenticationCode(for: Array(payload.utf8), using: key))
    }
}
