import ChannelRuntime
import Foundation

/// Opens WebSocket connections. The runtime talks to the network only through this protocol, so
/// tests drive it with an in-memory transport and apps may bring their own.
public protocol WebSocketTransport: Sendable {
    /// Connects to `url` offering `subprotocols`; returns once the upgrade succeeded.
    func connect(to url: URL, subprotocols: [String]) async throws -> any WebSocketSession
}

/// One open WebSocket.
public protocol WebSocketSession: Sendable {
    /// Text frames from the server. Finishes when the connection ends, for whatever reason:
    /// AppSync's close codes carry no meaning, so the runtime does not look at them. Make it with
    /// `BatchedStream<String>.makeStreamAndReader()` and return the reader as `inboundReader`:
    /// under a burst the connection then takes many frames per lock and wake-up, where an
    /// `AsyncStream` continuation costs both per frame.
    var inbound: AsyncStream<String> { get }
    /// The reader behind `inbound` when the session made it with `BatchedStream`: the connection
    /// then reads the frames from it, without `AsyncStream`'s work per frame, and never reads
    /// `inbound`. `nil` (the default) makes the connection read `inbound`.
    var inboundReader: BatchedStream<String>.Reader? { get }
    /// Sends one text frame.
    func send(_ text: String) async throws
    /// Starts the close handshake (a close frame); `inbound` finishes when the server answers.
    func close() async
    /// Closes the socket at once, without a handshake, and finishes `inbound`. Called when the
    /// server did not finish a close in time, or when a connect completes after it was abandoned.
    func abort()
}

extension WebSocketSession {
    /// No reader: the connection reads `inbound`.
    public var inboundReader: BatchedStream<String>.Reader? { nil }
}
