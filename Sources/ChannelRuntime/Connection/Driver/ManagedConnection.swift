import Foundation
import ServiceLifecycle

/// What every transport's connection offers apps, written once: starting and stopping, the app's
/// background and foreground, states, subscriptions and their statuses. `AppSyncConnection` and
/// `SSEConnection` are the ones there are; each adds its configuration, its `subscribe(to:)` and
/// what only its wire can do (AppSync's publish, SSE's last event id).
///
/// A connection is composed, not derived: it holds a `ConnectionDriver` (or a group of them) that
/// runs its wire, and hands it over as its `lifecycle`; everything below is that forwarded. A new
/// transport is a `Wire` under the same driver.
///
/// A connection is a ServiceLifecycle `Service`: a server runs it in its `ServiceGroup` (or in a
/// task of its own) through `run()`; an app calls `start()` and `disconnect()`.
public protocol ManagedConnection: Service {
    /// Counters of frames, reconnects and per-channel events.
    var metrics: RuntimeMetrics { get }

    /// What the lifecycle calls go to: the transport's driver, or a group of it and own streams.
    @_spi(Transport) var lifecycle: any ConnectionLifecycle { get }
}

extension ManagedConnection {
    /// The channels' events will come over another connection: a reopen must not replay them
    /// (see `Wire.forgetResumption()`).
    @_spi(Transport) public func forgetResumption() { lifecycle.forgetResumption() }

    /// Starts connecting (and keeps reconnecting); does nothing when already running. The
    /// connection runs in one task of its own, as `run()` runs it in the caller's.
    public func start() async { await lifecycle.start() }

    /// Runs the connection in the calling task until it ends: for servers and ServiceLifecycle (a
    /// `ServiceGroup` runs it as any other service). Every task of the connection is a child of
    /// this call, and none is alive once it returns.
    ///
    /// - Returns after `disconnect()` (called from any task), after a graceful shutdown of the
    ///   service group (which disconnects: the close handshake, bounded by the close grace period),
    ///   and after a final event ended the stream.
    /// - Cancelling the calling task ends the connection at once: the session is cut off without a
    ///   close handshake, the state becomes `.disconnected`, and `run()` returns once every task of
    ///   the connection ended. Subscriptions stay registered, as after `disconnect()`.
    /// - Throws `ConnectionRunError.failed` or `.closed` when the connection ends for good (the
    ///   credentials were refused, the reconnect policy gave up, the service closed it with a final
    ///   code), so a service group shuts down as for any failing service; `.alreadyRunning` when
    ///   `start()` or another `run()` runs it.
    public func run() async throws {
        let lifecycle = self.lifecycle
        try await withThrowingTaskGroup { group in
            group.addTask {
                // Returns at a graceful shutdown; outside a service group, waits to be cancelled.
                try await gracefulShutdown()
                await lifecycle.disconnect()
            }
            defer { group.cancelAll() }
            try await lifecycle.run()
        }
    }
    /// Ends the connection with no reconnect (the app's own disconnect or sign-out) and returns once
    /// the transport is closed: at the latest after the close grace period, when a peer that does
    /// not answer the close is cut off. Subscriptions stay registered, so their streams resume after
    /// the next `start()`.
    public func disconnect() async { await lifecycle.disconnect() }

    /// For the app going to the background: closes the transport (returning once it is closed) and
    /// does not reconnect until `resume()`. Subscriptions and their streams stay open.
    public func suspend() async { await lifecycle.suspend() }

    /// For the app coming back to the foreground: connects at once (no reconnect delay, also when
    /// one is running) and resubscribes every stream; a connection still open (the app did not
    /// suspend) is probed as after `networkPathChanged()` and replaced if it does not answer. `ChannelEventHub.updates(_:)` consumers get
    /// `.resumed(after:)` once their subscription is active again, so they can catch up.
    public func resume() async { await lifecycle.resume() }

    /// Tells the connection the device's network path changed: what a path monitor
    /// (`NWPathMonitor`) calls on every update, and an app on coming to the foreground.
    ///
    /// - `available: false`: no attempt is made until a path comes back (`.waitingForNetwork`); an
    ///   open connection is kept while it lasts.
    /// - `available: true`: a connected WebSocket is sent a ping and replaced at once (not after the
    ///   reconnect delay) when no pong or other traffic comes within 2 s, a healthy one kept; a
    ///   Server-Sent Events stream is reopened at once with `Last-Event-ID`; a reconnect delay or a
    ///   connect on the old path is cut short. Streams resume with `.resumed(after:)`.
    public func networkPathChanged(available: Bool = true) async { await lifecycle.networkPathChanged(available: available) }

    /// What the connection is doing now; `stateUpdates()` streams its changes.
    public var state: ConnectionState { get async { await lifecycle.state } }

    /// Connection states, starting with the current one.
    public func stateUpdates() async -> AsyncStream<ConnectionState> { await lifecycle.stateUpdates() }

    /// Ends a subscription: its stream and status sequence finish (and the wire is told, where it
    /// has such a message).
    public func unsubscribe(_ id: String) async { await lifecycle.unsubscribe(id) }

    /// Channels with an active subscription, for diagnostics.
    public var acknowledgedChannels: [String] { get async { await lifecycle.acknowledgedChannels } }

    /// Where the subscription `id` stands now; `nil` once it ended.
    public func status(ofSubscription id: String) async -> SubscriptionStatus? { await lifecycle.status(ofSubscription: id) }

    /// The statuses of subscription `id`, starting with the current one; finishes when it ends.
    public func statusUpdates(ofSubscription id: String) async -> AsyncStream<SubscriptionStatus> {
        await lifecycle.statusUpdates(ofSubscription: id)
    }
}
