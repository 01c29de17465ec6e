import ChannelRuntime
import ChannelTransports
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOSSL
import NIOWebSocket
import WSClient

/// The default transport on every platform: swift-websocket's `WSClient` on SwiftNIO (TLS for `wss`),
/// with the upgrade set up by `AppSyncClientChannel`. `URLSessionWebSocketTask` is not used because it
/// does not work on Linux.
public struct WSClientTransport: WebSocketTransport {
    /// Where the transport logs.
    public var logger: Logger
    /// Largest message accepted or sent in one frame; AppSync events are at most 240 KB, escaped inside a frame.
    public var maximumMessageSize: Int
    /// TLS for `wss` URLs; the default verifies the server against the system's trust roots.
    public var tlsConfiguration: TLSConfiguration

    /// A transport; `tlsConfiguration` replaces the system trust roots for `wss` servers.
    public init(
        logger: Logger = Logger(label: "AppSyncRuntime.WSClientTransport"),
        maximumMessageSize: Int = 1 << 21,
        tlsConfiguration: TLSConfiguration = .makeClientConfiguration()
    ) {
        self.logger = logger
        self.maximumMessageSize = maximumMessageSize
        self.tlsConfiguration = tlsConfiguration
    }

    /// Message bytes that may wait for the connection to read them; past it the transport stops
    /// reading the socket until the connection catches up, and TCP holds the server back.
    static let maximumBufferedBytes = 4 << 20

    /// Opens a WebSocket to `url` offering `subprotocols`; the upgrade must choose the first one.
    public func connect(to url: URL, subprotocols: [String], tasks: TransportTasks) async throws -> any WebSocketSession {
        let (inbound, continuation, reader) = BatchedStream<String>.makeStreamAndReader(weightLimit: .max)
        let session = WSClientSession(inbound: inbound, inboundReader: reader)
        let maximumMessageSize = self.maximumMessageSize
        let opened = OneShot()
        let channel = try AppSyncClientChannel(
            url: url,
            headers: HTTPHeaders([("Sec-WebSocket-Protocol", subprotocols.joined(separator: ", "))]),
            maximumFrameSize: maximumMessageSize,
            requiredSubprotocol: subprotocols.first,
            tlsConfiguration: tlsConfiguration,
            channelCreated: { session.setChannel($0) },
            peerClosed: { session.setPeerClose($0) },
            pongReceived: { session.pongReceived() }
        ) { inbound, outbound, _ in
            session.attach(outbound)
            opened.resolve(nil)
            var messages = inbound.messages(maxSize: maximumMessageSize).makeAsyncIterator()
            while let message = try await messages.next() {
                if case .text(let text) = message { _ = continuation.send(text, weight: text.utf8.count) }
                await continuation.waitForRoom(weight: Self.maximumBufferedBytes)
            }
        }
        let connection = ClientConnection(channel, address: channel.address, logger: logger)
        // A child of the connection's root: the socket outlives `connect` (the connection's session
        // reads it); the session's close or abort ends it, and so does the connection's end.
        let task = try tasks.run {
            do {
                try await connection.run()
                opened.resolve(WebSocketSessionClosed())
            } catch {
                opened.resolve(error)
            }
            continuation.finish()
            session.detach()
        }
        session.setTask(task)
        try await withTaskCancellationHandler {
            do {
                try await opened.wait()
            } catch ChannelError.connectTimeout(let limit) {
                // NIO's own limit on the TCP connect (10 s; WSClient does not let a caller set it).
                throw TransportConnectTimedOut(limit: .nanoseconds(limit.nanoseconds))
            }
        } onCancel: {
            opened.resolve(CancellationError())
            // Closing the channel ends a TCP connect in flight, which cancelling the task does not.
            session.abort()
        }
        return session
    }
}

private final class WSClientSession: BatchedInboundSession, Sendable {
    let inbound: AsyncStream<String>
    let inboundReader: BatchedStream<String>.Reader?
    private struct State {
        var outbound: WebSocketOutboundWriter?
        var task: TransportTask?
        var channel: (any Channel)?
        var peerClose: WebSocketClose?
        /// Pings waiting for a pong, by number; failed when the connection ends.
        var pingWaiters: [Int: CheckedContinuation<Void, any Error>] = [:]
        var pingsSent = 0
        /// The pings a pong answered: every one sent before it.
        var pingsAnswered = 0
        var ended = false
        /// Aborted: a channel created after it is closed at once.
        var aborted = false
    }

    private let state = NIOLockedValueBox(State())

    init(inbound: AsyncStream<String>, inboundReader: BatchedStream<String>.Reader) {
        self.inbound = inbound
        self.inboundReader = inboundReader
    }

    func attach(_ outbound: WebSocketOutboundWriter) { state.withLockedValue { $0.outbound = outbound } }
    func detach() {
        let waiters = state.withLockedValue { state in
            state.outbound = nil
            state.ended = true
            defer { state.pingWaiters = [:] }
            return state.pingWaiters.values
        }
        for waiter in waiters { waiter.resume(throwing: WebSocketSessionClosed()) }
    }

    /// A pong answers every ping sent before it.
    func pongReceived() {
        let waiters = state.withLockedValue { state in
            state.pingsAnswered = state.pingsSent
            defer { state.pingWaiters = [:] }
            return state.pingWaiters.values
        }
        for waiter in waiters { waiter.resume() }
    }

    func ping() async throws {
        guard let outbound = state.withLockedValue({ $0.outbound }) else { throw WebSocketSessionClosed() }
        let number = state.withLockedValue { state -> Int? in
            guard !state.ended else { return nil }
            state.pingsSent += 1
            return state.pingsSent
        }
        guard let number else { throw WebSocketSessionClosed() }
        try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer(string: "probe"))))
        // Its pong may already have come while the write returned: `pingsAnswered` remembers it.
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            enum Outcome { case answered, closed, waiting }
            let outcome = state.withLockedValue { state -> Outcome in
                if state.pingsAnswered >= number { return .answered }
                if state.ended { return .closed }
                state.pingWaiters[number] = waiter
                return .waiting
            }
            switch outcome {
            case .answered: waiter.resume()
            case .closed: waiter.resume(throwing: WebSocketSessionClosed())
            case .waiting: break
            }
        }
    }

    func setTask(_ task: TransportTask) { state.withLockedValue { $0.task = task } }
    func setChannel(_ channel: any Channel) {
        let aborted = state.withLockedValue { state in
            state.channel = channel
            return state.aborted
        }
        if aborted { channel.close(mode: .all, promise: nil) }
    }
    func setPeerClose(_ close: WebSocketClose) { state.withLockedValue { $0.peerClose = close } }
    var peerClose: WebSocketClose? { state.withLockedValue { $0.peerClose } }

    func send(_ text: String) async throws {
        guard let outbound = state.withLockedValue({ $0.outbound }) else { throw WebSocketSessionClosed() }
        try await outbound.writeTextMessage(text)
    }

    func close() async {
        let (outbound, task) = state.withLockedValue { ($0.outbound, $0.task) }
        if let outbound {
            try? await outbound.close(.normalClosure, reason: nil)
        } else {
            task?.cancel()
        }
    }

    func abort() {
        let (channel, task) = state.withLockedValue { state in
            state.aborted = true
            return (state.channel, state.task)
        }
        channel?.close(mode: .all, promise: nil)
        task?.cancel()
    }
}
