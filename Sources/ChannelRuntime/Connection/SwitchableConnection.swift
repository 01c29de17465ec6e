import Foundation
import Logging

/// A connection that runs over one of several transports and can be moved to another while it
/// runs: a staged rollout from WebSocket to Server-Sent Events, and an instant rollback.
/// The hub and the generated notifier on top see one connection; `switchTransport(to:)` moves
/// every subscription, and no consumer's stream ends.
///
/// ```swift
/// let connection = SwitchableConnection(["websocket": appSync, "sse": sse], using: flags.useSSE ? "sse" : "websocket")
/// let notifier = BackendNotifier(source: ChannelEventHub(connection: connection))
/// await connection.start()
/// // Later, a remote flag flips:
/// try await connection.switchTransport(to: "websocket")
/// ```
///
/// A switch leaves the old transport before it joins the new one, so no event arrives twice; what
/// is published in between is not delivered. Each subscription's status goes to `.subscribing`
/// and back to `.active` over the new transport, so `updates(_:)` consumers get
/// `.resumed(after:)` and can catch up; the connection's state follows the new transport (its
/// `connecting`, then `connected`) and `transportUpdates()` names it. The transport left forgets
/// its resumption point (an SSE `Last-Event-ID`): coming back later must not replay events the
/// other transport delivered.
public final class SwitchableConnection: ChannelConnection {
    private let transports: [String: any ManagedConnection & ChannelConnection]
    private let core: Core

    /// A connection over `transports` (each by its name), starting with `active`.
    public init(_ transports: [String: any ManagedConnection & ChannelConnection], using active: String, logger: Logger = Logger(label: "ChannelRuntime.SwitchableConnection")) {
        precondition(transports[active] != nil, "SwitchableConnection: no transport named '\(active)'")
        self.transports = transports
        core = Core(transports: transports, active: active, logger: logger)
    }

    /// The name of the transport in use.
    public var activeTransport: String { get async { await core.active } }

    /// The names of the transports in use, starting with the current one.
    public func transportUpdates() async -> AsyncStream<String> { await core.transportUpdates() }

    /// Moves every subscription to `name`'s transport (started if the connection runs) and stops
    /// the one in use; nothing when it is already in use. Returns once every subscription was
    /// made anew (its status shows when it is active). Switches run one at a time, in the order
    /// asked; one still waiting when a later one is asked for gives way to it (and returns), so
    /// any burst of switches ends on the transport asked for last, with one subscription each.
    public func switchTransport(to name: String) async throws(SwitchError) {
        guard transports[name] != nil else { throw .unknownTransport(name, known: transports.keys.sorted()) }
        await core.switchTransport(to: name)
    }

    /// Why a switch could not be made.
    public enum SwitchError: Error, Equatable, CustomStringConvertible {
        case unknownTransport(String, known: [String])

        public var description: String {
            switch self {
            case .unknownTransport(let name, let known): "no transport named '\(name)' (known: \(known.joined(separator: ", ")))"
            }
        }
    }

    // MARK: Lifecycle, forwarded to the transport in use

    public func start() async { await core.start() }
    public func disconnect() async { await core.disconnect() }
    public func suspend() async { await core.suspend() }
    public func resume() async { await core.resume() }
    public func networkPathChanged(available: Bool = true) async {
        for transport in transports.values { await transport.networkPathChanged(available: available) }
    }

    // MARK: ChannelConnection

    /// The counters of the transport in use when asked.
    public var metrics: RuntimeMetrics { core.metricsOfActive }

    public func subscribe(to channel: String) async throws -> RawChannelSubscription {
        try await core.subscribe(ChannelRequest(channel: channel))
    }

    public func subscribe(_ request: ChannelRequest) async throws -> RawChannelSubscription {
        try await core.subscribe(request)
    }

    public func unsubscribe(_ id: String) async { await core.unsubscribe(id) }

    public func status(ofSubscription id: String) async -> SubscriptionStatus? { core.board.status(of: id) }

    public func statusUpdates(ofSubscription id: String) async -> AsyncStream<SubscriptionStatus> { core.board.statusUpdates(of: id) }

    public var state: ConnectionState { get async { await core.activeState } }

    public func stateUpdates() async -> AsyncStream<ConnectionState> { await core.stateUpdates() }
}

