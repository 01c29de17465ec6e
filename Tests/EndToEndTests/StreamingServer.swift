import ChannelRuntimeTesting
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A loopback HTTP server that answers every request with `head` and then streams a body: as fast
/// as the client takes it (a flood), or one chunk per `interval` (a trickle), until `total` bytes.
///
/// It counts the body bytes the kernel accepted from it (`sentBytes`): with the client's socket
/// buffers, that is the most the client can have read, so a client that reads only what its
/// consumer takes stops it near the socket buffers' size.
struct StreamingServer {
    let channel: any Channel
    let sent: NIOLockedValueBox<Int>
    let opened: NIOLockedValueBox<Int>
    let closed: NIOLockedValueBox<Int>

    var port: Int { channel.localAddress!.port! }
    var sentBytes: Int { sent.withLockedValue { $0 } }
    var openSockets: Int { open.value }
    /// Sockets open now, for a test to await (`open.wait(_:until:)`).
    let open: Watched<Int>

    static func start(head: String, chunk: [UInt8], total: Int, every interval: TimeAmount? = nil) async throws -> StreamingServer {
        let sent = NIOLockedValueBox(0)
        let opened = NIOLockedValueBox(0)
        let closed = NIOLockedValueBox(0)
        let open = Watched(0)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                opened.withLockedValue { $0 += 1 }
                open.update { $0 += 1 }
                channel.closeFuture.whenComplete { _ in
                    closed.withLockedValue { $0 += 1 }
                    open.update { $0 -= 1 }
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        StreamingHandler(head: Array(head.utf8), chunk: chunk, total: total, interval: interval, sent: sent))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return StreamingServer(channel: channel, sent: sent, opened: opened, closed: closed, open: open)
    }

    func stop() async { try? await channel.close() }

    /// Waits until the client stops taking bytes (or took them all): the count stood still over
    /// five samples 100 ms apart. Returns the bytes sent then.
    func bytesSentOnceStalled(total: Int) async throws -> Int {
        var last = -1
        var still = 0
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let now = sentBytes
            still = now == last ? still + 1 : 0
            last = now
            if now >= total || still >= 5 { return now }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw WaitTimedOut(description: "gave up waiting for the flood to stall")
    }
}

private final class StreamingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let head: [UInt8]
    let chunk: [UInt8]
    let total: Int
    let interval: TimeAmount?
    let sent: NIOLockedValueBox<Int>
    var request: [UInt8] = []
    var started = false
    var written = 0
    var closed = false

    init(head: [UInt8], chunk: [UInt8], total: Int, interval: TimeAmount?, sent: NIOLockedValueBox<Int>) {
        self.head = head
        self.chunk = chunk
        self.total = total
        self.interval = interval
        self.sent = sent
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !started else { return }
        request += Array(Self.unwrapInboundIn(data).readableBytesView)
        guard request.count >= 4, request.indices.dropLast(3).contains(where: { request[$0..<$0 + 4].elementsEqual([13, 10, 13, 10]) }) else { return }
        started = true
        context.writeAndFlush(Self.wrapOutboundOut(ByteBuffer(bytes: head)), promise: nil)
        if let interval { trickle(context: context, every: interval) } else { flood(context: context) }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if started, interval == nil { flood(context: context) }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed = true
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func write(context: ChannelHandlerContext) {
        let bytes = min(chunk.count, total - written)
        written += bytes
        let promise = context.eventLoop.makePromise(of: Void.self)
        let sent = self.sent
        promise.futureResult.whenSuccess { sent.withLockedValue { $0 += bytes } }
        if written == total {
            // The body ends with the connection (no length given): close once the last bytes are out.
            let channel = context.channel
            promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
        }
        context.write(Self.wrapOutboundOut(ByteBuffer(bytes: chunk.prefix(bytes))), promise: promise)
    }

    private func flood(context: ChannelHandlerContext) {
        while !closed, context.channel.isWritable, written < total { write(context: context) }
        context.flush()
    }

    private func trickle(context: ChannelHandlerContext, every interval: TimeAmount) {
        guard !closed, written < total else { return }
        write(context: context)
        context.flush()
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: interval) {
            let (handler, context) = loopBound.value
            handler.trickle(context: context, every: interval)
        }
    }
}
