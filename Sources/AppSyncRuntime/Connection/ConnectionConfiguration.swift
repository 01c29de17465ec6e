/// Settings of an `AppSyncConnection`. The defaults follow the Vortex app's design: a fixed 10 s reconnect delay,
/// a planned reconnect shortly before the service's 24 h connection limit.
public struct AppSyncConfiguration: Sendable {
    /// The API to connect to.
    public var endpoint: ChannelEndpoint
    /// How every connect, subscribe and publish is authorized.
    public var authorization: ChannelAuthorization
    /// Delay before reconnecting after an abnormal end. Default: fixed 10 s.
    public var reconnectPolicy: ReconnectPolicy = .fixed(.seconds(10))
    /// Asked before every connection attempt (the first, each reconnect, a resume): when it returns
    /// false the connection stops, its state `.closed(.signedOut)` and every subscription `.failed`,
    /// and nothing asks again; call `start()` after sign-in.
    public var isSignedIn: @Sendable () async -> Bool = { true }
    /// Upper bound for the WebSocket upgrade plus `connection_ack`.
    public var connectTimeout: Duration = .seconds(15)
    /// Upper bound for `subscribe_success`, `unsubscribe_success` and `publish_success`.
    public var operationTimeout: Duration = .seconds(15)
    /// Silence allowed when `connection_ack` carries no `connectionTimeoutMs` (AppSync sends 300000).
    public var defaultKeepAliveTimeout: Duration = .seconds(300)
    /// How often the service sends a keep-alive (`ka`) when it has nothing else to send: AppSync
    /// documents about every 60 s. A connection silent for twice this (two keep-alives missed) is
    /// taken for dead and replaced, without waiting out the `connectionTimeoutMs` it announces
    /// (300 000), which stays the outer bound. Default: 60 s.
    public var keepAliveInterval: Duration = .seconds(60)
    /// While connected, after this much silence a WebSocket ping goes out, and a connection whose
    /// pong does not come within `pingTimeout` is replaced at once: a dead path (a NAT mapping or a
    /// middlebox gone, a captive portal) is found within 45 s with no network path signal. At most
    /// two pings a minute on a silent connection, none while traffic flows, none while suspended
    /// (there is no connection then). `nil`: no pings; the keep-alive bound alone. Default: 30 s.
    public var pingInterval: Duration? = .seconds(30)
    /// How long the pong to a ping sent after silence may take. Default: 15 s (the path change's
    /// probe, which wants a fast answer, has `probeTimeout`).
    public var pingTimeout: Duration = .seconds(15)
    /// Reconnect proactively after this long; AppSync ends connections after 24 h.
    public var plannedReconnectInterval: Duration = .seconds(24 * 3600 - 5 * 60)
    /// Delay before a subscribe the service refused (`subscribe_error`) is sent again; when it
    /// returns `nil` the subscription's status becomes `.failed` until the next connection.
    /// Default: 1 s doubling to 60 s, five tries.
    public var subscribeRetryPolicy: ReconnectPolicy = ReconnectPolicy.exponential(initial: .seconds(1), maximum: .seconds(60)).limited(to: 5)
    /// How long a server has to finish a close the client started (ack timeout, keep-alive timeout,
    /// `disconnect()`); after it the socket is closed hard. A frozen or blackholed server never answers.
    public var closeGracePeriod: Duration = .seconds(2)
    /// How long a connected WebSocket has to answer the liveness probe (a ping) after a network
    /// path change or `resume()`; without an answer in time it is replaced at once. Default: 2 s.
    /// On slow links (satellite, a congested cell) raise it, or a healthy connection is replaced.
    public var probeTimeout: Duration = .seconds(2)
    /// The server's close codes that end the connection until the app calls `start()` again (the
    /// state becomes `.closed(.closed(code:reason:))`); any other close, a drop without a close
    /// frame (1006) and a transport error reconnect after `reconnectPolicy`'s delay. Default: 1000,
    /// a normal close ("only reconnect on non-normal close", as the migration plan asks). AppSync documents no close
    /// codes and is reported to close with 1000 after failures too, which a `connection_error`
    /// announces first (the client acts on that); `[]` reconnects after every close.
    public var finalCloseCodes: Set<Int> = [1000]
    /// How many bytes of publishes may wait to go out over the WebSocket while the server reads
    /// slower than the app publishes; a publish that does not fit fails at once with
    /// `AppSyncError.sendQueueFull` (nothing sent). Default: 4 MiB (AppSync takes at most five
    /// events of 240 KB per publish).
    public var maximumQueuedPublishBytes: Int = 4 << 20

    /// Settings with the defaults above for `endpoint` and `authorization`.
    public init(endpoint: ChannelEndpoint, authorization: ChannelAuthorization) {
        self.endpoint = endpoint
        self.authorization = authorization
    }
}

/// Errors of single operations.
public enum AppSyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The operation needs a connected session.
    case notConnected
    /// The service did not answer in time (`operationTimeout`; for an HTTP publish, the client's
    /// `timeout`). For a publish over the WebSocket: its frame had not gone out yet, and never will.
    case timedOut
    /// A publish over the WebSocket went out but no answer came within `operationTimeout`: the
    /// service may still deliver its events, so publishing them again may deliver them twice.
    case timedOutAfterSending
    /// The publishes waiting to go out over the WebSocket already hold `bytes`
    /// (`maximumQueuedPublishBytes`; the server reads slower than the app publishes): nothing was sent.
    case sendQueueFull(bytes: Int)
    /// The connection ended before the operation completed.
    case connectionLost
    /// The connection already has the most subscriptions AppSync allows.
    case subscriptionLimitReached(Int)
    /// The service refused the operation.
    case service([ServiceError])
    /// The publish cannot be sent as it is (event count, authorization).
    case invalidPublish(String)
    /// The channel path breaks AppSync Events' channel rules; nothing was sent.
    case invalidChannel(ChannelPathError)

    /// What went wrong, for logs and a stream's `.failed` status.
    public var description: String {
        switch self {
        case .notConnected: return "not connected"
        case .timedOut: return "the service did not answer in time"
        case .timedOutAfterSending: return "the service did not answer in time; the events went out and may still be delivered"
        case .sendQueueFull(let bytes): return "\(bytes) bytes of publishes are already waiting to go out; nothing was sent"
        case .connectionLost: return "the connection ended before the operation completed"
        case .subscriptionLimitReached(let limit): return "the connection already has the most subscriptions AppSync allows (\(limit))"
        case .service(let errors): return "the service refused: \(errors)"
        case .invalidPublish(let reason): return "the publish cannot be sent: \(reason)"
        case .invalidChannel(let error): return error.description
        }
    }
}
