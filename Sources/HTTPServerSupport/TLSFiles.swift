public import NIOSSL

/// The PEM files a TLS server is started with: the certificate chain (server certificate first)
/// and its private key.
public struct TLSFiles: Sendable, Hashable {
    /// The certificate chain file (PEM).
    public var certificatePath: String
    /// The private key file (PEM).
    public var keyPath: String

    /// The certificate and key files.
    public init(certificatePath: String, keyPath: String) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
    }

    /// Reads both files into a server TLS configuration.
    /// - Throws: ``TLSFilesError`` naming the file that cannot be read or holds no usable PEM.
    public func serverConfiguration() throws(TLSFilesError) -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        } catch {
            throw TLSFilesError(path: certificatePath, message: "not a readable PEM certificate (\(error))")
        }
        guard !chain.isEmpty else { throw TLSFilesError(path: certificatePath, message: "no certificate in the file") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        } catch {
            throw TLSFilesError(path: keyPath, message: "not a readable PEM private key (\(error))")
        }
        return TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
    }
}

/// A TLS certificate or key file that cannot be used.
public struct TLSFilesError: Error, Sendable, CustomStringConvertible {
    /// The file concerned.
    public var path: String
    /// What is wrong with it.
    public var message: String

    public var description: String { "\(path): \(message)" }
}
