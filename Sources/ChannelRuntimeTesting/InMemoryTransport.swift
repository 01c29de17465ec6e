import ChannelRuntime
import ChannelTransports
import Foundation

/// A WebSocket transport whose other end is the test: each connect hands the test a `FakeServer`
/// that speaks AppSync Events' protocol as the test scripts it. Pass it as `AppSyncConnection`'s
/// `transport`.
public final class InMemoryTransport: WebSocketTransport, Sendable {
    private struct State: Sendable {
        var servers: [FakeServer] = []
        var taken = 0
        var rejectNext = 0
        var attempts = 0
    }

    /// Watched: `nextConnection()` awaits the connect it waits for.
    private let state = Watched(State())
    /// Whether sessions hand the connection their inbound reader, as `WSClientTransport`'s do;
    /// without it, the connection reads `inbound`.
    let offersInboundReader: Bool

    /// A transport whose sessions hand the connection their batched reader, as `WSClientTransport`'s do.
    public convenience init() { self.init(offersInboundReader: true) }

    /// With `offersInboundReader: false` the connection reads the sessions' `inbound` instead.
    package init(offersInboundReader: Bool) { self.offersInboundReader = offersInboundReader }

    /// A connect the test chose to refuse (`rejectNextConnects`).
    public struct Refused: Error {}

    /// Connection attempts, refused ones included.
    public var connectCount: Int { state.value.attempts }

    /// Makes the next `count` connects fail with `Refused`.
    public func rejectNextConnects(_ count: Int) { state.update { $0.rejectNext = count } }

    public func connect(to url: URL, subprotocols: [String], tasks: TransportTasks) async throws -> any WebSocketSession {
        let server = FakeServer(url: url, subprotocols: subprotocols, offersInboundReader: offersInboundReader)
        var refuse = false
        state.update { state in
            state.attempts += 1
            if state.rejectNext > 0 {
                state.rejectNext -= 1
                refuse = true
            } else {
                state.servers.append(server)
            }
        }
        if refuse { throw Refused() }
        return server.session
    }

    /// The server side of the next accepted connection; throws `WaitTimedOut` when none comes
    /// within `seconds` of real time.
    public func nextConnection(within seconds: Double = 120) async throws -> FakeServer {
        try await state.take("a connection attempt", within: seconds) { state in
            guard state.servers.count > state.taken else { return nil }
            defer { state.taken += 1 }
            return state.servers[state.taken]
        }
    }
}

/// One WebSocket as the server sees it: what the client sent, and what the test answers.
public final class FakeServer: Sendable {
    /// The URL the client connected to.
    public let url: URL
    /// The subprotocols the client offered (AppSync's, and the `header-…` one carrying the auth).
    public let subprotocols: [String]
    let session: Session
    private let consumed = LockedValue(0)

    init(url: URL, subprotocols: [String], offersInboundReader: Bool) {
        self.url = url
        self.subprotocols = subprotocols
        let (toClient, serverContinuation, reader) = BatchedStream<String>.makeStreamAndReader()
        self.session = Session(inbound: toClient, inboundReader: offersInboundReader ? reader : nil, toClient: serverContinuation)
    }

    package final class Session: BatchedInboundSession, Sendable {
        package let inbound: AsyncStream<String>
        package let inboundReader: BatchedStream<String>.Reader?
        let toClient: BatchedStream<String>.Continuation
        /// Frames the client sent, in order, and whether it closed.
        let sent = Watched<(frames: [String], closed: Bool)>(([], false))
        /// The close frame the test sent, if it closed with one.
        let closeFrame = LockedValue<WebSocketClose?>(nil)
        /// Whether the client closed with a handshake (`close()`), not by cutting the socket off.
        let startedCloseHandshake = LockedValue(false)
        /// Pings sent so far, and those waiting for the test's pong.
        let pings = Watched<(count: Int, waiting: [CheckedContinuation<Void, any Error>])>((0, []))
        /// While the server does not read: the sends waiting for it to read again.
        let holding = Watched<(on: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

        package func ping() async throws {
            try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
                let closed = sent.value.closed
                if closed { return waiter.resume(throwing: WebSocketSessionClosed()) }
                pings.update { pings in
                    pings.count += 1
                    pings.waiting.append(waiter)
                }
            }
        }

        /// Answers (or, with an error, fails) every waiting ping.
        func answerPings(_ error: (any Error)? = nil) {
            var waiting: [CheckedContinuation<Void, any Error>] = []
            pings.update { pings in
                waiting = pings.waiting
                pings.waiting = []
            }
            for waiter in waiting {
                if let error { waiter.resume(throwing: error) } else { waiter.resume() }
            }
        }
        package var peerClose: WebSocketClose? { closeFrame.withLock { $0 } }

        init(inbound: AsyncStream<String>, inboundReader: BatchedStream<String>.Reader?, toClient: BatchedStream<String>.Continuation) {
            self.inbound = inbound
            self.inboundReader = inboundReader
            self.toClient = toClient
        }

        var isClosed: Bool { sent.value.closed }

        package func send(_ text: String) async throws {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                var held = false
                holding.update { holding in
                    if holding.on { holding.waiting.append(waiter) }
                    held = holding.on
                }
                if !held { waiter.resume() }
            }
            var closed = false
            sent.update { sent in
                if sent.closed { closed = true } else { sent.frames.append(text) }
            }
            if closed { throw WebSocketSessionClosed() }
        }

