import ChannelRuntime
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `WebSocketTransport` on `URLSessionWebSocketTask`, the default on Apple platforms: the
/// system's proxies, TLS settings and network policies apply.
///
/// It compiles on Linux, but FoundationNetworking's WebSocket does not connect there (libcurl's
/// WebSocket support is missing), so the NIO transport is the default off Apple platforms.
///
/// The upgrade must choose the first offered subprotocol; a redirect is refused. Binary messages
/// are not part of the protocols this runtime speaks and are skipped, as by `WSClientTransport`.
public struct URLSessionWebSocketTransport: WebSocketTransport {
    /// Largest message accepted in one frame (2 MiB); AppSync events are at most 240 KB, escaped inside a frame.
    public var maximumMessageSize: Int

    /// A transport.
    public init(maximumMessageSize: Int = 1 << 21) {
        self.maximumMessageSize = maximumMessageSize
    }

    /// Opens a WebSocket to `url` offering `subprotocols`; returns once the upgrade succeeded.
    public func connect(to url: URL, subprotocols: [String]) async throws -> any WebSocketSession {
        guard ["ws", "wss"].contains(url.scheme?.lowercased()), url.host?.isEmpty == false else {
            throw URLError(.badURL)
        }
        let session = URLSessionWebSocketSession(requiredSubprotocol: subprotocols.first)
        try await withTaskCancellationHandler {
            try await session.open(url, subprotocols: subprotocols, maximumMessageSize: maximumMessageSize)
        } onCancel: {
            session.abort()
        }
        return session
    }
}

final class URLSessionWebSocketSession: NSObject, BatchedInboundSession, URLSessionWebSocketDelegate, @unchecked Sendable {
    // @unchecked: the mutable state is `socket`, behind its lock; URLSession is never called with it held.
    let inbound: AsyncStream<String>
    let inboundReader: BatchedStream<String>.Reader?
    private let continuation: BatchedStream<String>.Continuation
    private let opened = OneShot()
    private let requiredSubprotocol: String?
    private let socket = LockedValue<(session: URLSession, task: URLSessionWebSocketTask)?>(nil)
    private let closeFrame = LockedValue<WebSocketClose?>(nil)

    init(requiredSubprotocol: String?) {
        let (inbound, continuation, reader) = BatchedStream<String>.makeStreamAndReader()
        self.inbound = inbound
        self.continuation = continuation
        self.inboundReader = reader
        self.requiredSubprotocol = requiredSubprotocol
    }

    func open(_ url: URL, subprotocols: [String], maximumMessageSize: Int) async throws {
        let session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)
        let task = session.webSocketTask(with: url, protocols: subprotocols)
        task.maximumMessageSize = maximumMessageSize
        socket.withLock { $0 = (session, task) }
        // An `abort` before the task existed had nothing to cancel: this one keeps it from going out.
        if opened.isResolved { abort() } else { task.resume() }
        try await opened.wait()
        Task { await self.receive(from: task) }
    }

    private func receive(from task: URLSessionWebSocketTask) async {
        while let message = try? await task.receive() {
            if case .string(let text) = message { _ = continuation.send(text) }
        }
        noteClose(task.closeCode, reason: task.closeReason)
        finish()
    }

    var peerClose: WebSocketClose? { closeFrame.withLock { $0 } }

    /// Keeps the server's close frame (`.invalid`: none came).
    private func noteClose(_ code: URLSessionWebSocketTask.CloseCode, reason: Data?) {
        guard code != .invalid else { return }
        let close = WebSocketClose(code: code.rawValue, reason: reason.map { String(decoding: $0, as: UTF8.self) } ?? "")
        closeFrame.withLock { if $0 == nil { $0 = close } }
    }

    /// The URLSession task's state, once `open` made it.
    var taskState: URLSessionTask.State? { socket.withLock { $0?.task.state } }

    func send(_ text: String) async throws {
        guard let task = socket.withLock({ $0?.task }) else { throw WebSocketSessionClosed() }
        try await task.send(.string(text))
    }

    func ping() async throws {
        guard let task = socket.withLock({ $0?.task }) else { throw WebSocketSessionClosed() }
        try await withCheckedThrowingContinuation { (answered: CheckedContinuation<Void, any Error>) in
            task.sendPing { error in
                if let error { answered.resume(throwing: error) } else { answered.resume() }
            }
        }
    }

    func close() async {
        socket.withLock { $0?.task }?.cancel(with: .normalClosure, reason: nil)
    }

    func abort() {
        opened.resolve(CancellationError())
        if let (session, task) = socket.withLock({ $0 }) {
            task.cancel()
            // The session's one task is cancelled: invalidating after it is all that is left.
            // (`invalidateAndCancel` reads FoundationNetworking's task registry off its queue and can
            // trap while the cancelled task leaves it.)
            session.finishTasksAndInvalidate()
        }
        continuation.finish()
    }

    private func finish() {
        continuation.finish()
        socket.withLock { $0?.session }?.finishTasksAndInvalidate()
    }

    // MARK: URLSession's delegate

    func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol chosen: String?) {
        if let required = requiredSubprotocol, chosen != required {
            opened.resolve(WebSocketSubprotocolMismatch(required: required, chosen: chosen.map { [Redaction.redacted($0)] } ?? []))
            abort()
        } else {
            opened.resolve(nil)
        }
    }

    func urlSession(
        _ session: URLSession, webSocketTask: URLSessionWebSocketTask, didCloseWith closeCode: URLSessionWebSocketTask.CloseCode,
        reason: Data?
    ) {
        noteClose(closeCode, reason: reason)
        finish()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        opened.resolve(error ?? WebSocketSessionClosed())
        finish()
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
