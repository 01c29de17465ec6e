import ChannelRuntime
import Foundation

/// Settings of an `SSEConnection`: where the Mercure hub is, how to authorize, and timing.
///
/// The hub defaults to `/.well-known/mercure` on the API's host (Mercure's well-known URL), so the
/// same `ChannelEndpoint` and `ChannelAuthorization` serve both transports. Plain `http` is allowed
/// for loopback hosts only, as for the WebSocket.
public struct SSEConfiguration: Sendable {
    /// The API whose host serves the hub; authorization is asked for it (operation `.connect`).
    public var endpoint: ChannelEndpoint
    /// The Mercure hub URL the stream is opened on.
    public var hub: URL
    /// How every stream is authorized (headers sent with the `GET`).
    public var authorization: ChannelAuthorization
    /// Delay before reconnecting after a drop, and how many attempts are made (a policy's `limited(to:)`).
    /// A server's `retry:` can lengthen a delay, never shorten it: the policy's delay is the floor.
    /// Default: 1 s doubling to 30 s.
    public var reconnectPolicy: ReconnectPolicy = .exponential(initial: .seconds(1), maximum: .seconds(30))
    /// Asked before every attempt (the first, each reopen, a resume): when it returns false the
    /// connection stops, its state `.closed(.signedOut)` and every subscription `.failed`, and
    /// nothing asks again; call `start()` after sign-in.
    public var isSignedIn: @Sendable () async -> Bool = { true }
    /// Upper bound for the request until the response head arrives.
    public var connectTimeout: Duration = .seconds(15)
    /// How often the hub sends a heartbeat comment when it has no event to send (Mercure's
    /// default: 40 s). A stream silent for twice this (no byte, no heartbeat) is taken for dead and
    /// reopened, with `Last-Event-ID` so nothing published meanwhile is lost. Default: 40 s.
    public var heartbeatInterval: Duration = .seconds(40)
    /// How long to gather subscription changes before the stream is reopened with the new channels.
    public var resubscribeDelay: Duration = .milliseconds(20)
    /// The range a server's `retry:` is clamped to; a server cannot make the client wait for days
    /// (and the reconnect policy's delay is a floor under it, so it cannot make it hammer either).
    public var serverRetryRange: ClosedRange<Duration> = .milliseconds(100) ... .seconds(60)
    /// The longest `Retry-After` honoured on 429/503.
    public var maximumRetryAfter: Duration = .seconds(600)
    /// Reconnect proactively after this long.
    public var plannedReconnectInterval: Duration = .seconds(24 * 3600)
    /// An event larger than this is dropped (and counted as malformed): memory stays bounded.
    public var maximumEventBytes: Int = 1 << 20
    /// An event `id` longer than this is not kept for `Last-Event-ID` (nor one holding a control
    /// character): a header a proxy refuses (8 KiB is a common limit) would stop every reopen.
    public var maximumEventIDBytes: Int = 1024

    /// What an in-band error event of an own stream (a message marked `x-stream-error`) does to
    /// it, by the error's `code` (the payload's top-level `code` string, `nil` without one). The
    /// event reaches the app typed either way. Default: `defaultStreamErrorAction`.
    public var streamErrorAction: @Sendable (_ code: String?) -> StreamErrorAction = SSEConfiguration.defaultStreamErrorAction

    /// Codes naming credentials (`AUTH_FAILURE`, `TOKEN_EXPIRED`, `UNAUTHORIZED`, `FORBIDDEN`, …)
    /// re-authorize; `NOT_FOUND` and `GONE` fail; any other code, or none, retries with backoff.
    public static func defaultStreamErrorAction(_ code: String?) -> StreamErrorAction {
        let code = (code ?? "").prefix(200).uppercased()
        if ["AUTH", "TOKEN", "FORBIDDEN", "CREDENTIAL", "PERMISSION", "DENIED"].contains(where: code.contains) { return .reauthorize }
        if ["NOT_FOUND", "NOTFOUND", "GONE"].contains(where: code.contains) { return .fail }
        return .retry
    }

    /// Settings with the defaults above; the hub is `/.well-known/mercure` on `endpoint`'s host.
    public init(endpoint: ChannelEndpoint, authorization: ChannelAuthorization) {
        self.endpoint = endpoint
        self.authorization = authorization
        var components = URLComponents(url: endpoint.http, resolvingAgainstBaseURL: false)!
        components.path = "/.well-known/mercure"
        components.query = nil
        self.hub = components.url!
    }

    /// Settings with the defaults above and a hub of its own; it must be `https` (plain `http`
    /// only on loopback), as credentials go to it.
    public init(endpoint: ChannelEndpoint, authorization: ChannelAuthorization, hub: URL) throws(SSEConnectionError) {
        guard Self.allowsScheme(of: hub) else { throw .insecureHub(hub.absoluteString) }
        self.init(endpoint: endpoint, authorization: authorization)
        self.hub = hub
    }

    /// `https`, or plain `http` on a loopback host (as `ChannelEndpoint` requires for the API).
    static func allowsScheme(of url: URL) -> Bool {
        guard let host = url.host, !host.isEmpty else { return false }
        switch url.scheme?.lowercased() {
        case "https": return true
        case "http": return ChannelEndpoint.isLoopback(host)
        default: return false
        }
    }

    /// The silence after which the stream is taken for dead: two heartbeats missed.
    var silenceLimit: Duration { heartbeatInterval * 2 }

    /// The connection machine's settings from these.
    var machineSettings: ConnectionStateMachine.Settings {
        var settings = ConnectionStateMachine.Settings(
            reconnectPolicy: reconnectPolicy,
            // The stream carries every channel the request names: there is no per-channel refusal to retry.
            subscribeRetryPolicy: .never,
            connectTimeout: connectTimeout,
            operationTimeout: connectTimeout,
            defaultKeepAliveTimeout: silenceLimit,
            keepAliveRange: silenceLimit ... silenceLimit,
            plannedReconnectInterval: plannedReconnectInterval,
            // Closing an HTTP response is closing its socket: nothing to wait for.
            closeGracePeriod: .seconds(1),
            retriesUnauthorizedOnce: true
        )
        // A stream cannot be pinged, so a path change reopens it; a burst of changes (a flapping
        // path) reopens it once per quarter of the silence limit (20 s by default), not per change.
        settings.pathReplacementInterval = silenceLimit / 4
        // The retry with fresh credentials waits the policy's first delay too: a stream is never
        // opened more often than the policy allows, also when the server refuses it in-band.
        settings.unauthorizedRetryDelay = reconnectPolicy.delay(afterFailedAttempts: 1) ?? .zero
        return settings
    }
}

/// What an in-band error event does to its own stream.
public enum StreamErrorAction: Sendable, Equatable {
    /// The credentials were refused: the stream reopens (after the reconnect policy's first delay)
    /// with credentials asked anew from the provider; a second such error in a row fails it
    /// (`.failed(.unauthorized)`).
    case reauthorize
    /// Reopen after the reconnect policy's delay, counted as a failed open (it backs off; a
    /// policy made with `limited(to:)` gives up).
    case retry
    /// The stream ends for good: its subscription's status is `.failed` with the error.
    case fail
}
