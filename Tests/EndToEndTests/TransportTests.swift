import AppSyncRuntime
import ChannelRuntime
import ChannelTransports
import Crypto
import Foundation
import Logging
import NIOChannelTransports
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import Testing
import URLSessionChannelTransports
import X509
import ChannelRuntimeTesting

/// A TCP server on 127.0.0.1 that answers each WebSocket upgrade request with scripted bytes, all in
/// one write, and then closes its side (FIN). That is how AppSync answers bad connect credentials:
/// a successful upgrade, a `connection_error`, a close; when these arrive in one read, the client must
/// still see the frame and the end of the connection.
struct ScriptedServer {
    let channel: any Channel
    /// Connections the client has closed (or lost), for a test to read or await.
    let closedConnections: Watched<Int>
    /// Connections accepted, for a test to read or await.
    let openedConnections: Watched<Int>
    /// Sockets still open: accepted and not yet closed.
    var openSockets: Int { open.value }
    /// The same, for a test to await (`open.wait(_:until:)`).
    let open: Watched<Int>
    var port: Int { channel.localAddress!.port! }

    /// `reply` gets the `Sec-WebSocket-Accept` value for the request and returns the bytes to send.
    /// With `closing: false` the server keeps its side open after replying.
    static func start(
        tls: TLSConfiguration? = nil,
        closing: Bool = true,
        reply: @escaping @Sendable (_ accept: String) -> [UInt8]
    ) async throws -> ScriptedServer {
        try await start(tls: tls, closing: closing) { accept, _ in reply(accept) }
    }

    /// `reply` gets the `Sec-WebSocket-Accept` value and the request's text (head only). With
    /// `answeringEarly` the server answers as soon as the request line is in, before the rest of the
    /// request, as a hurried server (or a slow client) makes it happen.
    static func start(
        tls: TLSConfiguration? = nil,
        closing: Bool = true,
        answeringEarly: Bool = false,
        reply: @escaping @Sendable (_ accept: String, _ request: String) -> [UInt8]
    ) async throws -> ScriptedServer {
        let sslContext = try tls.map { try NIOSSLContext(configuration: $0) }
        let closed = Watched(0)
        let opened = Watched(0)
        let open = Watched(0)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                opened.update { $0 += 1 }
                open.update { $0 += 1 }
                return channel.eventLoop.makeCompletedFuture {
                    if let sslContext { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext)) }
                    try channel.pipeline.syncOperations.addHandler(ScriptedReplyHandler(closing: closing, answeringEarly: answeringEarly, reply: reply))
                    channel.closeFuture.whenComplete { _ in
                        closed.update { $0 += 1 }
                        open.update { $0 -= 1 }
                    }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return ScriptedServer(channel: channel, closedConnections: closed, openedConnections: opened, open: open)
    }

    func stop() async { try? await channel.close() }

    static func switchingProtocols(accept: String, subprotocol: String? = "aws-appsync-event-ws") -> [UInt8] {
        let chosen = subprotocol.map { "Sec-WebSocket-Protocol: \($0)\r\n" } ?? ""
        return Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\(chosen)\r\n".utf8)
    }

    /// A text frame.
    static func text(_ text: String) -> [UInt8] { frame(opcode: 0x1, Array(text.utf8)) }

    /// An unmasked, final server frame (payload up to 64 KiB).
    static func frame(opcode: UInt8, _ payload: [UInt8]) -> [UInt8] {
        precondition(payload.count <= 0xFFFF)
        let length: [UInt8] = payload.count < 126 ? [UInt8(payload.count)] : [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        return [0x80 | opcode] + length + payload
    }
}

/// A self-signed certificate for `localhost`, made for one test run.
struct LocalhostCertificate {
    let certificate: NIOSSLCertificate
    let privateKey: NIOSSLPrivateKey

    init() throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("localhost") }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: Date().addingTimeInterval(-3600),
            notValidAfter: Date().addingTimeInterval(3600),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                SubjectAlternativeNames([.dnsName("localhost")])
            },
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
        self.certificate = try NIOSSLCertificate(bytes: Array(try certificate.serializeAsPEM().pemString.utf8), format: .pem)
        self.privateKey = try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem)
    }

    var serverConfiguration: TLSConfiguration {
        .makeServerConfiguration(certificateChain: [.certificate(certificate)], privateKey: .privateKey(privateKey))
    }

    /// A client configuration that trusts only this certificate.
    var clientConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates([certificate])
        return configuration
    }
}

