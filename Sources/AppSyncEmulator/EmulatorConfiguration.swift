#if Emulator
/// How the emulator behaves: which namespaces exist, who may connect, and the service limits.
public struct EmulatorConfiguration: Sendable {
    /// Channel namespaces (first segments) that exist.
    public var namespaces: Set<String>
    /// API keys accepted for connect, subscribe and publish. An API key may use any channel.
    public var apiKeys: Set<String>
    /// HS256 secret for JWTs (Cognito-like user tokens). A JWT's `sub` must equal the `{userId}`
    /// segment of any `…/user/{userId}/…` channel it subscribes or publishes to, as the Vortex
    /// Lambda authorizer requires. At least 32 bytes.
    public var jwtSecret: String?
    /// Interval of `ka` messages.
    public var keepAliveInterval: Duration
    /// `connectionTimeoutMs` announced in `connection_ack`.
    public var connectionTimeoutMs: Int
    public var maximumSubscriptionsPerConnection: Int
    public var maximumEventBytes: Int
    public var maximumEventsPerPublish: Int
    /// Interval of heartbeat comments on the Server-Sent Events (Mercure) endpoint.
    public var eventStreamHeartbeatInterval: Duration
    /// `retry:` sent at the start of every event stream (the client's reconnect delay).
    public var eventStreamRetry: Duration
    /// Published events kept for `Last-Event-ID` replay on the event stream endpoint.
    public var replayBufferSize: Int
    /// Time between the events of an emulated enrichment job (`POST /api/v2/enrichments`).
    public var jobStepInterval: Duration = .milliseconds(200)
    /// How long a client may take to send a request's head, counted from the connection's start
    /// or the end of its previous answer, and the longest pause within its body: past it the
    /// connection closes, so a client that sends half a request and stops holds no connection for
    /// ever (60 s, as Node's `headersTimeout`: a machine under load must not lose requests).
    public var requestTimeout: Duration = .seconds(60)

    public init(
        namespaces: Set<String> = ["default"],
        apiKeys: Set<String> = [],
        jwtSecret: String? = nil,
        keepAliveInterval: Duration = .seconds(60),
        connectionTimeoutMs: Int = 300_000,
        maximumSubscriptionsPerConnection: Int = 200,
        maximumEventBytes: Int = 240 * 1024,
        maximumEventsPerPublish: Int = 5,
        eventStreamHeartbeatInterval: Duration = .seconds(15),
        eventStreamRetry: Duration = .seconds(1),
        replayBufferSize: Int = 10_000
    ) {
        self.namespaces = namespaces
        self.apiKeys = apiKeys
        self.jwtSecret = jwtSecret
        self.keepAliveInterval = keepAliveInterval
        self.connectionTimeoutMs = connectionTimeoutMs
        self.maximumSubscriptionsPerConnection = maximumSubscriptionsPerConnection
        self.maximumEventBytes = maximumEventBytes
        self.maximumEventsPerPublish = maximumEventsPerPublish
        self.eventStreamHeartbeatInterval = eventStreamHeartbeatInterval
        self.eventStreamRetry = eventStreamRetry
        self.replayBufferSize = replayBufferSize
    }
}
#endif
