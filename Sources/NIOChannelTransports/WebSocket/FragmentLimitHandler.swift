import NIOCore
import NIOWebSocket

/// Closes a connection whose server splits one message into more than `maximumFragments` frames.
///
/// Why: every frame costs the client a trip through the channel pipeline and the async frame
/// sequence, so a server sending a message as millions of one-byte continuation frames (1.9 M cost
/// 33 CPU-seconds) can burn a phone's CPU while staying under the message size limit. AppSync sends
/// each message in one frame; a handful of fragments is plenty for any honest server.
final class FragmentLimitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    /// More fragments than this in one message close the connection.
    static let maximumFragments = 1024

    private var fragments = 0

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = Self.unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary, .continuation:
            fragments = frame.fin ? 0 : fragments + 1
            guard fragments <= Self.maximumFragments else {
                context.fireErrorCaught(TooManyFragments())
                context.close(mode: .all, promise: nil)
                return
            }
        default:
            break  // control frames may come between fragments and do not count
        }
        context.fireChannelRead(data)
    }
}

/// The server split one message into more frames than `FragmentLimitHandler.maximumFragments`.
struct TooManyFragments: Error, CustomStringConvertible {
    var description: String { "the server split a message into more than \(FragmentLimitHandler.maximumFragments) frames" }
}
