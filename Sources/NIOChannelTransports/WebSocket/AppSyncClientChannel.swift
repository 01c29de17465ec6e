import ChannelRuntime
import ChannelTransports
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import NIOWebSocket
import WSClient
@_spi(WSInternal) import WSCore

/// The WebSocket client channel `WSClientTransport` runs on `WSClient`'s `ClientConnection`.
///
/// It is `WSClient`'s own upgrade setup with one handler added (`EndOfInputDuringUpgradeHandler`):
/// without it, a server that upgrades and then sends a frame and closes at once (AppSync's answer
/// to bad credentials) can leave the client with neither the frame nor the end of the connection.
/// Frames, the close handshake and the inbound stream are swift-websocket's `WebSocketHandler`.
/// No proxy support: AppSync clients connect directly.
struct AppSyncClientChannel: ClientConnectionChannel {
    struct Context: WebSocketContext {
        let logger: Logger
    }

    enum UpgradeResult: Sendable {
        case websocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        /// The server answered without upgrading; the connection is of no further use.
        case notUpgraded(any Channel)
    }

    /// The channel with its upgrade in flight: `handle` closes the channel whatever ends the upgrade
    /// other than success (a refusal, an error, or the connect being cancelled while it waits).
    struct Value: Sendable {
        let channel: any Channel
        let upgrade: EventLoopFuture<UpgradeResult>
    }

    let url: URL
    /// Where to connect: the URL's host and port (default 443 for `wss`, 80 for `ws`).
    let address: ClientConnection<Self>.Address
    private let host: String
    let headers: HTTPHeaders
    let maximumFrameSize: Int
    /// The subprotocol the server must choose in its 101 (`nil`: no check).
    let requiredSubprotocol: String?
    /// Told the channel as soon as it exists, so its owner can close it hard.
    let channelCreated: @Sendable (any Channel) -> Void
    /// Told the server's close frame (code and reason) when the WebSocket ends with one.
    let peerClosed: @Sendable (WebSocketClose) -> Void
    /// Told of every pong the server sends.
    let pongReceived: @Sendable () -> Void
    let sslContext: NIOSSLContext?
    let verification: CertificateVerification
    let handler: WebSocketDataHandler<Context>

