import ChannelRuntime
import ChannelTransports
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `WebSocketTransport` on `URLSessionWebSocketTask`, the default on Apple platforms: the
/// system's proxies, TLS settings and network policies apply.
///
/// Not offered on Linux: FoundationNetworking's WebSocket does not connect there (libcurl's WebSocket
/// support is missing); `WSClientTransport` is the transport there. Its logic
/// (`URLSessionWebSocketSession`) runs in the tests on Linux against a scripted task.
///
/// The upgrade must choose the first offered subprotocol; a redirect is refused. Binary messages
/// are not part of the protocols this runtime speaks and are skipped, as by `WSClientTransport`.
public struct URLSessionWebSocketTransport: WebSocketTransport {
    /// Largest message accepted in one frame (2 MiB); AppSync events are at most 240 KB, escaped inside a frame.
    public var maximumMessageSize: Int

    #if canImport(FoundationNetworking)
    @available(*, unavailable, message: "URLSession's WebSocket does not connect on Linux (FoundationNetworking); use WSClientTransport from NIOChannelTransports")
    public init(maximumMessageSize: Int = 1 << 21) { self.init(evenOnLinux: maximumMessageSize) }
    #else
    /// A transport.
    public init(maximumMessageSize: Int = 1 << 21) { self.init(evenOnLinux: maximumMessageSize) }
    #endif

    /// A transport on any platform, Linux included: for this package's tests of the adapter.
    package init(evenOnLinux maximumMessageSize: Int = 1 << 21) {
        self.maximumMessageSize = maximumMessageSize
    }

    /// Opens a WebSocket to `url` offering `subprotocols`; returns once the upgrade succeeded.
    public func connect(to url: URL, subprotocols: [String], tasks: TransportTasks) async throws -> any WebSocketSession {
        try await URLSessionWebSocketSession.connect(
            to: url, subprotocols: subprotocols, maximumMessageSize: maximumMessageSize, makeTask: makeTask, tasks: tasks)
    }

    /// Where the tasks come from: URLSession's, or a test's scripted ones.
    var makeTask: URLSessionWebSocketSession.MakeTask = Self.urlSessionTask

    /// A `URLSessionWebSocketTask` in a session of its own, the session its delegate.
    static let urlSessionTask: URLSessionWebSocketSession.MakeTask = { url, subprotocols, delegate in
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        // The session's one task ends with it: invalidating after it is all that is left.
        // (`invalidateAndCancel` reads FoundationNetworking's task registry off its queue and can
        // trap while a cancelled task leaves it.)
        return (session.webSocketTask(with: url, protocols: subprotocols), { session.finishTasksAndInvalidate() })
    }
}

/// What the session uses of a `URLSessionWebSocketTask`: the task itself conforms, and the tests
/// script a fake, so the session's logic runs where URLSession's WebSocket cannot connect.
protocol WebSocketTask: AnyObject, Sendable {
    var maximumMessageSize: Int { get set }
    var closeCode: URLSessionWebSocketTask.CloseCode { get }
    var closeReason: Data? { get }
    var state: URLSessionTask.State { get }
    func resume()
    func cancel()
    func cancel(with closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?)
    func send(_ message: URLSessionWebSocketTask.Message) async throws
    func receive() async throws -> URLSessionWebSocketTask.Message
    /// Returns when the pong arrives.
    func ping() async throws
}

extension URLSessionWebSocketTask: WebSocketTask {
    func ping() async throws {
        try await withCheckedThrowingContinuation { (answered: CheckedContinuation<Void, any Error>) in
            sendPing { error in
                if let error { answered.resume(throwing: error) } else { answered.resume() }
            }
        }
    }
}
