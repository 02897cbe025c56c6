import _CryptoExtras
import Crypto

/// A server admin's password as CouchDB stores it: PBKDF2-SHA256 with a random salt.
/// The password itself is never stored.
///
/// ```swift
/// let hash = try PasswordHash(name: "admin", password: "secret")
/// hash.verifies(password: "secret")   // true
/// ```
public struct PasswordHash: Sendable, Hashable, Codable {
    /// CouchDB 3.5's default number of PBKDF2 rounds.
    public static let defaultIterations = 600_000

    /// The admin's user name.
    public var name: String
    /// Always `pbkdf2`.
    public var passwordScheme: String
    /// Always `sha256`.
    public var pseudoRandomFunction: String
    /// Random salt, hex.
    public var salt: String
    /// PBKDF2 rounds.
    public var iterations: Int
    /// The derived key, hex.
    public var derivedKey: String

    enum CodingKeys: String, CodingKey {
        case name
        case passwordScheme = "password_scheme"
        case pseudoRandomFunction = "pbkdf2_prf"
        case salt
        case iterations
        case derivedKey = "derived_key"
    }

    /// Hashes `password` with a new random salt.
    ///
    /// - Throws: when the key derivation fails.
    public init(name: String, password: String, iterations: Int = PasswordHash.defaultIterations) throws {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        self.name = name
        self.passwordScheme = "pbkdf2"
        self.pseudoRandomFunction = "sha256"
        self.salt = Self.hex(salt)
        self.iterations = iterations
        self.derivedKey = Self.hex(try Self.derive(password: password, salt: salt, iterations: iterations))
    }

    /// Whether `password` is the one this hash was made from (constant-time comparison).
    public func verifies(password: String) -> Bool {
        guard let salt = Self.bytes(hex: salt), let expected = Self.bytes(hex: derivedKey),
              let actual = try? Self.derive(password: password, salt: salt, iterations: iterations),
              actual.count == expected.count
        else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(actual, expected) { difference |= left ^ right }
        return difference == 0
    }

    private static func derive(password: String, salt: [UInt8], iterations: Int) throws -> [UInt8] {
        let key = try KDF.Insecure.PBKDF2.deriveKey(from: Array(password.utf8), salt: salt, using: .sha256,
                                                    outputByteCount: 32, unsafeUncheckedRounds: iterations)
        return key.withUnsafeBytes { Array($0) }
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var output: [UInt8] = []
        for byte in bytes {
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var output: [UInt8] = []
        var index = 0
        while index < digits.count {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            output.append(high << 4 | low)
            index += 2
        }
        return output
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
