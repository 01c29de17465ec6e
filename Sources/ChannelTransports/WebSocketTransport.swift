import Foundation

/// Opens WebSocket connections. The runtime talks to the network only through this protocol, so
/// tests drive it with an in-memory transport and apps may bring their own.
public protocol WebSocketTransport: Sendable {
    /// Connects to `url` offering `subprotocols`; returns once the upgrade succeeded. What the
    /// socket needs while it lives (its reader) runs in `tasks`: children of the connection's root.
    func connect(to url: URL, subprotocols: [String], tasks: TransportTasks) async throws -> any WebSocketSession
}

/// One open WebSocket.
public protocol WebSocketSession: Sendable {
    /// Text frames from the server. Finishes when the connection ends, for whatever reason;
    /// `peerClose` then says whether the server closed it, and with which code.
    var inbound: AsyncStream<String> { get }
    /// The server's close frame, once `inbound` has finished: its code and reason. `nil` when the
    /// connection ended without one (the socket dropped: 1006) or the adapter cannot tell.
    var peerClose: WebSocketClose? { get }
    /// Sends one text frame.
    func send(_ text: String) async throws
    /// Sends a ping and returns when the server's pong arrives; throws when the ping cannot be sent
    /// or the connection ends first. The caller bounds the wait (a dead path never answers).
    func ping() async throws
    /// Starts the close handshake (a close frame); `inbound` finishes when the server answers.
    func close() async
    /// Closes the socket at once, without a handshake, and finishes `inbound`. Called when the
    /// server did not finish a close in time, or when a connect completes after it was abandoned.
    func abort()
}

extension WebSocketSession {
    /// An adapter that does not read close frames reports none: every end reconnects.
    public var peerClose: WebSocketClose? { nil }

    /// An adapter that cannot ping: after a network path change its connection is replaced.
    public func ping() async throws { throw WebSocketPingUnsupported() }
}

/// The WebSocket adapter cannot send pings (what a session without `ping()` throws). An error the
/// app never gets as a value: a transport error reaches it as text (`ConnectionEnd.transportError`).
package struct WebSocketPingUnsupported: Error, CustomStringConvertible {
    /// The error.
    package init() {}
    /// What happened.
    package var description: String { "this WebSocket adapter cannot send pings" }
}

/// A WebSocket close frame: its status code (1000 normal, 1001 going away, 1011 server error,
/// 4000–4999 the application's own) and reason text.
public struct WebSocketClose: Sendable, Hashable {
    /// The status code.
    public var code: Int
    /// The reason text; empty when the frame had none.
    public var reason: String

    /// A close frame as read.
    public init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }
}

/// The connection ended before the WebSocket upgrade completed.
package struct WebSocketSessionClosed: Error, CustomStringConvertible {
    /// The error.
    package init() {}
    /// What happened.
    package var description: String { "the WebSocket closed before the upgrade completed" }
}

/// The server's 101 did not choose the subprotocol the client requires.
package struct WebSocketSubprotocolMismatch: Error, CustomStringConvertible {
    /// The subprotocol the client offered first and requires.
    package let required: String
    /// What the server chose (usually nothing, or something else), credentials taken out.
    package let chosen: [String]

    package init(required: String, chosen: [String]) {
        self.required = required
        self.chosen = chosen
    }

    /// What happened.
    package var description: String {
        "the server did not choose the WebSocket subprotocol '\(required)' (chose: \(chosen.isEmpty ? "none" : chosen.joined(separator: ", ")))"
    }
}
