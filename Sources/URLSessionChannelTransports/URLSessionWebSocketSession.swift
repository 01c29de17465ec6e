import ChannelRuntime
import ChannelTransports
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One WebSocket over a `WebSocketTask`: the upgrade's subprotocol checked, text frames into
/// `inbound`, the server's close frame kept, pings, a close and an abort that never leak the task.
/// URLSession's delegate calls land in `opened(withProtocol:)`, `closed(code:reason:)` and
/// `completed(error:)`, which the tests call for a scripted task.
final class URLSessionWebSocketSession: NSObject, BatchedInboundSession, URLSessionWebSocketDelegate, @unchecked Sendable {
    // @unchecked: the mutable state is behind `socket`'s and `closeFrame`'s locks; the task is never
    // called with a lock held.
    /// Makes the task for `url` with this session as its delegate, and how to release what it needs.
    typealias MakeTask = @Sendable (URL, [String], URLSessionWebSocketSession) -> (task: any WebSocketTask, invalidate: @Sendable () -> Void)

    let inbound: AsyncStream<String>
    let inboundReader: BatchedStream<String>.Reader?
    private let continuation: BatchedStream<String>.Continuation
    private let opened = OneShot()
    private let requiredSubprotocol: String?
    private let socket = LockedValue<(task: any WebSocketTask, invalidate: @Sendable () -> Void)?>(nil)
    private let closeFrame = LockedValue<WebSocketClose?>(nil)
    /// Whether the receive loop runs: from then on it alone ends `inbound`, after every message.
    private let receiving = LockedValue(false)

    /// Opens a session; returns once the upgrade chose `subprotocols.first`.
    static func connect(
        to url: URL, subprotocols: [String], maximumMessageSize: Int, makeTask: MakeTask, tasks: TransportTasks
    ) async throws -> URLSessionWebSocketSession {
        guard ["ws", "wss"].contains(url.scheme?.lowercased()), url.host?.isEmpty == false else {
            throw URLError(.badURL)
        }
        let session = URLSessionWebSocketSession(requiredSubprotocol: subprotocols.first)
        try await withTaskCancellationHandler {
            try await session.open(url, subprotocols: subprotocols, maximumMessageSize: maximumMessageSize, makeTask: makeTask, tasks: tasks)
        } onCancel: {
            session.abort()
        }
        return session
    }

    /// Message bytes that may wait for the connection to read them; past it the receive loop stops
    /// taking messages from the task until the connection catches up (URLSession holds the rest).
    static let maximumBufferedBytes = 4 << 20

    init(requiredSubprotocol: String?) {
        let (inbound, continuation, reader) = BatchedStream<String>.makeStreamAndReader(weightLimit: .max)
        self.inbound = inbound
        self.continuation = continuation
        self.inboundReader = reader
        self.requiredSubprotocol = requiredSubprotocol
    }

    func open(_ url: URL, subprotocols: [String], maximumMessageSize: Int, makeTask: MakeTask, tasks: TransportTasks) async throws {
        let (task, invalidate) = makeTask(url, subprotocols, self)
        task.maximumMessageSize = maximumMessageSize
        socket.withLock { $0 = (task, invalidate) }
        // An `abort` before the task existed had nothing to cancel: this one keeps it from going out.
        if opened.isResolved { abort() } else { task.resume() }
        try await opened.wait()
        receiving.withLock { $0 = true }
        // A child of the connection's root: the socket outlives `connect` (the connection's session
        // reads it); it ends when the URLSession task does, which the session's close or abort
        // cancels, and with the connection.
        do {
            _ = try tasks.run { await self.receive(from: task) }
        } catch {
            receiving.withLock { $0 = false }
            abort()
            throw error
        }
    }

    private func receive(from task: any WebSocketTask) async {
        while let message = try? await task.receive() {
            if case .string(let text) = message { _ = continuation.send(text, weight: text.utf8.count) }
            await continuation.waitForRoom(weight: Self.maximumBufferedBytes)
        }
        noteClose(task.closeCode, reason: task.closeReason)
        finish()
    }

    /// The task's state, once `open` made it.
    var taskState: URLSessionTask.State? { socket.withLock { $0?.task.state } }

    var peerClose: WebSocketClose? { closeFrame.withLock { $0 } }

    func send(_ text: String) async throws {
        guard let task = socket.withLock({ $0?.task }) else { throw WebSocketSessionClosed() }
        try await task.send(.string(text))
    }

    func ping() async throws {
        guard let task = socket.withLock({ $0?.task }) else { throw WebSocketSessionClosed() }
        try await task.ping()
    }

    func close() async {
        socket.withLock { $0?.task }?.cancel(with: .normalClosure, reason: nil)
    }

    func abort() {
        opened.resolve(CancellationError())
        if let (task, invalidate) = socket.withLock({ $0 }) {
            task.cancel()
            invalidate()
        }
        continuation.finish()
    }

    private func finish() {
        continuation.finish()
        socket.withLock { $0?.invalidate }?()
    }

    /// Keeps the server's close frame (`.invalid`: none came). A reason that is not UTF-8 makes the
    /// close a failure, 1007, whatever its code (RFC 6455 §8.1), as the NIO adapter reads it.
    private func noteClose(_ code: URLSessionWebSocketTask.CloseCode, reason: Data?) {
        guard code != .invalid else { return }
        let close: WebSocketClose
        if let reason, String(validating: reason, as: UTF8.self) == nil {
            close = WebSocketClose(code: 1007, reason: "")
        } else {
            close = WebSocketClose(code: code.rawValue, reason: reason.map { String(decoding: $0, as: UTF8.self) } ?? "")
        }
        closeFrame.withLock { if $0 == nil { $0 = close } }
    }

    // MARK: What the task reports

    /// The upgrade completed choosing `chosen`.
    func opened(withProtocol chosen: String?) {
        if let required = requiredSubprotocol, chosen != required {
            opened.resolve(WebSocketSubprotocolMismatch(required: required, chosen: chosen.map { [Redaction.redacted($0)] } ?? []))
            abort()
        } else {
            opened.resolve(nil)
        }
    }

    /// The server's close frame arrived. The messages before it may still be on their way to the
    /// receive loop, which ends `inbound` once it has read them all.
    func closed(code: URLSessionWebSocketTask.CloseCode, reason: Data?) {
        noteClose(code, reason: reason)
        if !receiving.withLock({ $0 }) { finish() }
    }

    /// The task ended, with `error` or without (as for a close, the receive loop ends `inbound`).
    func completed(error: (any Error)?) {
        opened.resolve(error ?? WebSocketSessionClosed())
        if !receiving.withLock({ $0 }) { finish() }
    }

    // MARK: URLSession's delegate

    func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol chosen: String?) {
        opened(withProtocol: chosen)
    }

    func urlSession(
        _ session: URLSession, webSocketTask: URLSessionWebSocketTask, didCloseWith closeCode: URLSessionWebSocketTask.CloseCode,
        reason: Data?
    ) {
        closed(code: closeCode, reason: reason)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        completed(error: error)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