extension SwitchableConnection {
    /// The switching state: which transport, and each subscription's place on it.
    actor Core {
        let transports: [String: any ManagedConnection & ChannelConnection]
        private(set) var active: String
        let board = ConnectionStatusBoard()
        private let logger: Logger
        private var running = false
        /// Suspended by the app: a transport switched to meanwhile waits for `resume()`.
        private var suspended = false
        private var activeNames: [UUID: AsyncStream<String>.Continuation] = [:]
        private let activeMetrics: LockedValue<RuntimeMetrics>
        private var stateWatcher: Task<Void, Never>?

        private struct Subscription {
            let request: ChannelRequest
            /// Bounded as the transports' own buffers of undecoded events are; a drop is counted,
            /// logged and carried to the hub as a gap.
            let continuation: BatchedStream<RawChannelEvent>.Continuation
            /// Its id on the transport in use; `nil` while it is being made anew.
            var inner: String?
            var forwarders: [Task<Void, Never>] = []
        }

        private var subscriptions: [String: Subscription] = [:]
        private var made = 0
        /// Switches, subscribes and unsubscribes run one at a time (`exclusively`): each awaits
        /// the transports, and an actor lets the next call in at every await, so two switches
        /// started together would each leave and join (duplicate subscriptions, events read
        /// twice, or both transports stopped).
        private var busy = false
        private var waiting: [CheckedContinuation<Void, Never>] = []
        /// Counts switch requests: a switch still waiting when a later one was asked for gives way.
        private var switchesAsked = 0

        init(transports: [String: any ManagedConnection & ChannelConnection], active: String, logger: Logger) {
            self.transports = transports
            self.active = active
            self.logger = logger
            activeMetrics = LockedValue(transports[active]!.metrics)
        }

        nonisolated var metricsOfActive: RuntimeMetrics { activeMetrics.withLock { $0 } }

        var activeState: ConnectionState { get async { await transports[active]!.state } }

        func start() async {
            running = true
            watchState()
            await transports[active]!.start()
        }

        func disconnect() async {
            running = false
            await transports[active]!.disconnect()
        }

        func suspend() async {
            suspended = true
            await transports[active]!.suspend()
        }

        func resume() async {
            suspended = false
            // A transport switched to while suspended has not started yet.
            if running { await transports[active]!.start() }
            await transports[active]!.resume()
        }

        func stateUpdates() -> AsyncStream<ConnectionState> {
            watchState()
            return board.connectionStateUpdates()
        }

        func transportUpdates() -> AsyncStream<String> {
            let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(8))
            let id = UUID()
            activeNames[id] = continuation
            continuation.yield(active)
            // Not a child: the observer's end is told in a synchronous callback; the actor needs a hop.
            continuation.onTermination = { _ in Task { await self.removeNameObserver(id) } }
            return stream
        }

        private func removeNameObserver(_ id: UUID) { activeNames[id] = nil }

        /// Republishes the states of the transport in use.
        private func watchState() {
            stateWatcher?.cancel()
            let transport = transports[active]!
            // Not a child: a switchable connection has no root of its own yet; replaced (cancelled)
            // at each switch.
            stateWatcher = Task { [board] in
                for await state in await transport.stateUpdates() {
                    guard !Task.isCancelled else { return }
                    board.setConnectionState(state)
                }
            }
        }

        // MARK: Subscriptions

        /// Runs `body` when no other switch, subscribe or unsubscribe runs, in the order asked.
        private func exclusively<T>(_ body: () async throws -> T) async rethrows -> T {
            if busy {
                await withCheckedContinuation { waiting.append($0) }
            } else {
                busy = true
            }
            defer {
                if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
            }
            return try await body()
        }

        func subscribe(_ request: ChannelRequest) async throws -> RawChannelSubscription {
            made += 1
            let id = "switchable\(made)"
            let limit = ConnectionDriver.undecodedLimit
            let (events, continuation, reader) = BatchedStream<RawChannelEvent>.makeStreamAndReader(
                bufferingPolicy: .bufferingNewest(limit.events), weightLimit: limit.bytes)
            subscriptions[id] = Subscription(request: request, continuation: continuation)
            // Not a child of anything: the stream's end is reported from the consumer's task.
            continuation.onTermination = { _ in Task { await self.unsubscribe(id) } }
            board.setStatus(.subscribing, of: id)
            do {
                try await exclusively { try await join(id, on: active) }
            } catch {
                subscriptions[id] = nil
                board.forget(id)
                throw error
            }
            return RawChannelSubscription(id: id, channel: request.channel, events: events, reader: reader)
        }

