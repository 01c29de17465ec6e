@_spi(Generated) @_spi(Transport) import ChannelRuntime
import ChannelTransports
import Foundation
import Logging

/// One WebSocket to AppSync Events carrying many subscriptions, kept alive across drops.
///
/// The connection's life (reconnect, keep-alive, resubscription, closing within a bound) is
/// `ConnectionStateMachine`, run by the `ConnectionDriver` every transport shares; `AppSyncWire`
/// speaks AppSync's wire protocol (its sockets, frames and publishes).
///
/// - `connection_init` → `connection_ack` (within `connectTimeout`), then every subscription is
///   (re)subscribed; `data` frames are routed by subscription id. A second ack is ignored.
/// - Nothing for `connectionTimeoutMs` ends the session; a planned reconnect happens before the 24 h
///   limit; after an abnormal end the reconnect policy's delay applies.
/// - A close the peer does not finish within `closeGracePeriod` closes the socket hard.
/// - A refused subscribe is reported and tried again with backoff; an authorization failure is
///   tried once more with credentials asked anew before ending in `.failed(.unauthorized)`.
/// - Malformed frames are logged, counted in `metrics` and dropped.
public final class AppSyncConnection: ManagedConnection, ChannelConnection {
    /// The settings the connection was made with.
    public let configuration: AppSyncConfiguration
    private let driver: ConnectionDriver
    /// The driver's wire, typed: its sessions publish.
    private let wire: AppSyncWire
    /// Subscriptions per connection that AppSync allows.
    public static let maximumSubscriptions = 200
    /// The longest keep-alive silence accepted from `connection_ack` (1 hour; AppSync sends 5 minutes).
    package static let maximumKeepAliveTimeoutMs = 3_600_000
    /// The shortest keep-alive silence accepted from `connection_ack` (1 second).
    package static let minimumKeepAliveTimeoutMs = 1_000

    /// A connection that does nothing until `start()`.
    ///
    /// - Parameters:
    ///   - configuration: the endpoint, authorization and timing.
    ///   - transport: the WebSocket client (`URLSessionWebSocketTransport` on Apple platforms, `WSClientTransport` elsewhere).
    ///   - clock: the clock every delay and timeout uses (inject one in tests).
    ///   - metrics: where counters go.
    ///   - logger: where diagnostics go; tokens never reach it.
    public init(
        configuration: AppSyncConfiguration,
        transport: any WebSocketTransport = defaultWebSocketTransport(),
        clock: some Clock<Duration> = ContinuousClock(),
        metrics: RuntimeMetrics = RuntimeMetrics(),
        logger: Logger = Logger(label: "AppSyncRuntime.AppSyncConnection")
    ) {
        self.configuration = configuration
        let settings = ConnectionDriver.Settings(
            machine: configuration.machineSettings, isSignedIn: configuration.isSignedIn,
            channelRules: .appSyncEvents, maximumSubscriptions: Self.maximumSubscriptions)
        wire = AppSyncWire(configuration: configuration, transport: transport)
        driver = ConnectionDriver(wire: wire, settings: settings, clock: RuntimeClock(clock), metrics: metrics, logger: logger)
    }

    public var metrics: RuntimeMetrics { driver.metrics }
    @_spi(Transport) public var lifecycle: any ConnectionLifecycle { driver }

    /// Subscribes to `channel`. The stream stays open across reconnects (every active subscription
    /// is resubscribed); `unsubscribe(_:)` or the consumer stopping ends it.
    public func subscribe(to channel: String) async throws(AppSyncError) -> RawChannelSubscription {
        do {
            return try await driver.subscribe(to: channel)
        } catch {
            switch error {
            case .invalidChannel(let error): throw .invalidChannel(error)
            case .limitReached(let limit): throw .subscriptionLimitReached(limit)
            }
        }
    }

    // MARK: Publish

    /// Publishes on the current session waiting for their answer (a testing hook).
    package var publishesAwaitingAnswer: Int { wire.lastSession?.publishesAwaitingAnswer ?? 0 }

    /// Publishes 1–5 events (each a JSON text) over the WebSocket; per-event results come back.
    public func publish(_ events: [String], to channel: String) async throws(AppSyncError) -> PublishResult {
        guard (1...5).contains(events.count) else { throw .invalidPublish("a publish carries 1 to 5 events, not \(events.count)") }
        do { try ChannelPathError.check(channel, rules: .appSyncEvents, allowingWildcard: false) } catch { throw .invalidChannel(error) }
        guard let session = wire.lastSession, driver.isConnected(session) else { throw .notConnected }
        let headers: [String: String]
        do {
            headers = try await configuration.authorization.headers(
                for: AuthorizationRequest(operation: .publish(channel: channel, events: events), endpoint: configuration.endpoint))
        } catch {
            throw .invalidPublish("authorization failed: \(error)")
        }
        guard driver.isConnected(session) else { throw .connectionLost }
        do {
            return try await session.publish(events, to: channel, authorization: headers)
        } catch let error as AppSyncError {
            throw error
        } catch {
            throw .connectionLost
        }
    }
}

extension AppSyncConfiguration {
    /// The connection machine's settings from these.
    var machineSettings: ConnectionStateMachine.Settings {
        var settings = ConnectionStateMachine.Settings(
            reconnectPolicy: reconnectPolicy,
            subscribeRetryPolicy: subscribeRetryPolicy,
            connectTimeout: connectTimeout,
            operationTimeout: operationTimeout,
            defaultKeepAliveTimeout: defaultKeepAliveTimeout,
            keepAliveRange: .milliseconds(AppSyncConnection.minimumKeepAliveTimeoutMs) ... .milliseconds(AppSyncConnection.maximumKeepAliveTimeoutMs),
            plannedReconnectInterval: plannedReconnectInterval,
            closeGracePeriod: closeGracePeriod,
            retriesUnauthorizedOnce: true,
            finalCloseCodes: finalCloseCodes,
            probeTimeout: probeTimeout
        )
        settings.keepAliveInterval = keepAliveInterval
        settings.idlePingInterval = pingInterval
        settings.idlePingTimeout = pingTimeout
        return settings
    }
}

extension AppSyncConnection: ChannelPublishing {
    /// `publish(_:to:)` for the hub's typed publish: a refused event is an error naming it.
    public func publishEvents(_ events: [String], to channel: String) async throws {
        try await publish(events, to: channel).requireEveryEventAccepted()
    }
}

extension PublishResult {
    /// For a typed publish (`ChannelPublishing`): a refused event is an error naming it.
    func requireEveryEventAccepted() throws(AppSyncError) {
        if let failure = failed.first {
            throw .invalidPublish("event \(failure.index) was refused: \(failure.message ?? failure.code ?? "no reason given")")
        }
    }
}
