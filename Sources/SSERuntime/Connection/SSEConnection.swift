@_spi(Transport) import ChannelRuntime
import ChannelTransports
import Foundation
import Logging

/// One Server-Sent Events stream from a Mercure hub carrying every subscribed channel, kept alive
/// across drops: the second transport under the same hub and generated notifier
/// (`BackendNotifier(source: ChannelEventHub(connection: SSEConnection(…)))`).
///
/// The wire is the Mercure protocol: `GET <hub>?topic=<channel>&topic=…` with the
/// authorization's headers, answered by `text/event-stream`. Each event's `event:` field (Mercure's
/// update `type`) names its channel, its `data:` is the event's JSON and its `id:` is sent back as
/// `Last-Event-ID` when the stream is reopened, so the hub replays what was published meanwhile
/// (before the first event, the `Last-Event-ID` the hub answered the request with).
///
/// The connection's life is the transport-neutral `ConnectionStateMachine` run by the
/// `ConnectionDriver`, as for the WebSocket; `SSEWire` is the Mercure side:
/// - a `200` event stream is the accepted session; every subscription it names is active at once;
/// - a subscription to a channel the stream does not carry reopens the stream with the new channel
///   set (changes within `resubscribeDelay` are gathered into one reopen); an unsubscribed channel
///   stays in the stream until the next reopen, its events dropped;
/// - `401`/`403` is an authorization failure (tried once more with fresh credentials, after the
///   policy's first delay), `429`/`503`
///   wait for `Retry-After` (at most `maximumRetryAfter`), other `5xx` reconnect, `204` and other
///   `4xx` fail for good;
/// - the server's `retry:` is a hint: it can lengthen the reconnect policy's delay (up to
///   `serverRetryRange`'s upper bound), never shorten it, so failures still back off as the policy
///   says; bytes and heartbeat comments feed the silence watchdog (twice `heartbeatInterval`);
/// - an event `id` that cannot be sent back as a `Last-Event-ID` header (`maximumEventIDBytes`,
///   control characters) is not kept: counted (`ignoredEventIDs`) and logged;
/// - events larger than `maximumEventBytes` and events naming no subscribed channel are counted
///   and dropped.
///
/// Beside the hub's stream, channels whose spec marks them `x-request-stream` (job
/// streams: one request per job) are each their own request: see `subscribe(_:)`.
public final class SSEConnection: ManagedConnection, ChannelConnection {
    /// The settings the connection was made with.
    public let configuration: SSEConfiguration
    private let wire: SSEWire
    /// The hub's shared stream.
    private let driver: ConnectionDriver
    /// The own streams (`ChannelRequest.isOwnStream`) beside the hub's shared stream.
    private let group: OwnStreamGroup

    /// The id of the last event received, sent as `Last-Event-ID` when the stream reopens.
    public var lastEventID: String? { wire.lastEventID }

    /// A connection that does nothing until `start()`.
    ///
    /// - Parameters:
    ///   - configuration: the hub, authorization and timing.
    ///   - transport: the HTTP client (`URLSessionEventStreamTransport` on Apple platforms, `NIOEventStreamTransport` elsewhere).
    ///   - clock: the clock every delay and timeout uses (inject one in tests).
    ///   - metrics: where counters go.
    ///   - logger: where diagnostics go; tokens never reach it.
    public init(
        configuration: SSEConfiguration,
        transport: any EventStreamTransport = defaultEventStreamTransport(),
        clock: some Clock<Duration> = ContinuousClock(),
        metrics: RuntimeMetrics = RuntimeMetrics(),
        logger: Logger = Logger(label: "SSERuntime.SSEConnection")
    ) {
        self.configuration = configuration
        wire = SSEWire(configuration: configuration, transport: transport)
        let settings = ConnectionDriver.Settings(
            machine: configuration.machineSettings, isSignedIn: configuration.isSignedIn,
            channelRules: .serverSentEvents, renewalDelay: configuration.resubscribeDelay)
        let clock = RuntimeClock(clock)
        let driver = ConnectionDriver(wire: wire, settings: settings, clock: clock, metrics: metrics, logger: logger)
        self.driver = driver
        group = OwnStreamGroup(shared: driver) { request in
            let wire = SSEWire(configuration: configuration, transport: transport, style: .ownStream(finalEventNames: request.finalEventNames, errorEventNames: request.errorEventNames))
            var ownSettings = settings
            ownSettings.ownStream = request.channel
            return ConnectionDriver(wire: wire, settings: ownSettings, clock: clock, metrics: metrics, logger: logger)
        }
    }

    public var metrics: RuntimeMetrics { driver.metrics }
    @_spi(Transport) public var lifecycle: any ConnectionLifecycle { group }

    /// Subscribes to `channel`, a topic path by the Server-Sent Events channel rules
    /// (`ChannelNamingRules.serverSentEvents`; a last segment `*` is everything below). The stream
    /// stays open across reconnects; `unsubscribe(_:)` or the consumer stopping ends it. An
    /// unsubscribed channel stays in the stream until the next reopen, its events dropped.
    public func subscribe(to channel: String) async throws(ChannelPathError) -> RawChannelSubscription {
        do {
            return try await driver.subscribe(to: channel)
        } catch {
            switch error {
            case .invalidChannel(let error): throw error
            case .limitReached: preconditionFailure("SSE connections set no subscription limit")
            }
        }
    }

    /// Subscribes as `request` says. An own stream (`isOwnStream`: a channel marked
    /// `x-request-stream` in the spec, such as `/api/v2/enrichments/{jobId}/stream`) is its own
    /// `GET` of the channel's path on the endpoint's host, with no topic query: its `event:` field
    /// names the message, its `Last-Event-ID` is its own, it reconnects and backs off on its own,
    /// and an event named one of `finalEventNames` is delivered and ends it: the stream finishes
    /// and nothing reopens it. Several own streams run at once. Other channels are topics of the
    /// hub's stream, as with `subscribe(to:)`.
    public func subscribe(_ request: ChannelRequest) async throws -> RawChannelSubscription {
        guard request.isOwnStream else { return try await subscribe(to: request.channel) }
        // An HTTP path resolves `.` and `..` away: a parameter value must not move the request.
        if request.channel.split(separator: "/").contains(where: { $0 == "." || $0 == ".." }) {
            throw SSEConnectionError.dotSegment(request.channel)
        }
        do {
            return try await group.subscribe(request)
        } catch {
            switch error {
            case .invalidChannel(let error): throw error
            case .limitReached: preconditionFailure("SSE connections set no subscription limit")
            }
        }
    }
}

/// Why the SSE connection cannot open its stream.
public enum SSEConnectionError: Error, Equatable, CustomStringConvertible {
    /// The hub URL is not `https` (plain `http` is for loopback hosts only), or has no host.
    case insecureHub(String)
    /// An own stream's channel has a `.` or `..` segment, which an HTTP path would resolve away.
    case dotSegment(String)

    public var description: String {
        switch self {
        case .insecureHub(let url): return "'\(url)' is not https; plain http is allowed for loopback hosts only"
        case .dotSegment(let channel): return "channel '\(channel)' has a '.' or '..' segment; as an HTTP path it would name another resource"
        }
    }
}