private final class ScriptedReplyHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let closing: Bool
    let answeringEarly: Bool
    let reply: @Sendable (String, String) -> [UInt8]
    var request = ""
    /// The script is played once; what the client sends after the request is read and ignored.
    var replied = false

    init(closing: Bool, answeringEarly: Bool, reply: @escaping @Sendable (String, String) -> [UInt8]) {
        self.closing = closing
        self.answeringEarly = answeringEarly
        self.reply = reply
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !replied else { return }
        request += String(buffer: Self.unwrapInboundIn(data))
        guard request.contains(answeringEarly ? "\r\n" : "\r\n\r\n") else { return }
        replied = true
        let key = request.split(separator: "\r\n")
            .first { $0.lowercased().hasPrefix("sec-websocket-key:") }
            .map { $0.dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces) } ?? ""
        let accept = Data(Insecure.SHA1.hash(data: Data((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
        context.writeAndFlush(NIOAny(ByteBuffer(bytes: reply(accept, request))), promise: nil)
        if closing { context.close(mode: .output, promise: nil) }
    }
}

/// The WebSocket part of the transport conformance suite: each case runs against every adapter in
/// `Adapters.webSocket`.
@Suite("WebSocket transport over real sockets")
struct TransportTests {
    static let adapters = Adapters.webSocket
    let quiet = Adapters.quiet

    func url(_ server: ScriptedServer) -> URL { URL(string: "ws://127.0.0.1:\(server.port)/event/realtime")! }

    /// Whether connecting fails (rather than succeeds); fails the test if it does not end within 10 s.
    func connectFails(_ transport: any WebSocketTransport, to url: URL) async throws -> Bool {
        try await awaiting("the connect to end") {
            do {
                _ = try await transport.connect(to: url, subprotocols: [ChannelAuthorization.eventSubprotocol])
                return false
            } catch {
                return true
            }
        }
    }

    /// Everything the session delivers until it ends; fails if it does not end within 10 s.
    func drain(_ session: any WebSocketSession) async throws -> [String] {
        let received = NIOLockedValueBox<(texts: [String], ended: Bool)>(([], false))
        let reader = Task {
            for await text in session.inbound { received.withLockedValue { $0.texts.append(text) } }
            received.withLockedValue { $0.ended = true }
        }
        defer { reader.cancel() }
        try await waitFor("the session to end") { received.withLockedValue { $0.ended } }
        return received.withLockedValue { $0.texts }
    }

    @Test(arguments: adapters)
    func aFrameAndCloseArrivingWithTheUpgradeResponseAreDelivered(_ adapter: Adapter<any WebSocketTransport>) async throws {
        let transport = adapter.make()
        let error = #"{"type":"connection_error","errors":[{"errorType":"UnauthorizedException"}]}"#
        let server = try await ScriptedServer.start { accept in
            ScriptedServer.switchingProtocols(accept: accept)
                + ScriptedServer.frame(opcode: 0x1, Array(error.utf8))
                + ScriptedServer.frame(opcode: 0x8, [0x03, 0xE8])
        }
        for _ in 0..<5 {
            let session = try await transport.connect(to: url(server), subprotocols: [ChannelAuthorization.eventSubprotocol])
            #expect(try await drain(session) == [error])
        }
        await server.stop()
    }

    @Test(arguments: adapters)
    func theConnectionFailsOnAppSyncsBadCredentialAnswerInOneRead(_ adapter: Adapter<any WebSocketTransport>) async throws {
        let transport = adapter.make()
        let error = #"{"type":"connection_error","errors":[{"errorType":"UnauthorizedException","message":"You are not authorized to make this call.","errorCode":401}]}"#
        let server = try await ScriptedServer.start { accept in
            ScriptedServer.switchingProtocols(accept: accept) + ScriptedServer.frame(opcode: 0x1, Array(error.utf8))
                + ScriptedServer.frame(opcode: 0x8, [0x03, 0xE8])
        }
        var configuration = AppSyncConfiguration(endpoint: try ChannelEndpoint(http: "http://127.0.0.1:\(server.port)/event"), authorization: .apiKey("da2-wrong"))
        configuration.reconnectPolicy = .fixed(.milliseconds(50))
        let connection = AppSyncConnection(configuration: configuration, transport: transport, logger: quiet)
        await connection.start()
        try await untilPublished(by: connection, "the failed state") {
            if case .failed(.unauthorized) = await connection.state { return true }
            return false
        }
        await connection.disconnect()
        await server.stop()
    }

    @Test(arguments: adapters)
    func theServerClosingRightAfterTheUpgradeEndsTheSession(_ adapter: Adapter<any WebSocketTransport>) async throws {
        let transport = adapter.make()
        let server = try await ScriptedServer.start { ScriptedServer.switchingProtocols(accept: $0) }
        let session = try await transport.connect(to: url(server), subprotocols: [ChannelAuthorization.eventSubprotocol])
        #expect(try await drain(session).isEmpty)
        await server.stop()
    }

    @Test(arguments: adapters)
    func theServerClosingBeforeAnyResponseFailsTheConnect(_ adapter: Adapter<any WebSocketTransport>) async throws {
        let transport = adapter.make()
        let server = try await ScriptedServer.start { _ in [] }
        #expect(try await connectFails(transport, to: url(server)))
        await server.stop()
    }

    /// A server that never answers the upgrade: cancelling the connect (what the connection's connect
    /// timeout does) must close the socket, not leave it open until the server gives up.
    @Test(arguments: adapters)
    func aCancelledConnectClosesItsSocket(_ adapter: Adapter<any WebSocketTransport>) async throws {
        let transport = adapter.make()
        let requested = NIOLockedValueBox(false)
        let server = try await ScriptedServer.start(closing: false) { _ in
            requested.withLockedValue { $0 = true }
            return []
        }
        let target = url(server)
        let connect = Task { try await transport.connect(to: target, subprotocols: [ChannelAuthorization.eventSubprotocol]) }
        try await waitFor("the upgrade request to arrive") { requested.withLockedValue { $0 } }
        connect.cancel()
        await #expect(throws: (any Error).self) { _ = try await connect.value }
        try await server.closedConnections.wait("the client to close the connection") { $0 == 1 }
        await server.stop()
    }

    @Test(arguments: adapters)
    func aRefusedUpgradeFailsTheConnectAndClosesTheConnection(_ adapter: Adapter<any WebSocketTransport>) async throws {
        let transport = adapter.make()
        let server = try await ScriptedServer.start(closing: false) { _ in
            Array("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n".utf8)
        }
        #expect(try await connectFails(transport, to: url(server)))
        try await server.closedConnections.wait("the client to close the connection") { $0 == 1 }
        await server.stop()
    }

    /// The system's trust roots only, by default: a self-signed server is refused.
    @Test(arguments: adapters)
    func wssRefusesAnUntrustedServer(_ adapter: Adapter<any WebSocketTransport>) async throws {
        let localhost = try LocalhostCertificate()
        let server = try await ScriptedServer.start(tls: localhost.serverConfiguration) { ScriptedServer.switchingProtocols(accept: $0) }
        #expect(try await connectFails(adapter.make(), to: URL(string: "wss://localhost:\(server.port)/event/realtime")!))
        await server.stop()
    }

    /// FoundationNetworking's WebSocket does not connect on Linux: the connect fails with an error
    /// (the connection then retries on its policy), never hangs or traps. If this starts to pass
    /// a connect, the adapter can join `Adapters.webSocket` here.
    #if os(Linux)
    @Test func urlSessionWebSocketFailsCleanlyOnLinux() async throws {
        let server = try await ScriptedServer.start { ScriptedServer.switchingProtocols(accept: $0) }
        #expect(try await connectFails(URLSessionWebSocketTransport(evenOnLinux: 1 << 21), to: url(server)))
        try await server.open.wait("no socket left open") { $0 == 0 }
        await server.stop()
    }
    #endif

    /// The NIO transport takes no message from the socket while more than 4 MiB wait for the
    /// connection, so TCP holds the server back; before, a server sending faster than the
    /// connection parsed had every frame buffered (648 MB in 20 s under §9a's flood).
    @Test func theNIOTransportStopsReadingWhileMoreThan4MiBWait() async throws {
        let frame = ScriptedServer.text(String(repeating: "x", count: 65_000))
        let frames = 640  // 41.6 MB
        let server = try await ScriptedServer.start(closing: false) { accept in
            var bytes = ScriptedServer.switchingProtocols(accept: accept)
            bytes.reserveCapacity(bytes.count + frames * frame.count)
            for _ in 0..<frames { bytes.append(contentsOf: frame) }
            return bytes
        }
        let session = try await WSClientTransport(logger: quiet).connect(to: url(server), subprotocols: [ChannelAuthorization.eventSubprotocol])
        let reader = try #require((session as? any BatchedInboundSession)?.inboundReader)
        try await waitFor("the transport to wait for the connection to read", within: 60) { reader.buffered.writerWaits }
        #expect(reader.buffered.weight <= (4 << 20) + 65_000)
        // It goes on as the connection reads: every frame arrives.
        var received = 0
        while received < frames, await reader.next() != nil { received += 1 }
        #expect(received == frames)
        session.abort()
        await server.stop()
    }

    @Test func wssVerifiesTheServerCertificate() async throws {
        let transport = WSClientTransport(logger: quiet)
        let localhost = try LocalhostCertificate()
        let frame = #"{"type":"ka"}"#
        let server = try await ScriptedServer.start(tls: localhost.serverConfiguration) { accept in
            ScriptedServer.switchingProtocols(accept: accept) + ScriptedServer.frame(opcode: 0x1, Array(frame.utf8))
                + ScriptedServer.frame(opcode: 0x8, [0x03, 0xE8])
        }
        let secure = URL(string: "wss://localhost:\(server.port)/event/realtime")!
        let trusting = WSClientTransport(logger: quiet, tlsConfiguration: localhost.clientConfiguration)
        let session = try await awaiting("the TLS connect") { try await trusting.connect(to: secure, subprotocols: [ChannelAuthorization.eventSubprotocol]) }
        #expect(try await drain(session) == [frame])

        // The default configuration trusts the system's roots only, so the self-signed server is refused.
        #expect(try await connectFails(transport, to: secure))
        await server.stop()
    }

    /// Issue 44: a leaf signed with SHA-1 or carrying a 1024-bit RSA key was accepted when a trusted
    /// CA issued it. Refused before the handshake completes: the server never sees the request (nor
    /// its credentials), over WebSocket and HTTP; the same CA's strong leaf is accepted.
    @Test(arguments: ["rsa1024", "sha1", "strong"])
    func weakServerCertificatesAreRefusedBeforeAnyRequest(_ leaf: String) async throws {
        let requests = RecordedRequests()
        let server = try await ScriptedServer.start(tls: try TestCertificates.server(leaf)) { accept, request in
            requests.append(request)
            return request.hasPrefix("GET") ? ScriptedServer.switchingProtocols(accept: accept) : Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8)
        }
        let transport = WSClientTransport(logger: quiet, tlsConfiguration: TestCertificates.client)
        let refused = try await connectFails(transport, to: URL(string: "wss://localhost:\(server.port)/event/realtime")!)
        let publisher = NIOHTTPPostClient(tlsConfiguration: TestCertificates.client, timeout: .seconds(60))
        let posted = try? await publisher.post(URL(string: "https://localhost:\(server.port)/event")!, headers: ["x-api-key": "da2-secret"], body: Data())
        if leaf == "strong" {
            #expect(!refused)
            #expect(posted?.status == 200)
            #expect(requests.count == 2)
        } else {
            #expect(refused)
            #expect(posted == nil)
            #expect(requests.count == 0)
        }
        await server.stop()
    }

    /// Issue 44: NIO SSL's client default still takes TLS 1.0 and 1.1; the transports' floor is 1.2,
    /// whatever configuration the app passes.
    @Test func aServerOfferingOnlyTLS11IsRefused() async throws {
        let localhost = try LocalhostCertificate()
        var old = localhost.serverConfiguration
        (old.minimumTLSVersion, old.maximumTLSVersion) = (.tlsv1, .tlsv11)
        let server = try await ScriptedServer.start(tls: old) { ScriptedServer.switchingProtocols(accept: $0) }
        var lenient = localhost.clientConfiguration
        lenient.minimumTLSVersion = .tlsv1
        let transport = WSClientTransport(logger: quiet, tlsConfiguration: lenient)
        #expect(try await connectFails(transport, to: URL(string: "wss://localhost:\(server.port)/event/realtime")!))
        await server.stop()

        let http = try await ScriptedServer.start(tls: old) { _, _ in Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8) }
        let publisher = NIOHTTPPostClient(tlsConfiguration: lenient, timeout: .seconds(60))
        await #expect(throws: (any Error).self) { _ = try await publisher.post(URL(string: "https://localhost:\(http.port)/event")!, headers: [:], body: Data()) }
        await http.stop()
    }
}