        /// Lets held sends go on, and new ones through.
        func releaseSends() {
            var waiting: [CheckedContinuation<Void, Never>] = []
            holding.update { holding in
                waiting = holding.waiting
                holding = (false, [])
            }
            for waiter in waiting { waiter.resume() }
        }

        package func close() async {
            startedCloseHandshake.withLock { $0 = true }
            sent.update { $0.closed = true }
            toClient.finish()
            answerPings(WebSocketSessionClosed())
            releaseSends()
        }

        package func abort() {
            sent.update { $0.closed = true }
            toClient.finish()
            answerPings(WebSocketSessionClosed())
            releaseSends()
        }
    }

    /// The `header-` subprotocol decoded back into the auth headers.
    public var authHeaders: [String: String]? {
        guard let header = subprotocols.first(where: { $0.hasPrefix("header-") }) else { return nil }
        var base64 = String(header.dropFirst("header-".count)).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64) else { return nil }
        return try? JSONSerialization.jsonObject(with: data) as? [String: String]
    }

    /// Whether the client closed (or abandoned) the socket.
    public var isClosedByClient: Bool { session.isClosed }

    /// Returns once the client closed (or abandoned) the socket; throws `WaitTimedOut` after
    /// `seconds` of real time.
    package func untilClosedByClient(within seconds: Double = 120) async throws {
        try await session.sent.wait("the client to close the socket", within: seconds) { $0.closed }
    }

    /// Whether the client started a close handshake (a close frame), rather than cutting the socket off.
    package var clientStartedCloseHandshake: Bool { session.startedCloseHandshake.withLock { $0 } }

    /// Sends a text frame to the client.
    public func push(_ text: String) { session.toClient.yield(text) }

    /// Stops reading what the client sends, as a server whose socket buffers are full: each send
    /// waits until `releaseSends()`.
    public func holdSends() { session.holding.update { $0.on = true } }

    /// Sends the client started that wait for the server to read.
    public var heldSendCount: Int { session.holding.value.waiting.count }

    /// Returns once `count` sends wait for the server to read; throws `WaitTimedOut` after
    /// `seconds` of real time.
    package func untilHeldSends(_ count: Int, within seconds: Double = 120) async throws {
        try await session.holding.wait("\(count) held sends", within: seconds) { $0.waiting.count == count }
    }

    /// Reads again: the held sends complete, in order.
    public func releaseSends() { session.releaseSends() }

    /// Sends a JSON object to the client as a text frame (keys sorted).
    public func push(_ object: [String: Any]) {
        push(String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self))
    }

    /// Ends the connection without a close handshake (the client sees no close code: 1006).
    public func drop() { session.toClient.finish() }

    /// Pings the client sent so far.
    public var pingCount: Int { session.pings.value.count }

    /// Returns once the client sent `count` pings; throws `WaitTimedOut` after `seconds` of real time.
    package func untilPinged(_ count: Int, within seconds: Double = 120) async throws {
        try await session.pings.wait("\(count) pings", within: seconds) { $0.count == count }
    }

    /// Answers the client's waiting pings with a pong, as a live server does.
    public func answerPings() { session.answerPings() }

    /// Closes the connection with a close frame of `code` and `reason`.
    public func close(code: Int, reason: String = "") {
        session.closeFrame.withLock { $0 = WebSocketClose(code: code, reason: reason) }
        session.toClient.finish()
    }

    /// The next frame the client sent, parsed; `nil` when the client closed without sending more,
    /// or sent nothing within `seconds` of real time.
    public func nextMessage(within seconds: Double = 120) async -> [String: Any]? {
        let index = consumed.withLock { $0 }
        try? await session.sent.wait("a frame from the client", within: seconds) { $0.frames.count > index || $0.closed }
        let frames = session.sent.value.frames
        guard frames.count > index else { return nil }
        let text = frames[index]
        consumed.withLock { $0 += 1 }
        return try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    }

    /// Frames the client sent that the test has not read yet.
    public var unreadFrameCount: Int {
        let index = consumed.withLock { $0 }
        return session.sent.value.frames.count - index
    }

    /// Expects `connection_init`, answers `connection_ack` with `timeoutMs` as the keep-alive timeout.
    public func acceptConnection(timeoutMs: Int = 300_000) async throws {
        let first = await nextMessage()
        guard first?["type"] as? String == "connection_init" else { throw WaitTimedOut(description: "expected connection_init, got \(String(describing: first))") }
        push(["type": "connection_ack", "connectionTimeoutMs": timeoutMs])
    }

    /// Reads `count` subscribe messages and answers each with `subscribe_success`; returns channel → id.
    @discardableResult
    public func acceptSubscribes(_ count: Int) async throws -> [String: String] {
        var ids: [String: String] = [:]
        for _ in 0..<count {
            guard let message = await nextMessage(), message["type"] as? String == "subscribe",
                  let id = message["id"] as? String, let channel = message["channel"] as? String else {
                throw WaitTimedOut(description: "expected a subscribe")
            }
            ids[channel] = id
            push(["type": "subscribe_success", "id": id])
        }
        return ids
    }
}
