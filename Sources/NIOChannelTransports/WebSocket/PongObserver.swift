import NIOCore
import NIOWebSocket

/// Tells its owner of every pong the server sends, before swift-websocket's handler takes it (that
/// handler answers pings and keeps pongs to itself): a liveness probe's answer.
final class PongObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    private let pongReceived: @Sendable () -> Void

    init(pongReceived: @escaping @Sendable () -> Void) {
        self.pongReceived = pongReceived
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if Self.unwrapInboundIn(data).opcode == .pong { pongReceived() }
        context.fireChannelRead(data)
    }
}