        /// Makes subscription `id` on transport `name`, forwarding its events and statuses.
        private func join(_ id: String, on name: String) async throws {
            guard let request = subscriptions[id]?.request else { return }
            let transport = transports[name]!
            let inner = try await transport.subscribe(request)
            guard var subscription = subscriptions[id], active == name else {
                await transport.unsubscribe(inner.id)
                return
            }
            let statuses = await transport.statusUpdates(ofSubscription: inner.id)
            let continuation = subscription.continuation
            let board = self.board
            let (metrics, logger) = (transport.metrics, self.logger)
            subscription.inner = inner.id
            // Not children: a switchable connection has no root of its own yet; cancelled when the
            // subscription leaves this transport.
            subscription.forwarders = [
                Task {
                    var events = inner.events.makeAsyncIterator()
                    var overflowing = false
                    while let event = await inner.next(&events) {
                        guard !Task.isCancelled else { return }
                        // Statuses come from the transport's status sequence (below), not its events.
                        if event.status?.alone == true { continue }
                        let dropped = continuation.send(event, weight: event.weight, markingGap: RawChannelEvent.markGap)
                        if dropped > 0 {
                            metrics.channel(inner.channel) { $0.overflowed += dropped }
                            if !overflowing {
                                logger.warning("events arrive faster than they are decoded; dropping the oldest waiting ones", metadata: ["channel": "\(inner.channel)"])
                            }
                        }
                        overflowing = dropped > 0
                    }
                    // The transport ended the stream (its final event): so does this one.
                    if !Task.isCancelled { continuation.finish() }
                },
                Task {
                    for await status in statuses {
                        guard !Task.isCancelled else { return }
                        board.setStatus(status, of: id)
                    }
                },
            ]
            subscriptions[id] = subscription
        }

        /// Leaves the transport in use for subscription `id`: nothing of it is forwarded any more.
        private func leave(_ id: String) async {
            guard var subscription = subscriptions[id] else { return }
            for forwarder in subscription.forwarders { forwarder.cancel() }
            let inner = subscription.inner
            subscription.forwarders = []
            subscription.inner = nil
            subscriptions[id] = subscription
            if let inner { await transports[active]!.unsubscribe(inner) }
        }

        func unsubscribe(_ id: String) async {
            await exclusively {
                guard subscriptions[id] != nil else { return }
                await leave(id)
                subscriptions[id]?.continuation.finish()
                subscriptions[id] = nil
                board.forget(id)
            }
        }

        // MARK: Switching

        /// Switches in the order asked; one overtaken while it waited (a later switch was asked
        /// for) gives way to it, so a burst of switches is the last of them.
        func switchTransport(to name: String) async {
            switchesAsked += 1
            let asked = switchesAsked
            await exclusively {
                guard asked == switchesAsked else { return }
                await moveEverySubscription(to: name)
            }
        }

        private func moveEverySubscription(to name: String) async {
            guard name != active else { return }
            let old = active
            logger.info("switching transport", metadata: ["from": "\(old)", "to": "\(name)"])
            // Leave first: an event is never delivered by both.
            for id in subscriptions.keys.sorted() {
                await leave(id)
                board.setStatus(.subscribing, of: id)
            }
            transports[old]!.forgetResumption()
            active = name
            activeMetrics.withLock { $0 = transports[name]!.metrics }
            for continuation in activeNames.values { continuation.yield(name) }
            if running {
                watchState()
                // While suspended the new transport starts with `resume()`.
                if !suspended { await transports[name]!.start() }
            }
            for id in subscriptions.keys.sorted() {
                do {
                    try await join(id, on: name)
                } catch {
                    logger.error("cannot subscribe on the new transport", metadata: ["channel": "\(subscriptions[id]?.request.channel ?? "?")", "error": "\(error)"])
                    board.setStatus(.failed([ServiceError(errorType: "SubscribeFailed", message: "\(error)")]), of: id)
                }
            }
            if running { await transports[old]!.disconnect() }
        }
    }
}
