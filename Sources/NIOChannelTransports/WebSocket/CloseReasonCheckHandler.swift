import NIOCore
import NIOWebSocket

/// Reads a peer's close frame as RFC 6455 asks (§5.5.1, §8.1): a reason that is not UTF-8 makes the
/// close a failure, 1007 (invalid frame payload data), whatever code came with it. Such a close is
/// then not the normal 1000 that ends the connection for good; the reconnect policy applies.
///
/// Why a handler: swift-websocket's `WebSocketHandler` runs with `validateUTF8` off (a malformed
/// text frame is the runtime's to count and drop, not a reason to close), and so it repairs a close
/// reason into a `String`; after it, bad bytes cannot be told from a reason that spells U+FFFD.
final class CloseReasonCheckHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = Self.unwrapInboundIn(data)
        guard frame.opcode == .connectionClose else { return context.fireChannelRead(data) }
        let payload = frame.unmaskedData
        guard payload.readableBytes > 2,
              let reason = payload.getBytes(at: payload.readerIndex + 2, length: payload.readableBytes - 2),
              String(validating: reason, as: UTF8.self) == nil
        else { return context.fireChannelRead(data) }
        var failure = context.channel.allocator.buffer(capacity: 2)
        failure.write(webSocketErrorCode: .dataInconsistentWithMessage)
        context.fireChannelRead(Self.wrapInboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: failure)))
    }
}
