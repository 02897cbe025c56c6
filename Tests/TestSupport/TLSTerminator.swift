import NIOCore
import NIOPosix
import NIOSSL

/// An HTTPS front for a plain-HTTP test server: accepts TLS on a free loopback port, with a
/// self-signed certificate that no trust store knows, and forwards the decrypted bytes to
/// `127.0.0.1:upstreamPort`. Lets tests show that clients verify certificates unless told not to.
public final class TLSTerminator: Sendable {
    /// The port it accepts TLS connections on.
    public let port: Int
    private let listener: any Channel

    private init(port: Int, listener: any Channel) {
        self.port = port
        self.listener = listener
    }

    /// Starts accepting on a free loopback port, forwarding each connection to `upstreamPort`.
    public static func start(forwardingTo upstreamPort: Int) async throws -> TLSTerminator {
        let certificate = try NIOSSLCertificate(bytes: Array(selfSignedCertificate.utf8), format: .pem)
        let key = try NIOSSLPrivateKey(bytes: Array(privateKey.utf8), format: .pem)
        let context = try NIOSSLContext(configuration: .makeServerConfiguration(
            certificateChain: [.certificate(certificate)], privateKey: .privateKey(key)))
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { client in
                do {
                    try client.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                } catch {
                    return client.eventLoop.makeFailedFuture(error)
                }
                return ClientBootstrap(group: client.eventLoop)
                    .connect(host: "127.0.0.1", port: upstreamPort)
                    .assumeIsolated()
                    .flatMapThrowing { upstream in
                        let (front, back) = ByteRelay.pair()
                        try client.pipeline.syncOperations.addHandler(front)
                        try upstream.pipeline.syncOperations.addHandler(back)
                    }
                    .nonisolated()
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = listener.localAddress?.port else {
            try? await listener.close()
            throw ChannelError.unknownLocalAddress
        }
        return TLSTerminator(port: port, listener: listener)
    }

    /// Stops accepting connections.
    public func stop() async {
        try? await listener.close()
    }

    /// A certificate for `127.0.0.1` and `localhost` (P-256, valid until 2126), signed by itself.
    /// A test key, for this loopback test endpoint only.
    public static let selfSignedCertificate = """
        -----BEGIN CERTIFICATE-----
        MIIBtTCCAVugAwIBAgIUKzf+jxa2Wkuw6ROqOGz1VE6ajOYwCgYIKoZIzj0EAwIw
        ITEfMB0GA1UEAwwWY2FyZHN5bmMgdGVzdCBlbmRwb2ludDAgFw0yNjExMjQxNzE0
        MDhaGA8yMTI2MTAzMTE3MTQwOFowITEfMB0GA1UEAwwWY2FyZHN5bmMgdGVzdCBl
        bmRwb2ludDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABFahDrKBUlVg0lvYZPKP
        2SPS69ajVvi+RaQdwqptMm8O07qWvUvOn3YkRLu8JxvpYV7TfN5JxnUtJXwVOywV
        k9ejbzBtMB0GA1UdDgQWBBQ+3gz5kkPfso2vzH5ouC9zc8FNhjAfBgNVHSMEGDAW
        gBQ+3gz5kkPfso2vzH5ouC9zc8FNhjAPBgNVHRMBAf8EBTADAQH/MBoGA1UdEQQT
        MBGHBH8AAAGCCWxvY2FsaG9zdDAKBggqhkjOPQQDAgNIADBFAiEAvbzlFRektGHG
        dVs4Kng3iN7j9y0kAhlRJpfesb2wEEcCID5Qw2X9FMnMpgCLVuR7iy0Mvr79W0lq
        2BrGDLGEA+Bz
        -----END CERTIFICATE-----
        """

    public static let privateKey = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgXc9el1JVgA1PibrS
        MgR2luNrYWC9aGYgvCfIa1nopqKhRANCAARWoQ6ygVJVYNJb2GTyj9kj0uvWo1b4
        vkWkHcKqbTJvDtO6lr1Lzp92JES7vCcb6WFe03zeScZ1LSV8FTssFZPX
        -----END PRIVATE KEY-----
        """
}

/// One end of a two-channel relay: what one channel reads, the other writes; when one closes,
/// so does the other. Both channels are on the same event loop.
private final class ByteRelay: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var partner: ByteRelay?
    private var context: ChannelHandlerContext?

    static func pair() -> (ByteRelay, ByteRelay) {
        let first = ByteRelay()
        let second = ByteRelay()
        first.partner = second
        second.partner = first
        return (first, second)
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner?.context?.writeAndFlush(data, promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner?.context?.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
