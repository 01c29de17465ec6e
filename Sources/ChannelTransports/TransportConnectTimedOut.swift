/// A transport's own limit on opening a socket ran out: the host never answered the TCP connect
/// (a frozen server, a firewall that drops packets). Thrown by `WebSocketTransport.connect` and
/// `EventStreamTransport.open`, it makes the connection count the attempt as `timed_out`, as its
/// own `connectTimeout` does; any other error opening a transport counts as `network`.
public struct TransportConnectTimedOut: Error, Sendable, CustomStringConvertible {
    /// The transport's limit, when it knows it.
    public var limit: Duration?

    /// The error; `limit` is the time the transport waited for the connect.
    public init(limit: Duration? = nil) { self.limit = limit }

    /// What happened.
    public var description: String {
        limit.map { "the TCP connect got no answer within \($0)" } ?? "the TCP connect got no answer in time"
    }
}