/// HTTP publish never forwards credentials to another host: a redirect is an error, not followed.
@Suite("HTTP publish over real sockets")
struct HTTPPublishRedirectTests {
    /// Issue 44: a 401 carrying a `WWW-Authenticate` challenge waited out the URLSession publisher's
    /// deadline and came back as a time-out; it is the server's answer, at once, on every adapter.
    @Test(arguments: Adapters.httpPost)
    func a401WithAChallengeIsTheAnswerNotATimeOut(_ adapter: PostAdapter) async throws {
        let server = try await ScriptedServer.start { _, _ in
            Array("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"events\"\r\nContent-Length: 0\r\n\r\n".utf8)
        }
        let client = adapter.make(64 * 1024, .seconds(600))
        let answer = try await awaiting("the answer", within: 300) {
            try await client.post(URL(string: "http://127.0.0.1:\(server.port)/event")!, headers: ["x-api-key": "da2-k"], body: Data("{}".utf8))
        }
        #expect(answer.status == 401)
        await server.stop()
    }

    @Test(arguments: Adapters.httpPost)
    func aRedirectIsAnErrorAndTheOtherHostGetsNothing(_ adapter: PostAdapter) async throws {
        let client = adapter()
        let reached = NIOLockedValueBox(false)
        let other = try await ScriptedServer.start { _ in
            reached.withLockedValue { $0 = true }
            return Array("HTTP/1.1 200 OK\r\nContent-Length: 31\r\n\r\n{\"successful\":[],\"failed\":[]} ".utf8)
        }
        let redirecting = try await ScriptedServer.start { _ in
            Array("HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:\(other.port)/event\r\nContent-Length: 0\r\n\r\n".utf8)
        }
        let endpoint = try ChannelEndpoint(http: "http://127.0.0.1:\(redirecting.port)/event")
        let publisher = AppSyncHTTPPublisher(endpoint: endpoint, authorization: .apiKey("da2-secret"), client: client)
        await #expect(throws: AppSyncError.service([ServiceError(errorType: nil, message: "HTTP 307", code: "307")])) {
            try await publisher.publish(["{}"], to: "default/channel")
        }
        #expect(reached.withLockedValue { $0 } == false)
        await other.stop()
        await redirecting.stop()
    }

    /// An `https` server that records each request and answers it with an empty publish result.
    static func tlsPublishServer(_ certificate: LocalhostCertificate) async throws -> (ScriptedServer, RecordedRequests) {
        let requests = RecordedRequests()
        let server = try await ScriptedServer.start(tls: certificate.serverConfiguration) { _, request in
            requests.append(request)
            return Array("HTTP/1.1 200 OK\r\nContent-Length: 29\r\n\r\n{\"successful\":[],\"failed\":[]}".utf8)
        }
        return (server, requests)
    }

    /// Every POST client verifies `https` servers against the system's trust roots: a self-signed
    /// server gets no request, and so no key.
    @Test(arguments: Adapters.httpPost)
    func anUntrustedServerGetsNoRequest(_ adapter: PostAdapter) async throws {
        let localhost = try LocalhostCertificate()
        let (server, requests) = try await Self.tlsPublishServer(localhost)
        let endpoint = try ChannelEndpoint(http: "https://localhost:\(server.port)/event")
        let publisher = AppSyncHTTPPublisher(endpoint: endpoint, authorization: .apiKey("da2-secret"), client: adapter())
        await #expect(throws: AppSyncError.connectionLost) { try await publisher.publish(["{}"], to: "default/channel") }
        #expect(requests.count == 0)
        await server.stop()
    }

    /// With the server's certificate trusted (`anUntrustedServerGetsNoRequest` covers the default
    /// trust roots), `NIOHTTPPostClient`'s publish goes through.
    @Test func aTrustedServerAnswers() async throws {
        let localhost = try LocalhostCertificate()
        let (server, requests) = try await Self.tlsPublishServer(localhost)
        let endpoint = try ChannelEndpoint(http: "https://localhost:\(server.port)/event")
        // The trust path is under test, not the time: a clean-clone CI run starts every suite at
        // once on two cores, and this handshake once took longer than the default 30 s there.
        let client = NIOHTTPPostClient(tlsConfiguration: localhost.clientConfiguration, timeout: .seconds(300))
        let trusting = AppSyncHTTPPublisher(endpoint: endpoint, authorization: .apiKey("da2-secret"), client: client)
        let result = try await trusting.publish(["{}"], to: "default/channel")
        #expect(result.failed.isEmpty)
        #expect(requests.all.first?.hasPrefix("POST /event HTTP/1.1\r\n") == true)
        await server.stop()
    }
}