    init(
        url: URL,
        headers: HTTPHeaders,
        maximumFrameSize: Int,
        requiredSubprotocol: String? = nil,
        tlsConfiguration: TLSConfiguration,
        channelCreated: @escaping @Sendable (any Channel) -> Void = { _ in },
        peerClosed: @escaping @Sendable (WebSocketClose) -> Void = { _ in },
        pongReceived: @escaping @Sendable () -> Void = {},
        handler: @escaping WebSocketDataHandler<Context>
    ) throws {
        guard let host = url.host, let scheme = url.scheme, ["ws", "wss"].contains(scheme) else { throw WebSocketClientError.invalidURL }
        self.url = url
        self.host = host
        self.address = .hostname(host, port: url.port ?? (scheme == "wss" ? 443 : 80))
        self.headers = headers
        self.maximumFrameSize = maximumFrameSize
        self.requiredSubprotocol = requiredSubprotocol
        self.channelCreated = channelCreated
        self.peerClosed = peerClosed
        self.pongReceived = pongReceived
        self.handler = handler
        self.sslContext = try url.scheme == "wss" ? NIOSSLContext(configuration: tlsConfiguration.withTLS12Floor) : nil
        self.verification = tlsConfiguration.certificateVerification
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channelCreated(channel)
        return channel.eventLoop.makeCompletedFuture {
            if let sslContext {
                // SNI carries host names only; certificate checks still apply to IP addresses.
                let serverName = (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
                try channel.pipeline.syncOperations.addHandler(TLSClientPolicy.handler(context: sslContext, serverHostname: serverName, verification: verification))
            }
            let endOfInput = EndOfInputDuringUpgradeHandler()
            try channel.pipeline.syncOperations.addHandler(endOfInput)

            let maximumFrameSize = self.maximumFrameSize
            let requiredSubprotocol = self.requiredSubprotocol
            let pongReceived = self.pongReceived
            let upgrader = NIOTypedWebSocketClientUpgrader<UpgradeResult>(maxFrameSize: maximumFrameSize) { channel, response in
                channel.eventLoop.makeCompletedFuture {
                    // RFC 6455 §4.1: a server that does not choose the offered subprotocol is not the
                    // service the client meant to reach.
                    if let requiredSubprotocol {
                        let chosen = response.headers["Sec-WebSocket-Protocol"].flatMap { $0.split(separator: ",") }
                            .map { $0.trimmingCharacters(in: .whitespaces) }
                        guard chosen == [requiredSubprotocol] else {
                            // A server may echo the auth subprotocol, which carries the credentials.
                            throw WebSocketSubprotocolMismatch(required: requiredSubprotocol, chosen: chosen.map { Redaction.redacted($0) })
                        }
                    }
                    // RFC 6455 §9.1: the client offered no extension, so the server may accept none
                    // (a compressed frame would be refused later, one by one).
                    let extensions = response.headers["Sec-WebSocket-Extensions"].filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
                    guard extensions.isEmpty else { throw WebSocketUnofferedExtension(accepted: extensions.map { Redaction.redacted($0) }) }
                    try channel.pipeline.syncOperations.addHandler(FragmentLimitHandler())
                    try channel.pipeline.syncOperations.addHandler(CloseReasonCheckHandler())
                    try channel.pipeline.syncOperations.addHandler(PongObserver(pongReceived: pongReceived))
                    return .websocket(try NIOAsyncChannel(wrappingChannelSynchronously: channel))
                }
            }
            var requestHeaders = headers
            let hostText = host.contains(":") ? "[\(host)]" : host  // IPv6 literals are bracketed in headers
            requestHeaders.replaceOrAdd(name: "Host", value: url.port.map { "\(hostText):\($0)" } ?? hostText)
            requestHeaders.replaceOrAdd(name: "Origin", value: "\(url.scheme ?? "wss")://\(hostText)")
            let path = url.requestTarget
            var configuration = NIOUpgradableHTTPClientPipelineConfiguration(
                upgradeConfiguration: NIOTypedHTTPClientUpgradeConfiguration(
                    upgradeRequestHead: HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: requestHeaders),
                    upgraders: [upgrader],
                    notUpgradingCompletionHandler: { channel in channel.eventLoop.makeSucceededFuture(.notUpgraded(channel)) }
                )
            )
            configuration.leftOverBytesStrategy = .forwardBytes
            let upgraded = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: configuration)
            upgraded.assumeIsolated().whenComplete { _ in endOfInput.upgradeFinished() }
            // A failed upgrade leaves nothing else to close the socket.
            upgraded.whenFailure { _ in channel.close(promise: nil) }
            return Value(channel: channel, upgrade: upgraded)
        }
    }

    func handle(value: Value, logger: Logger) async throws {
        // Awaiting an `EventLoopFuture` ignores task cancellation: closing the channel fails the
        // upgrade, so a cancelled connect (its timeout fired) ends at once and leaks no socket.
        let result: UpgradeResult
        do {
            result = try await withTaskCancellationHandler {
                try await value.upgrade.get()
            } onCancel: {
                value.channel.close(promise: nil)
            }
        } catch {
            try? await value.channel.close()
            throw error
        }
        switch result {
        case .websocket(let channel):
            let close = try await WebSocketHandler.handle(
                type: .client,
                configuration: .init(extensions: [], autoPing: .disabled, validateUTF8: false, maxFrameSize: maximumFrameSize),
                asyncChannel: channel,
                context: Context(logger: logger),
                handler: handler
            )
            if let close { peerClosed(WebSocketClose(code: Int(UInt16(webSocketErrorCode: close.closeCode)), reason: close.reason ?? "")) }
        case .notUpgraded(let channel):
            try? await channel.close()
            throw WebSocketClientError.webSocketUpgradeFailed
        }
    }
}

/// The server's upgrade accepted a WebSocket extension the client never offered.
struct WebSocketUnofferedExtension: Error, CustomStringConvertible {
    let accepted: [String]
    var description: String { "the server accepted extensions the client did not offer: \(accepted.joined(separator: ", "))" }
}
