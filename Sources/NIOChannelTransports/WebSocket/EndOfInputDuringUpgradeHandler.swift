import NIOCore

/// Holds back the server's end of input (TCP FIN) that arrives while the WebSocket upgrade is still
/// being set up, and replays it once the WebSocket handlers are in place.
///
/// Why: AppSync answers bad connect credentials with a successful upgrade, a `connection_error`
/// frame and a close. When the 101 response, those frames and the FIN arrive together, NIO's client
/// upgrade handler (swift-nio 2.101) lets the end-of-input event reach the HTTP decoder, which then
/// drops the bytes after the response, and the event itself falls off the pipeline before the
/// WebSocket handlers exist: the client never sees the error and never sees the connection end.
/// Sits between TLS and the HTTP codec; removes itself once the upgrade has finished.
final class EndOfInputDuringUpgradeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private static let endOfHead: [UInt8] = Array("\r\n\r\n".utf8)
    private var context: ChannelHandlerContext?
    /// The last bytes read before the end of the response head was seen (it may span reads).
    private var tail: [UInt8] = []
    private var responseHeadComplete = false
    private var heldEndOfInput = false

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !responseHeadComplete {
            let bytes = Self.unwrapInboundIn(data)
            let window = tail + bytes.readableBytesView
            if window.firstRange(of: Self.endOfHead) != nil {
                responseHeadComplete = true
                tail = []
            } else {
                tail = Array(window.suffix(Self.endOfHead.count - 1))
            }
        }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event as? ChannelEvent == .inputClosed else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        if responseHeadComplete {
            heldEndOfInput = true
        } else {
            // The server closed before answering the upgrade; NIO's upgrade handler would wait
            // forever, so end the connection (which fails the upgrade).
            context.close(promise: nil)
        }
    }

    /// Called when the upgrade has finished, successfully or not. NIO's upgrade handler replays
    /// the bytes it buffered right after completing the upgrade, so the end of input follows on the
    /// next event loop tick, after them.
    func upgradeFinished() {
        guard let context else { return }
        context.eventLoop.assumeIsolated().execute {
            guard let context = self.context else { return }
            if self.heldEndOfInput {
                self.heldEndOfInput = false
                context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            }
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }
}
